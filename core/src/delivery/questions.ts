// The delivery area's catalogue (issue 25): each question's Schemas and whether it changes the world.
// Two programs ask them: the push (push.ts) and the controller's reports follower (reports.ts).
//
// The push's questions are recorded inside the `send-plan` answer that ran it (controller/replay.ts
// runs the push again over them), so they are a namespace of their own; the reports' are in the
// controller's log beside every other area's, where kinds are unique (controller/catalogue.ts).
import * as Schema from "effect/Schema"
import { PlanRecord } from "../gate/plan/records.ts"
import { MeshRecords } from "../mesh/records.ts"
import { Names, now, Outcome, question } from "../outcome.ts"
import { done, entry, type Inference } from "../program.ts"

// ---- the push (push.ts): what it reads, what it holds, numbers and sends ----

/** An act with nothing to say but that it was done; one that could not be done fails the push. */
const Done = Schema.Struct({ ok: Schema.Literal(true) })

/** What a machine last reported of a declaration (behind.ts Report), as the store keeps it. */
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

/** What a machine was last sent: the digest, its sequence, the user list it carried (the holder's). */
export const SentRecord = Schema.Struct({
  node: Schema.String,
  digest: Schema.String,
  sequence: Schema.Number,
  busUsersDigest: Schema.optional(Schema.String),
  /** Each module's build it carried; absent when not known (a declaration sent by hand). */
  builds: Schema.optional(Schema.Record(Schema.String, Schema.String)),
})
export type SentRecord = typeof SentRecord.Type

/** One module's membership on the bus (compose.ts Membership). */
export const MembershipRecord = Schema.Struct({
  mesh: Schema.String,
  node: Schema.String,
  module: Schema.String,
  receives: Schema.Record(Schema.String, Names),
  states: Names,
})

/** A grant's or a declaration's outcome (order.ts ActOutcome). */
export const ActOutcomeRecord = Schema.Union([
  Done,
  Schema.Struct({ ok: Schema.Literal(false), error: Schema.String }),
  Schema.Struct({ ok: Schema.Literal(false), refused: Schema.Record(Schema.String, Schema.String) }),
])

export const pushQuestions = {
  /** The mesh's records; null when none were given yet. */
  "mesh-records": entry({ question: question("mesh-records", {}), answer: Schema.NullOr(MeshRecords), act: false }),
  /** The machines the store knows, by name. */
  machines: entry({ question: question("machines", {}), answer: Names, act: false }),
  /** Every plan in flight and the newest of each module (held.ts): what a push composes through. */
  "plans-holding": entry({ question: question("plans-holding", {}), answer: Schema.Array(PlanRecord), act: false }),
  /** What each machine was last sent. */
  sent: entry({ question: question("sent", {}), answer: Schema.Array(SentRecord), act: false }),
  /** Each machine's last report. */
  reports: entry({ question: question("reports", {}), answer: Schema.Array(ReportRecord), act: false }),
  /** One machine's last report (`push <node> --wait`). */
  "report-of": entry({
    question: question("report-of", { node: Schema.String }),
    answer: Schema.NullOr(ReportRecord),
    act: false,
  }),
  /** The clock. */
  now,
  /** A pause before asking again (`--wait`). */
  sleep: entry({ question: question("sleep", { ms: Schema.Number }), answer: Done, act: false }),
  /**
   * The most bytes the bus takes in one message (its server's max_payload; issue 28): a declaration
   * whose envelope would be larger is refused before a sequence is taken. Null when not known, as for
   * a day recorded before this was asked.
   */
  "message-limit": entry({ question: question("message-limit", {}), answer: Schema.NullOr(Schema.Number), act: false }),
  /** The machines held from composing to sending (ADR 0100), until `release`. */
  hold: entry({ question: question("hold", { machines: Names }), answer: Done, act: true }),
  /**
   * The next sequence of one machine, taken under the hold (issue 204); a store that could not give
   * one is that machine's refusal, not the push's end.
   */
  allot: entry({
    question: question("allot", { node: Schema.String }),
    answer: Schema.Union([Schema.Struct({ sequence: Schema.Number }), Schema.Struct({ error: Schema.String })]),
    act: true,
  }),
  /** The controller's signing key established and the delivery streams asserted, before the first send. */
  prepare: entry({ question: question("prepare", {}), answer: Done, act: true }),
  /** One machine's declaration, its exact bytes signed and sent, then recorded as sent (issue 204). */
  declare: entry({
    question: question("declare", {
      node: Schema.String,
      body: Schema.String,
      digest: Schema.String,
      sequence: Schema.Number,
      builds: Schema.Record(Schema.String, Schema.String),
      busUsersDigest: Schema.optional(Schema.String),
    }),
    answer: ActOutcomeRecord,
    act: true,
  }),
  /** The grants of every machine being sent: each state bucket, then each membership (issue 249). */
  grant: entry({
    question: question("grant", { memberships: Schema.Array(MembershipRecord) }),
    answer: ActOutcomeRecord,
    act: true,
  }),
  /** The machines held let go. */
  release: entry({ question: question("release", {}), answer: Done, act: true }),
} as const

// ---- what the machines report of a declaration (the controller's reports follower) ----

/** What a replayed day's summary counts of the machines' reports. */
export interface ReportsTally {
  reports: number
}

/** The delivery area's questions in the controller's log: the machines' reports kept. */
export const deliveryQuestions = {
  "kept-report": entry({
    question: question("kept-report", { node: Schema.String }),
    answer: Schema.NullOr(ReportRecord),
    act: false,
  }),
  "write-report": entry({ question: question("write-report", { report: ReportRecord }), answer: Outcome, act: true }),
}
export type DeliveryQuestions = typeof deliveryQuestions

/** A replay under other settings: no report kept before, a report kept as done. */
export const deliveryInference: Inference<DeliveryQuestions, unknown> = {
  "kept-report": { whatIf: () => null },
  "write-report": { whatIf: done },
}
export type PushQuestions = typeof pushQuestions

/**
 * One exchange of a push as a recording keeps it: the question, decoded by its kind's Schema, and
 * the answer it got, by the same kind's.
 */
export const PushExchange = Schema.Union(
  (Object.keys(pushQuestions) as Array<keyof PushQuestions>).map((k) =>
    Schema.Struct({ q: pushQuestions[k].question, a: pushQuestions[k].answer }),
  ),
)
export type PushExchange = typeof PushExchange.Type
