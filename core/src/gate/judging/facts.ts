// What a judging of the release gate reads (seed 003, ADR 0236), gathered once for every machine it
// judges: the machines' reports, their engines' builds, who serves what on the bus, the open
// conditions, the witnesses' verdicts, who holds the controller lease, and what each machine states
// of the health of what it runs (ADR 0240). Anything that could not be read carries why, and is
// never read as healthy.

import * as Schema from "effect/Schema"
import { Names, readable as readableOf } from "../../outcome.ts"

/** An open condition (who raised it: the gate's own, `DG`, are no evidence about a build). */
export type Condition = ConditionRecord

export type WitnessVerdict = WitnessRecord

export type LeaseHolder = typeof HolderRecord.Type

export const HealthState = Schema.Literals(["healthy", "starting", "unhealthy"])
export type HealthState = typeof HealthState.Type

export type ResourceHealth = typeof ResourceHealthRecord.Type
/** What one machine's engine states of every long-running resource it runs (ADR 0240). */
export type Statement = StatementRecord

/** What one judging reads: the record gathered (GateFactsRecord), with what the tick read beside it. */
export type GateFacts = GateFactsRecord & {
  /** Why the engines' builds could not be read, when they could not: never read as the new build. */
  readonly enginesUnread?: string | undefined
  /** Why the witnesses' verdicts could not be read, when they could not. */
  readonly witnessesUnread?: string | undefined
  /** Why the modules' manifests (the tools each serves) could not be read, when they could not. */
  readonly manifestsUnread?: string | undefined
}

/** A record's own entry for a key, never what its prototype holds (a machine named `constructor`). */
export const own = <A>(r: Readonly<Record<string, A>>, key: string): A | undefined =>
  Object.hasOwn(r, key) ? r[key] : undefined

/** What the gate knows of a module: its tools, and for the engine the builds a send delivers. */
export type Manifest = ManifestRecord

export const noManifest: Manifest = { tools: [], deliveredVersions: [] }

// The core components, as a witness names them; anything else is judged by its own health.
export const ComponentController = "controller"
export const ComponentEngine = "node-engine"
export const ComponentNodeTools = "node-tools"

const coreComponents: ReadonlySet<string> = new Set([ComponentController, ComponentEngine, ComponentNodeTools])
export const coreComponent = (module: string): string => (coreComponents.has(module) ? module : "")

/** The gate's own probe: its conditions are raised by a plan as it judges. */
export const gateProbe = "DG"
export const kindCoreBehind = "core-behind"

export const short = (commit: string): string => commit.slice(0, 7)
// Split with a limit of one, every text is exactly one piece (the whole when it has no line break,
// "" of ""), so no fallback is written for a piece that is never missing.
export const firstLine = (text: string): string => text.split("\n", 1).join()

// ---- the same facts as Schemas: as the store keeps them and a recording holds them (issue 8) ----

export const ResourceHealthRecord = Schema.Struct({
  resource: Schema.String,
  module: Schema.String,
  state: HealthState,
  reason: Schema.optionalKey(Schema.String),
})

export const StatementRecord = Schema.Struct({
  machine: Schema.String,
  at: Schema.Number,
  resources: Schema.Array(ResourceHealthRecord),
})
export type StatementRecord = typeof StatementRecord.Type

export const ConditionRecord = Schema.Struct({
  key: Schema.String,
  source: Schema.String,
  raised: Schema.Number,
  scope: Schema.String,
  id: Schema.String,
  machine: Schema.optionalKey(Schema.String),
  also: Names,
  kind: Schema.String,
  summary: Schema.String,
  severity: Schema.optionalKey(Schema.String),
})
export type ConditionRecord = typeof ConditionRecord.Type

