// What the controller does with a batch of providers' words (novox/hq ADR 0224, the newest per
// provider, machine and consumer), and how every follower sets aside a message it cannot keep (issue
// 14). A machine's report is kept by delivery/reports.ts, its health statement by gate/messages/statements.ts.
// Each runs inside one transaction of the store, which the shell opens around it; a store that fails
// it makes nothing kept, and the messages come again.
import { programsOf, type Program } from "../program.ts"
import { deadLetter } from "./dead-letters.ts"
import { type DeadLetterRecord, setAsideQuestions, standingsQuestions } from "./questions.ts"
import { applyWords } from "./standings.ts"
import { hear, type Word } from "./word.ts"

const SetAside = programsOf(setAsideQuestions)
const Standings = programsOf(standingsQuestions)

/** A message as the bus delivered it: the event its subject carries, its body and headers. */
export interface Heard {
  readonly subject: string
  readonly event: string
  readonly body: string
  readonly saidAt?: string
  readonly seq: number
  /** The stream that kept it: with seq, what names it among the messages set aside. */
  readonly stream?: string
  /** When the stream received it (epoch ms): a word said more than an hour later is refused (word.ts). */
  readonly receivedAt?: number
}

export const letterOf = (kind: string, m: Heard, why: string): DeadLetterRecord =>
  deadLetter({ kind, stream: m.stream ?? "", subject: m.subject, streamSequence: m.seq, body: m.body, why })

/**
 * Sets messages aside, with why (issue 14): acknowledged like any other, never in the way of the
 * ones beside them, counted by status, and said once (a message whose acknowledgement was lost
 * comes again, and is found already set aside).
 */
export function* setAside(
  what: string,
  letters: ReadonlyArray<DeadLetterRecord>,
): Program<typeof setAsideQuestions, void> {
  if (letters.length === 0) return
  const { fresh } = yield* SetAside.ask({ q: "set-aside", letters })
  const isFresh = new Set(fresh)
  for (const d of letters)
    if (isFresh.has(d.streamSequence))
      yield* SetAside.say(
        `[controller] set aside a ${what} on ${d.subject} (stream ${d.stream} sequence ${d.streamSequence}): ${d.why}`,
      )
}

/**
 * A batch sorted into the words to keep and the messages to set aside, each of the latter with why.
 * Every message is one or the other; none is dropped and none stops the rest.
 */
export const sortBatch = (messages: ReadonlyArray<Heard>) => {
  const words: Array<Word> = []
  const setAside: Array<DeadLetterRecord> = []
  for (const m of messages) {
    const heard = hear(m.event, m.body, m.saidAt, m.receivedAt)
    if (heard.ok) words.push(heard.word)
    else setAside.push(letterOf("standing-word", m, heard.why))
  }
  return { words, setAside }
}

/**
 * A batch of providers' words, kept: sorted into the words to keep and the messages to set aside, the
 * newest word per key written with one conditional upsert on the core's order key (no read first: the
 * store compares the keys the core made, issue 11). Answers how many were words.
 */
export function* keepWords(messages: ReadonlyArray<Heard>): Program<typeof standingsQuestions, number> {
  const { words, setAside: aside } = sortBatch(messages)
  yield* setAside("word", aside)
  const writes = applyWords(new Map(), words).writes
  if (writes.length > 0) yield* Standings.ask({ q: "write-standings", writes })
  return words.length
}

export type { KeptOutcome as KeptOrNot } from "../observed.ts"
