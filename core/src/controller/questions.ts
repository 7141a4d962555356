// Every question the controller's programs ask and every act they ask for, with the Schema of the
// question and of its answer: what a recording writes and a replay decodes. A shell answers each by
// doing the I/O; it decides nothing about what comes next.
import { Schema } from "effect"
import {
  BuildRecord, GateFactsRecord, ObservationRecord, PlanRecord, StatementRecord, VerdictRecord,
} from "./records.ts"

const Names = Schema.Array(Schema.String)

/** An act done, or why not. */
export const Outcome = Schema.Union([
  Schema.Struct({ ok: Schema.Literal(true) }),
  Schema.Struct({ ok: Schema.Literal(false), why: Schema.String }),
])
export type Outcome = typeof Outcome.Type
export const done: Outcome = { ok: true }

const readable = <S extends Schema.Top>(value: S) =>
  Schema.Union([Schema.Struct({ ok: Schema.Literal(true), value }), Schema.Struct({ ok: Schema.Literal(false), why: Schema.String })])

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

export const ReportRecord = Schema.Struct({
  node: Schema.String,
  digest: Schema.String,
  sequence: Schema.Number,
  outcome: Schema.Literals(["applied", "failed", "refused"]),
  at: Schema.Number,
  refused: Schema.optionalKey(Schema.String),
  failed: Names,
})
export type ReportRecord = typeof ReportRecord.Type

/** A message set aside (issue 14): a row of `dead_letters` (core/src/standings/dead-letters.ts). */
export const DeadLetterRecord = Schema.Struct({
  kind: Schema.String, stream: Schema.String, subject: Schema.String, streamSequence: Schema.Number, body: Schema.String, why: Schema.String,
})
export type DeadLetterRecord = typeof DeadLetterRecord.Type

const KeyRecord = Schema.Struct({ provider: Schema.String, providerNode: Schema.String, consumer: Schema.String })
const Streaks = Schema.Record(Schema.String, Schema.Number)

const entry = <Q extends Schema.Top, A extends Schema.Top>(question: Q, answer: A) => ({ question, answer })
const q = <K extends string, F extends Schema.Struct.Fields>(kind: K, fields: F) => Schema.Struct({ q: Schema.Literal(kind), ...fields })

export const Catalogue = {
  // ---- the release gate ----
  "open-plans": entry(q("open-plans", {}), readable(Schema.Array(PlanRecord))),
  "gate-facts": entry(q("gate-facts", {}), GateFactsRecord),
  builds: entry(q("builds", { builds: Names }), readable(Schema.Array(BuildRecord))),
  "among-kept": entry(q("among-kept", { module: Schema.String, build: Schema.String, kept: Schema.Number }), readable(Schema.Boolean)),
  "record-verdict": entry(
    q("record-verdict", { verdict: VerdictRecord }),
    Schema.Union([Schema.Struct({ ok: Schema.Literal(true), mine: Schema.Boolean }), Schema.Struct({ ok: Schema.Literal(false), why: Schema.String })]),
  ),
  "set-build": entry(q("set-build", { module: Schema.String, build: Schema.String, commit: Schema.String }), Outcome),
  send: entry(
    q("send", { machines: Names, why: Schema.Literals(["rest", "rollback"]), module: Schema.String }),
    Schema.Struct({ told: Names, error: Schema.optionalKey(Schema.String) }),
  ),
  "set-rollback": entry(q("set-rollback", { build: Schema.String, rollback: Schema.String }), Outcome),
  publish: entry(q("publish", { event: Schema.String, body: Schema.Record(Schema.String, Schema.Unknown) }), Outcome),
  "save-plan": entry(q("save-plan", { plan: PlanRecord }), Outcome),
  // ---- conditions ----
  "raise-condition": entry(q("raise-condition", { observation: ObservationRecord, at: Schema.Number }), Outcome),
  "clear-condition": entry(q("clear-condition", { key: Schema.String, by: Schema.String }), Outcome),
  // ---- what machines and providers say (each inside one transaction of the store) ----
  "kept-standings": entry(q("kept-standings", { keys: Schema.Array(KeyRecord) }), Schema.Array(KeptRecord)),
  "write-standings": entry(q("write-standings", { writes: Schema.Array(KeptRecord) }), Outcome),
  /** Kept with why, once per stream message; answers the stream sequences not kept before (said once). */
  "set-aside": entry(q("set-aside", { letters: Schema.Array(DeadLetterRecord) }), Schema.Struct({ fresh: Schema.Array(Schema.Number) })),
  "kept-report": entry(q("kept-report", { node: Schema.String }), Schema.NullOr(ReportRecord)),
  "write-report": entry(q("write-report", { report: ReportRecord }), Outcome),
  "kept-statement": entry(q("kept-statement", { machine: Schema.String }), Schema.NullOr(Schema.Struct({ statement: StatementRecord, streaks: Streaks }))),
  "write-statement": entry(q("write-statement", { statement: StatementRecord, streaks: Streaks }), Outcome),
} as const

type Catalogue = typeof Catalogue
export type Kind = keyof Catalogue
export type Question = { [K in Kind]: Catalogue[K]["question"]["Type"] }[Kind]
export type Answers = { [K in Kind]: Catalogue[K]["answer"]["Type"] }
export const kinds = Object.keys(Catalogue) as ReadonlyArray<Kind>
export const isKind = (k: unknown): k is Kind => typeof k === "string" && Object.hasOwn(Catalogue, k)
