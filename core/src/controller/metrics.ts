// Which metric moves for which decision (issue 10: the controller watched the way controllers are
// watched). What the controller decided or observed is a value (`Observed`); this maps it to metric
// updates, and the shell's registry only applies them. So the rule "a failed verdict moves
// mesh_gate_verdicts_total{verdict="failed"}" lives here, under a property test, and a replayed day,
// whose programs make the same exchanges, moves the metrics the same way. Names follow Prometheus'
// conventions: a `mesh_` prefix, `_total` on counters, base units (`_seconds`) in the name.
import * as Schema from "effect/Schema"
import type { Found } from "../outcome.ts"
import { type Exchanged, observedOfExchange } from "./metered.ts"

export { observedOfExchange } from "./metered.ts"

export type MetricType = "counter" | "gauge" | "histogram"

export interface MetricSpec {
  readonly name: string
  readonly type: MetricType
  readonly help: string
  readonly labels: ReadonlyArray<string>
  /** Upper bounds of a histogram's buckets, in the metric's unit. */
  readonly buckets?: ReadonlyArray<number>
}

const spec = <const L extends ReadonlyArray<string>>(
  name: string,
  type: MetricType,
  labels: L,
  help: string,
  buckets?: ReadonlyArray<number>,
): MetricSpec & { readonly labels: L } => ({ name, type, labels, help, ...(buckets === undefined ? {} : { buckets }) })

// biome-ignore format: a table, one metric a line
/** Every metric the controller exports: docs/metrics.md says each in words. */
export const metrics = {
  standingWords: spec("mesh_standing_words_total", "counter", ["outcome"], "Providers' failing/recovered words read, by what became of each: kept, older-than-kept or set-aside."),
  machineMessages: spec("mesh_machine_messages_total", "counter", ["kind", "outcome"], "Machines' reports, health statements and witnesses' verdicts read, by what became of each: kept, older-than-kept or set-aside."),
  standingsFailing: spec("mesh_standings_failing", "gauge", ["class"], "Failing standings kept, by the class of their last error."),
  conditionsRaised: spec("mesh_conditions_raised_total", "counter", ["severity"], "Conditions the controller raised, by severity."),
  conditionClears: spec("mesh_condition_clears_total", "counter", ["by"], "Clears the controller asked for, by the probe that asked (DG the gate, DH machine health); a clear of a key not open counts too."),
  conditionsOpen: spec("mesh_conditions_open", "gauge", ["severity"], "Open conditions, by severity."),
  judgings: spec("mesh_gate_judgings_total", "counter", ["outcome"], "Judgings of a plan's first machines, by outcome: healthy, not-yet, broken or could-not-ask."),
  verdicts: spec("mesh_gate_verdicts_total", "counter", ["verdict"], "Gate verdicts this controller kept and acted on, by verdict."),
  rollbacks: spec("mesh_gate_rollbacks_total", "counter", ["outcome"], "Rollbacks decided after a failed gate, by outcome: rolled-back or not-rolled-back."),
  sends: spec("mesh_sends_total", "counter", ["why", "outcome"], "Sends the gate asked for (why: tier, rest, rollback or user-list), by outcome: sent (every machine asked told) or failed."),
  events: spec("mesh_events_published_total", "counter", ["event", "outcome"], "Events published on the bus, by event and outcome: published or failed."),
  operatorActs: spec("mesh_operator_acts_total", "counter", ["act", "outcome"], "Operators' acts on plans (pause, resume, promote, abort, retry), by outcome: done or refused."),
  storeErrors: spec("mesh_store_errors_total", "counter", ["operation"], "Store operations that failed, by operation."),
  busErrors: spec("mesh_bus_errors_total", "counter", ["operation"], "Bus operations that failed, by operation."),
  loopDuration: spec("mesh_loop_duration_seconds", "histogram", ["loop"], "How long one pass of a controller loop took, in seconds.", [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]),
  loopLastRun: spec("mesh_loop_last_run_timestamp_seconds", "gauge", ["loop"], "When a controller loop last finished a pass, in seconds since the epoch."),
  leaseHeld: spec("mesh_lease_held", "gauge", [], "1 while this controller holds the controller lease, 0 otherwise."),
  leaseEpoch: spec("mesh_lease_epoch", "gauge", [], "The epoch of the controller lease this controller last held."),
  plans: spec("mesh_plans", "gauge", ["state"], "Release plans kept, by state."),
} as const

export const metricList: ReadonlyArray<MetricSpec> = Object.values(metrics)

/** One change to one series: add to a counter, set a gauge, observe into a histogram, or drop every series of a gauge. */
export type MetricUpdate =
  | {
      readonly op: "inc" | "set" | "observe"
      readonly metric: string
      readonly labels: Readonly<Record<string, string>>
      readonly value: number
    }
  | { readonly op: "reset"; readonly metric: string }

export { JudgingOutcome, type Observed } from "../observed.ts"
import type { Observed } from "../observed.ts"

type Labels = Record<string, string>
const update =
  (op: "inc" | "set" | "observe") =>
  (m: MetricSpec, labels: Labels, value = 1): MetricUpdate => ({ op, metric: m.name, labels, value })
