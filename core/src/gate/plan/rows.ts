// The gate's tables' rows as the store answers them, read by Schema (no cast on what comes from
// outside: issue 8), and turned into the records the programs ask for. Times are selected as epoch
// milliseconds (float8), bigints as float8, JSON columns come parsed and are read here like any other.
import * as Schema from "effect/Schema"
import { Names } from "../../outcome.ts"
import type { BuildRecord } from "./records.ts"
import type { KeptHealth } from "../judging/health.ts"
import { type ConditionRecord, type MachineVerdict, ResourceHealthRecord } from "../judging/facts.ts"

const Text = Schema.NullOr(Schema.String)

export const ConditionRow = Schema.Struct({
  key: Schema.String,
  source: Schema.String,
  raised_ms: Schema.Number,
  scope: Schema.String,
  subject_id: Schema.String,
  machine: Text,
  also: Names,
  kind: Schema.String,
  summary: Schema.String,
  severity: Schema.String,
  resolver: Text,
})

export const BuildRow = Schema.Struct({
  build: Schema.String,
  module: Schema.String,
  commit: Schema.String,
  source: Text,
  manifest: Text,
  artifacts: Text,
})

export const StatementRow = Schema.Struct({
  machine: Schema.String,
  stated_ms: Schema.Number,
  resources: Schema.Array(ResourceHealthRecord),
  streaks: Schema.Record(Schema.String, Schema.Number),
})

/** A witness's verdict kept (`witness_verdicts`: the newest per machine and component). */
export const WitnessRow = Schema.Struct({
  machine: Schema.String,
  component: Schema.String,
  outcome: Schema.String,
  from_build: Schema.String,
  to_build: Schema.String,
  why: Schema.String,
  decided_ms: Schema.Number,
})

export const witnessOfRow = (r: typeof WitnessRow.Type): MachineVerdict => ({
  machine: r.machine,
  verdict: {
    component: r.component,
    outcome: r.outcome,
    from: r.from_build,
    to: r.to_build,
    why: r.why,
    at: r.decided_ms,
  },
})

export const conditionOfRow = (r: typeof ConditionRow.Type): ConditionRecord & { readonly resolver?: string } => ({
  key: r.key,
  source: r.source,
  raised: r.raised_ms,
  scope: r.scope,
  id: r.subject_id,
  also: r.also,
  kind: r.kind,
  summary: r.summary,
  severity: r.severity,
  ...(r.machine === null ? {} : { machine: r.machine }),
  ...(r.resolver === null ? {} : { resolver: r.resolver }),
})

export const buildOfRow = (r: typeof BuildRow.Type): BuildRecord => ({
  build: r.build,
  module: r.module,
  commit: r.commit,
  ...(r.source === null ? {} : { source: r.source }),
  // The artifacts are known only with the manifest that made them (release refuses one without the other).
  ...(r.manifest === null || r.artifacts === null ? {} : { manifest: r.manifest, artifacts: r.artifacts }),
})

export const statementOfRow = (r: typeof StatementRow.Type): KeptHealth => ({
  statement: { machine: r.machine, at: r.stated_ms, resources: r.resources },
  streaks: r.streaks,
})
