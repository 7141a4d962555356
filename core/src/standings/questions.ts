// The standings' questions (issue 25): what the controller keeps of the providers' words, and the
// messages it sets aside, each with its Schemas and whether it changes the world. Kinds are unique
// across every area's catalogue: the controller's log is one namespace (controller/catalogue.ts).
import * as Schema from "effect/Schema"
import { done, entry, type Inference } from "../program.ts"
import { Outcome, question } from "../outcome.ts"

export const KeptRecord = Schema.Struct({
  provider: Schema.String,
  providerNode: Schema.String,
  consumer: Schema.String,
  state: Schema.Literals(["failing", "recovered", "forgotten"]),
  at: Schema.Number,
  by: Schema.optionalKey(Schema.String),
  consumerNode: Schema.optionalKey(Schema.String),
  class: Schema.optionalKey(Schema.String),
  error: Schema.optionalKey(Schema.String),
  since: Schema.optionalKey(Schema.String),
  attempts: Schema.optionalKey(Schema.Number),
  why: Schema.optionalKey(Schema.String),
})
export type KeptRecord = typeof KeptRecord.Type

/** A message set aside (issue 14): a row of `dead_letters` (core/src/standings/dead-letters.ts). */
export const DeadLetterRecord = Schema.Struct({
  kind: Schema.String,
  stream: Schema.String,
  subject: Schema.String,
  streamSequence: Schema.Number,
  body: Schema.String,
  why: Schema.String,
})
export type DeadLetterRecord = typeof DeadLetterRecord.Type

/** What a replayed day's summary counts of the standings. */
export interface StandingsTally {
  standings: number
}

/**
 * Setting a message aside, asked by every follower (words, reports, statements): kept with why, once
 * per stream message; answers the stream sequences not kept before (said once).
 */
export const setAsideQuestions = {
  "set-aside": entry({
    question: question("set-aside", { letters: Schema.Array(DeadLetterRecord) }),
    answer: Schema.Struct({ fresh: Schema.Array(Schema.Number) }),
    // It writes the letters down: an act (issue 14), shown on no line of the timeline.
    act: true,
  }),
}

export const standingsQuestions = {
  ...setAsideQuestions,
  "write-standings": entry({
    question: question("write-standings", { writes: Schema.Array(KeptRecord) }),
    answer: Outcome,
    act: true,
  }),
}
export type StandingsQuestions = typeof standingsQuestions

/** A replay under other settings takes a letter set aside or a word kept as done. */
export const standingsInference: Inference<StandingsQuestions, unknown> = {
  "set-aside": { whatIf: (q) => ({ fresh: q.letters.map((l) => l.streamSequence) }) },
  "write-standings": { whatIf: done },
}
