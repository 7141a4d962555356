// Delivery's questions (issue 25). Each entry says everything about its question: its Schemas,
// whether it is an act, how the timeline shows it and what the summary counts. Kinds are unique
// across every area's catalogue: the controller's log is one namespace (controller/catalogue.ts).
import * as Schema from "effect/Schema"
import { entryFor } from "../program.ts"
import { Names, Outcome, question } from "../outcome.ts"

// ---- what the machines report of a declaration (the controller's reports follower) ----

export const ReportRecord = Schema.Struct({
  node: Schema.String,
  digest: Schema.String,
  sequence: Schema.Number,
  outcome: Schema.Literals(["applied", "failed", "refused"]),
  at: Schema.Number,
  refused: Schema.optionalKey(Schema.String),
  failed: Names,
  /** What the machine detects, when it said (seed 002's reportUnhostable). */
  detects: Schema.optionalKey(Names),
})
export type ReportRecord = typeof ReportRecord.Type

/** What a replayed day's summary counts of the machines' reports. */
export interface ReportsTally {
  reports: number
}

const reportsEntry = entryFor<unknown, ReportsTally>()

const reportQuestions = {
  "kept-report": reportsEntry({
    question: question("kept-report", { node: Schema.String }), answer: Schema.NullOr(ReportRecord), act: false,
    whatIf: () => null,
  }),
  "write-report": reportsEntry({
    question: question("write-report", { report: ReportRecord }), answer: Outcome, act: true, store: true,
    show: (q, _a, { tail }) => [["report", `${q.report.node} ${q.report.outcome} declaration ${q.report.digest.slice(0, 12)} (sequence ${q.report.sequence})${tail}`]],
    tally: (_q, _a, t) => {
      t.reports += 1
    },
  }),
}

export const deliveryQuestions = {
  ...reportQuestions,
}