const inc = update("inc")
const set = update("set")
const census = (
  m: MetricSpec,
  label: string,
  counts: Readonly<Record<string, number>>,
): ReadonlyArray<MetricUpdate> => [
  { op: "reset", metric: m.name },
  ...Object.entries(counts).map(([value, n]) => set(m, { [label]: value }, n)),
]

type ObservedOf<K extends Observed["kind"]> = Extract<Observed, { readonly kind: K }>

/** The metric updates of each kind of observation. */
const updatesOf: { readonly [K in Observed["kind"]]: (o: ObservedOf<K>) => ReadonlyArray<MetricUpdate> } = {
  // A count that is not a whole positive number moves nothing: a counter never goes down.
  words: (o) =>
    Number.isInteger(o.count) && o.count > 0 ? [inc(metrics.standingWords, { outcome: o.outcome }, o.count)] : [],
  "machine-message": (o) => [inc(metrics.machineMessages, { kind: o.what, outcome: o.outcome })],
  "condition-raised": (o) => [inc(metrics.conditionsRaised, { severity: o.severity })],
  "condition-cleared": (o) => [inc(metrics.conditionClears, { by: o.by })],
  judged: (o) => [inc(metrics.judgings, { outcome: o.outcome })],
  verdict: (o) => [inc(metrics.verdicts, { verdict: o.verdict })],
  rollback: (o) => [inc(metrics.rollbacks, { outcome: o.outcome })],
  send: (o) => [inc(metrics.sends, { why: o.why, outcome: o.ok ? "sent" : "failed" })],
  published: (o) => [inc(metrics.events, { event: o.event, outcome: o.ok ? "published" : "failed" })],
  "operator-act": (o) => [inc(metrics.operatorActs, { act: o.act, outcome: o.ok ? "done" : "refused" })],
  "store-error": (o) => [inc(metrics.storeErrors, { operation: o.operation })],
  "bus-error": (o) => [inc(metrics.busErrors, { operation: o.operation })],
  loop: (o) => [
    update("observe")(metrics.loopDuration, { loop: o.loop }, Math.max(0, o.seconds)),
    set(metrics.loopLastRun, { loop: o.loop }, o.at / 1000),
  ],
  lease: (o) => [
    set(metrics.leaseHeld, {}, o.held ? 1 : 0),
    ...(o.epoch === undefined ? [] : [set(metrics.leaseEpoch, {}, o.epoch)]),
  ],
  "plans-by-state": (o) => census(metrics.plans, "state", o.counts),
  "conditions-open": (o) => census(metrics.conditionsOpen, "severity", o.counts),
  "standings-failing": (o) => census(metrics.standingsFailing, "class", o.counts),
}

/** The metric updates one observation makes. */
export const metricUpdates = <K extends Observed["kind"]>(o: ObservedOf<K>): ReadonlyArray<MetricUpdate> =>
  (updatesOf[o.kind] as (o: ObservedOf<K>) => ReadonlyArray<MetricUpdate>)(o)

/** Every update a program's exchanges make, in order: what the driver applies after it ends. */
export const updatesOfExchanges = (exchanges: ReadonlyArray<Exchanged>): ReadonlyArray<MetricUpdate> =>
  exchanges.flatMap((e) => observedOfExchange(e).flatMap(metricUpdates))

/**
 * A question a driver could not get answered (its handler failed): a store error or a bus error by the
 * error's tag, counted under the question it was for. An error of no known kind moves nothing.
 */
export const observedOfFailure = (operation: string, tag: string): ReadonlyArray<Observed> =>
  tag === "StoreUnreadable"
    ? [{ kind: "store-error", operation }]
    : tag === "BusUnreachable"
      ? [{ kind: "bus-error", operation }]
      : []

/** A count read from the store for a census (`select key, count(*)::int … group by key`). */
export const CensusRow = Schema.Struct({ key: Schema.String, count: Schema.Number })
export type CensusRow = typeof CensusRow.Type

/** Rows of a census as the counts an observation carries. */
export const countsOf = (rows: ReadonlyArray<CensusRow>): Readonly<Record<string, number>> => {
  const out: Record<string, number> = {}
  for (const r of rows) out[r.key] = (out[r.key] ?? 0) + r.count
  return out
}

const ListenAddress = /^(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9.-]+)):([0-9]{1,5})$/

/** `--metrics-addr`: `host:port` or `[v6]:port`; port 0 asks the system for a free one (tests). */
export const parseListenAddress = (text: string): Found<{ readonly host: string; readonly port: number }> => {
  const m = ListenAddress.exec(text.trim())
  if (m === null)
    return { ok: false, why: `${JSON.stringify(text)} is not host:port (as 127.0.0.1:9464 or [::1]:9464)` }
  const port = Number(m[3])
  if (port > 65_535) return { ok: false, why: `${JSON.stringify(text)}: port ${port} is above 65535` }
  return { ok: true, host: m[1] ?? m[2] ?? "", port }
}

export const defaultMetricsAddress = "127.0.0.1:9464"

/** The address as the environment (`MESH_METRICS_ADDR`) or `--metrics-addr` spells it. */
export const ListenAddressText = Schema.String.check(
  Schema.makeFilter((s: string) => {
    const r = parseListenAddress(s)
    return r.ok ? undefined : r.why
  }),
)
