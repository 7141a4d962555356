// What is kept of a message the controller could not keep (issue 14): set aside with why, so it is
// never in the way of the words beside it, and counted where a person looks. The table is generic
// (kind, stream, subject, sequence), for any follower's messages: standings' words, reports, health.
import type { DeadLetterRecord } from "./questions.ts"

export const deadLetterLimits = { bodyChars: 2_000, whyChars: 1_000 } as const

// The table must take whatever came: a NUL or a lone surrogate in what is kept would fail the very
// insert that sets the message aside. U+FFFD says a character was there.
const storable = (s: string, max: number): string =>
  (s.length > max ? `${s.slice(0, max)}…` : s).replace(/[\u0000\uD800-\uDFFF]/gu, "\uFFFD")

/** A set-aside message as one row of the dead_letters table (migration 0004). */
export const deadLetter = (d: DeadLetterRecord): DeadLetterRecord => ({
  ...d,
  stream: storable(d.stream, 256),
  subject: storable(d.subject, 512),
  kind: storable(d.kind, 64),
  body: storable(d.body, deadLetterLimits.bodyChars),
  why: storable(d.why, deadLetterLimits.whyChars),
})