export const WitnessRecord = Schema.Struct({
  component: Schema.String,
  outcome: Schema.String,
  from: Schema.String,
  to: Schema.String,
  why: Schema.String,
  at: Schema.Number,
})
export type WitnessRecord = typeof WitnessRecord.Type
/** A witness's verdict with the machine it judged on: as read from its message, kept and written. */
export const MachineVerdict = Schema.Struct({ machine: Schema.String, verdict: WitnessRecord })
export type MachineVerdict = typeof MachineVerdict.Type
const HolderRecord = Schema.Struct({
  taken: Schema.Number,
  ready: Schema.optionalKey(Schema.Boolean),
  why: Schema.optionalKey(Schema.String),
})
const ReportedRecord = Schema.Struct({
  at: Schema.NullOr(Schema.Number),
  /** The report is of the declaration the machine was last sent. */
  current: Schema.Boolean,
  outcome: Schema.String,
})
export type Reported = typeof ReportedRecord.Type
const ServedRecord = Schema.Struct({ runtime: Schema.Boolean, tools: Names })
export type Served = typeof ServedRecord.Type

/** What one judging reads, gathered once for every plan judged at a tick. Times are epoch ms. */
export const GateFactsRecord = Schema.Struct({
  now: Schema.Number,
  reports: Schema.Record(Schema.String, ReportedRecord),
  /** Why the reports could not be read (then `reports` is empty, and no machine's report is known). */
  reportsUnread: Schema.optionalKey(Schema.String),
  engines: Schema.Record(Schema.String, Schema.String),
  served: readableOf(Schema.Record(Schema.String, ServedRecord)),
  /** Absent when no condition keeper judges: the conditions are then no evidence. */
  open: Schema.optionalKey(readableOf(Schema.Array(ConditionRecord))),
  rolledBack: Schema.Record(Schema.String, Schema.Array(WitnessRecord)),
  holder: readableOf(Schema.NullOr(HolderRecord)),
  health: readableOf(Schema.Record(Schema.String, StatementRecord)),
})
export type GateFactsRecord = typeof GateFactsRecord.Type

export const ObservationRecord = Schema.Struct({
  key: Schema.String,
  scope: Schema.String,
  id: Schema.String,
  kind: Schema.String,
  machine: Schema.String,
  also: Names,
  severity: Schema.Literals(["warning", "urgent"]),
  source: Schema.String,
  summary: Schema.String,
  resolver: Schema.optionalKey(Schema.Literal("operator")),
})
export type ObservationRecord = typeof ObservationRecord.Type

/** What the gate knows of a module (`manifests`): the tools it serves, the builds a send of it delivers. */
export const ManifestRecord = Schema.Struct({ tools: Names, deliveredVersions: Names })
export type ManifestRecord = typeof ManifestRecord.Type

const PairRecord = Schema.Struct({ module: Schema.String, node: Schema.String })
export type Pair = typeof PairRecord.Type

/**
 * A gate, as the plans table keeps it (`plans.gate`) and a judging reads it. `lastPass` and `judgedAt`
 * come last, as a gate judged adds them.
 */
export const GateRecord = Schema.Struct({
  component: Schema.String,
  machines: Names,
  from: Schema.String,
  to: Schema.String,
  since: Schema.Number,
  passes: Schema.Number,
  /** What was wanting at the last judging. */
  last: Schema.String,
  failing: Names,
  verdict: Schema.Literals(["", "passed", "failed"]),
  why: Schema.String,
  took: Schema.String,
  /** Modules the send carried with this one, judged with it. */
  carried: Schema.Array(PairRecord),
  rollback: Schema.String,
  lastPass: Schema.optionalKey(Schema.Number),
  judgedAt: Schema.optionalKey(Schema.Number),
})
export type GateRecord = typeof GateRecord.Type

/** A gate's verdict, kept once per build (the `gate_verdicts` primary key says so, not any memory). */
export const VerdictRecord = Schema.Struct({
  build: Schema.String,
  module: Schema.String,
  commit: Schema.String,
  previous: Schema.String,
  plan: Schema.String,
  machines: Names,
  verdict: Schema.Literals(["passed", "failed"]),
  rollback: Schema.String,
  why: Schema.String,
  component: Schema.String,
  judgingFrom: Schema.Number,
})
export type VerdictRecord = typeof VerdictRecord.Type
/** What a gate decided of a build. */
export type Decided = VerdictRecord["verdict"]
