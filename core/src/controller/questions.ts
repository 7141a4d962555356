// Every question the controller's programs ask and every act they ask for, with the Schema of the
// question and of its answer: what a recording writes and a replay decodes. A shell answers each by
// doing the I/O; it decides nothing about what comes next.
import * as Schema from "effect/Schema"
import {
  BuildRecord, GateFactsRecord, ObservationRecord, PlanRecord, StatementRecord, VerdictRecord,
} from "../gate/records.ts"
import { ConditionRecord, ManifestRecord, WitnessRecord } from "../gate/records.ts"
import { MeshRecords } from "../mesh/records.ts"
import { PushExchange } from "../delivery/questions.ts"

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
  /** What the machine detects, when it said (seed 002's reportUnhostable). */
  detects: Schema.optionalKey(Names),
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
  // ---- release plans in tiers, sent until every machine has what they decided (issue 9) ----
  /** Every plan not ended: `open`, `sending` or `rolling-back`. */
  "plans-in-flight": entry(q("plans-in-flight", {}), readable(Schema.Array(PlanRecord))),
  /** The clock, for a tick that gathers no gate facts. */
  now: entry(q("now", {}), Schema.Number),
  /** What the gate knows of each module asked: its tools, and for the engine the builds a send delivers. */
  manifests: entry(q("manifests", { modules: Names }), readable(Schema.Record(Schema.String, ManifestRecord))),
  /** Each machine's node-engine build, as it last reported it. */
  "engine-builds": entry(q("engine-builds", {}), readable(Schema.Record(Schema.String, Schema.String))),
  /**
   * A plan's own send: a push of exactly these machines, composed with what every plan holds
   * (core/src/delivery/held.ts, request `{kind: "plan"}`). `told`: the machines sent.
   */
  "send-plan": entry(
    q("send-plan", {
      plan: Schema.String, module: Schema.String, why: Schema.Literals(["tier", "rest", "rollback", "user-list"]), machines: Names,
      /**
       * A dry run's send (issue 10): these machines are composed with this build of the module, which
       * is not registered (so nothing holds for it and no other push sends it).
       */
      build: Schema.optionalKey(Schema.String),
    }),
    Schema.Struct({
      told: Names,
      error: Schema.optionalKey(Schema.String),
      /**
       * The push's own questions and answers, in order (core/src/delivery/push.ts, issue 25): a replay
       * runs the push again over them and counts a send composed, ordered or sent otherwise as differing.
       * A log recorded before has none and replays as it did.
       */
      exchanges: Schema.optionalKey(Schema.Array(PushExchange)),
    }),
  ),
  /**
   * The verdict kept for a build, when one was: a plan still open whose verdict is kept was left by a
   * controller that stopped between keeping it and moving the plan on, and is resumed.
   */
  "verdict-of": entry(q("verdict-of", { build: Schema.String }), readable(Schema.NullOr(Schema.Struct({ verdict: VerdictRecord, keptAt: Schema.Number })))),
  /**
   * The machine holding the bus, and whether what it reports running lacks the user list composed
   * now (core/src/delivery/order.ts holderBehindRunning, composed with what the plans hold).
   */
  "holder-list": entry(q("holder-list", {}), readable(Schema.Struct({ holder: Schema.NullOr(Schema.String), behind: Schema.Boolean }))),
  /** The newest verdict of each module (the gate's probe keeps a failed one's condition). */
  "latest-verdicts": entry(q("latest-verdicts", {}), readable(Schema.Array(VerdictRecord))),
  /** What each machine's witnesses say they decided. */
  "witness-verdicts": entry(q("witness-verdicts", {}), readable(Schema.Record(Schema.String, Schema.Array(WitnessRecord)))),
  /** The open conditions a probe keeps, by its source (the gate's: `DG`). */
  "probe-conditions": entry(q("probe-conditions", { source: Schema.String }), readable(Schema.Array(ConditionRecord))),
  // ---- operators steer a plan (issue 10, core/src/gate/operator.ts) ----
  /**
   * Whether this controller holds the controller lease, and who does: a verb is carried out only by
   * the holder, and refused elsewhere naming it.
   */
  "lease-holder": entry(q("lease-holder", {}), readable(Schema.Struct({ mine: Schema.Boolean, holder: Schema.NullOr(Schema.String) }))),
  /** One plan by its id, whatever its state; null when there is none. */
  "plan-of": entry(q("plan-of", { id: Schema.String }), readable(Schema.NullOr(PlanRecord))),
  /**
   * A failed plan opened again by `plans retry`: written over the row only while it is `failed` and no
   * other plan of its module is in flight (save-plan never writes over an ended row).
   */
  "reopen-plan": entry(q("reopen-plan", { plan: PlanRecord }), Outcome),
  // ---- release (core/src/gate/release.ts) ----
  "mesh-records": entry(q("mesh-records", {}), readable(Schema.NullOr(MeshRecords))),
  "record-build": entry(q("record-build", { build: BuildRecord }), Outcome),
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
