// What is kept of a message the controller could not keep (issue 14): set aside with why, so it is
// never in the way of the words beside it, and counted where a person looks. The table is generic
// (kind, stream, subject, sequence), for any follower's messages: standings' words, reports, health.
import { hear, type Word } from "./word.ts"

/** What a set-aside message is kept as: one row of the dead_letters table (migration 0004). */
export interface DeadLetter {
  readonly kind: string
  readonly stream: string
  readonly subject: string
  readonly streamSequence: number
  /** The body as it came, clipped to bodyChars and made storable. */
  readonly body: string
  readonly why: string
}

export const deadLetterLimits = { bodyChars: 2_000, whyChars: 1_000 } as const

// The table must take whatever came: a NUL or a lone surrogate in what is kept would fail the very
// insert that sets the message aside. U+FFFD says a character was there.
const storable = (s: string, max: number): string =>
  (s.length > max ? `${s.slice(0, max)}…` : s).replace(/[\u0000\uD800-\uDFFF]/gu, "\uFFFD")

export const deadLetter = (d: DeadLetter): DeadLetter => ({
  ...d,
  stream: storable(d.stream, 256),
  subject: storable(d.subject, 512),
  kind: storable(d.kind, 64),
  body: storable(d.body, deadLetterLimits.bodyChars),
  why: storable(d.why, deadLetterLimits.whyChars),
})

/** One message off the stream, as the follower hands it over. */
export interface Received {
  readonly event: string
  readonly subject: string
  readonly stream: string
  readonly streamSequence: number
  readonly body: string
  readonly saidAt: string | undefined
  readonly receivedAt: number | undefined
}

/**
 * A batch sorted into the words to keep and the messages to set aside, each of the latter with
 * why. Every message is one or the other; none is dropped and none stops the rest.
 */
export const sortBatch = (
  messages: ReadonlyArray<Received>,
): { readonly words: ReadonlyArray<Word>; readonly setAside: ReadonlyArray<DeadLetter> } => {
  const words: Array<Word> = []
  const setAside: Array<DeadLetter> = []
  for (const m of messages) {
    const heard = hear(m.event, m.body, m.saidAt, m.receivedAt)
    if (heard.ok) words.push(heard.word)
    else
      setAside.push(
        deadLetter({
          kind: "standing-word",
          stream: m.stream,
          subject: m.subject,
          streamSequence: m.streamSequence,
          body: m.body,
          why: heard.why,
        }),
      )
  }
  return { words, setAside }
}
