// The standings' questions (issue 25): what the controller keeps of the providers' words, and the
// messages it sets aside. Each entry says everything about its question: its Schemas, whether it is
// an act, how the timeline shows it and what the summary counts. Kinds are unique across every
// area's catalogue: the controller's log is one namespace (controller/catalogue.ts).
import * as Schema from "effect/Schema"
import { entryFor } from "../program.ts"
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

const standingsEntry = entryFor<unknown, StandingsTally>()

/**
 * Setting a message aside, asked by every follower (words, reports, statements): kept with why, once
 * per stream message; answers the stream sequences not kept before (said once).
 */
export const setAsideQuestions = {
  "set-aside": standingsEntry({
    question: question("set-aside", { letters: Schema.Array(DeadLetterRecord) }),
    answer: Schema.Struct({ fresh: Schema.Array(Schema.Number) }),
    act: false,
  }),
}

export const standingsQuestions = {
  ...setAsideQuestions,
  "write-standings": standingsEntry({
    question: question("write-standings", { writes: Schema.Array(KeptRecord) }),
    answer: Outcome,
    act: true,
    store: true,
    show: (q, _a, { tail }) =>
      q.writes.map(
        (w) =>
          [
            "standings",
            `${w.provider} on ${w.providerNode}: ${w.consumer}${w.consumerNode === undefined ? "" : ` on ${w.consumerNode}`} ${w.state}` +
              `${w.class === undefined ? "" : ` (${w.class}${w.since === undefined ? "" : ` since ${w.since}`})`}${w.why === undefined ? "" : ` (${w.why})`}${tail}`,
          ] as const,
      ),
    tally: (q, _a, t) => {
      t.standings += q.writes.length
    },
  }),
}
