// The delivery area's catalogue (issue 25): every question a delivery program asks, with the Schema
// of the question and of its answer, whether it is an act, as a recording writes them and a replay
// decodes them. Its programs: the push (push.ts).
import * as Schema from "effect/Schema"
import { PlanRecord } from "../gate/records.ts"
import { MeshRecords } from "../mesh/records.ts"
import { entry } from "../program.ts"

const Names = Schema.Array(Schema.String)
const q = <K extends string, F extends Schema.Struct.Fields>(kind: K, fields: F) => Schema.Struct({ q: Schema.Literal(kind), ...fields })

// ---- the push (push.ts): what it reads, what it holds, numbers and sends ----

/** An act with nothing to say but that it was done; one that could not be done fails the push. */
const Done = Schema.Struct({ ok: Schema.Literal(true) })

/** What a machine last reported (behind.ts Report), as the store keeps it. */
export const DeliveryReport = Schema.Struct({
  node: Schema.String,
  digest: Schema.String,
  sequence: Schema.Number,
  outcome: Schema.Literals(["applied", "failed", "refused"]),
  at: Schema.Number,
  refused: Schema.optional(Schema.String),
  failed: Names,
  detects: Schema.optional(Names),
})

/** What a machine was last sent: the digest, its sequence, the user list it carried (the holder's). */
export const SentRecord = Schema.Struct({
  node: Schema.String,
  digest: Schema.String,
  sequence: Schema.Number,
  busUsersDigest: Schema.optional(Schema.String),
})

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
  Schema.Struct({ ok: Schema.Literal(true) }),
  Schema.Struct({ ok: Schema.Literal(false), error: Schema.String }),
  Schema.Struct({ ok: Schema.Literal(false), refused: Schema.Record(Schema.String, Schema.String) }),
])

export const pushQuestions = {
  /** The mesh's records; null when none were given yet. */
  "mesh-records": entry({ question: q("mesh-records", {}), answer: Schema.NullOr(MeshRecords), act: false }),
  /** The machines the store knows, by name. */
  machines: entry({ question: q("machines", {}), answer: Names, act: false }),
  /** Every plan in flight and the newest of each module (held.ts): what a push composes through. */
  "plans-holding": entry({ question: q("plans-holding", {}), answer: Schema.Array(PlanRecord), act: false }),
  /** What each machine was last sent. */
  sent: entry({ question: q("sent", {}), answer: Schema.Array(SentRecord), act: false }),
  /** Each machine's last report. */
  reports: entry({ question: q("reports", {}), answer: Schema.Array(DeliveryReport), act: false }),
  /** One machine's last report (`push <node> --wait`). */
  "report-of": entry({ question: q("report-of", { node: Schema.String }), answer: Schema.NullOr(DeliveryReport), act: false }),
  /** The clock. */
  now: entry({ question: q("now", {}), answer: Schema.Number, act: false }),
  /** A pause before asking again (`--wait`). */
  sleep: entry({ question: q("sleep", { ms: Schema.Number }), answer: Done, act: false }),
  /** The machines held from composing to sending (ADR 0100), until `release`. */
  hold: entry({ question: q("hold", { machines: Names }), answer: Done, act: true }),
  /**
   * The next sequence of one machine, taken before composing (issue 204); a store that could not
   * give one is that machine's refusal, not the push's end.
   */
  allot: entry({
    question: q("allot", { node: Schema.String }),
    answer: Schema.Union([Schema.Struct({ sequence: Schema.Number }), Schema.Struct({ error: Schema.String })]),
    act: true,
  }),
  /** The controller's signing key established and the delivery streams asserted, before the first send. */
  prepare: entry({ question: q("prepare", {}), answer: Done, act: true }),
  /** One machine's declaration, its exact bytes signed and sent, then recorded as sent (issue 204). */
  declare: entry({
    question: q("declare", {
      node: Schema.String, body: Schema.String, digest: Schema.String, sequence: Schema.Number,
      builds: Schema.Record(Schema.String, Schema.String), busUsersDigest: Schema.optional(Schema.String),
    }),
    answer: ActOutcomeRecord,
    act: true,
  }),
  /** The grants of every machine being sent: each state bucket, then each membership (issue 249). */
  grant: entry({ question: q("grant", { memberships: Schema.Array(MembershipRecord) }), answer: ActOutcomeRecord, act: true }),
  /** The machines held let go. */
  release: entry({ question: q("release", {}), answer: Done, act: true }),
} as const

/** The delivery area's questions: the push's, and the machines' reports kept (catalogues). */
export const deliveryQuestions = {
  ...pushQuestions,
} as const

export type DeliveryQuestions = typeof deliveryQuestions
export type PushQuestions = typeof pushQuestions

/**
 * One exchange of a push as a recording keeps it: the question, decoded by its kind's Schema, and
 * the answer it got, by the same kind's.
 */
export const PushExchange = Schema.Union(
  (Object.keys(pushQuestions) as Array<keyof PushQuestions>).map((k) => Schema.Struct({ q: pushQuestions[k].question, a: pushQuestions[k].answer })),
)
export type PushExchange = typeof PushExchange.Type
