// The controller's metrics registry (issue 10): prom-client's, holding the metrics the core's catalogue
// names (core/src/controller/metrics.ts) and applying the updates the core decides. Which metric
// moves for what is the core's rule; this only applies and exposes. `layer` also collects Node's
// process metrics (process_*, nodejs_*), as every prom-client exporter does; `layerTest` is a registry
// of the catalogue alone, so a test's scrape holds exactly what it applied.
import {
  type MetricSpec,
  type MetricUpdate,
  metricList,
  metricUpdates,
  type Observed,
  observedOfFailure,
  updatesOfExchanges,
} from "@mesh-core/core/controller/metrics"
import type { Asked } from "@mesh-core/core/program"
import { Context, Data, Effect, Layer } from "effect"
import { ProgramWatch } from "../program/drive.ts"
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client"
import { errorText } from "@mesh-core/core/text/error-text"

export class MetricsUnreadable extends Data.TaggedError("MetricsUnreadable")<{
  readonly reason: string
  readonly cause?: unknown
}> {
  override get message(): string {
    return `the metrics could not be gathered: ${this.reason}`
  }
}

export interface Exposition {
  readonly contentType: string
  readonly body: string
}

export class Metrics extends Context.Service<
  Metrics,
  {
    /** Applies updates the core decided, in order. An update naming no metric of the catalogue is skipped. */
    readonly apply: (updates: ReadonlyArray<MetricUpdate>) => Effect.Effect<void>
    /** Applies what one observation moves (the core's `metricUpdates`). */
    readonly observe: (o: Observed) => Effect.Effect<void>
    /** A program's question answered: what the exchange moves (the core's `observedOfExchange`). For the driver, after each answer. */
    readonly answered: <Q extends Asked>(question: Q, answer: unknown) => Effect.Effect<void>
    /** A program's question whose handler failed: a store or bus error by the error's tag. For the driver. */
    readonly failed: (operation: string, error: unknown) => Effect.Effect<void>
    /** The registry in Prometheus' text exposition format, as `/metrics` serves it. */
    readonly exposition: Effect.Effect<Exposition, MetricsUnreadable>
  }
>()("mesh-core/Metrics") {
  static readonly layer = Layer.effect(
    Metrics,
    Effect.sync(() => make(true)),
  )
  static readonly layerTest = Layer.effect(
    Metrics,
    Effect.sync(() => make(false)),
  )
}

/** The drives' watch (program/drive.ts), moving the registry: what every answer and failed question counts. */
export const ProgramWatchLive = Layer.effect(
  ProgramWatch,
  Effect.gen(function* () {
    const m = yield* Metrics
    return ProgramWatch.of({ answered: m.answered, failed: m.failed })
  }),
)

type Instrument =
  | { readonly type: "counter"; readonly m: Counter<string> }
  | { readonly type: "gauge"; readonly m: Gauge<string> }
  | { readonly type: "histogram"; readonly m: Histogram<string> }

const instrumentOf = (registry: Registry, s: MetricSpec): Instrument => {
  const common = { name: s.name, help: s.help, labelNames: [...s.labels], registers: [registry] }
  switch (s.type) {
    case "counter":
      return { type: "counter", m: new Counter(common) }
    case "gauge":
      return { type: "gauge", m: new Gauge(common) }
    case "histogram":
      return { type: "histogram", m: new Histogram({ ...common, buckets: [...(s.buckets ?? [])] }) }
  }
}

const applyOne = (i: Instrument, u: MetricUpdate): void => {
  if (u.op === "reset") i.m.reset()
  else if (i.type === "counter" && u.op === "inc") i.m.inc({ ...u.labels }, u.value)
  else if (i.type === "gauge" && u.op === "set") i.m.set({ ...u.labels }, u.value)
  else if (i.type === "histogram" && u.op === "observe") i.m.observe({ ...u.labels }, u.value)
}

const tagOf = (e: unknown): string =>
  typeof e === "object" && e !== null && "_tag" in e && typeof e._tag === "string" ? e._tag : ""

const make = (processMetrics: boolean) => {
  const registry = new Registry()
  if (processMetrics) collectDefaultMetrics({ register: registry })
  const instruments = new Map(metricList.map((s) => [s.name, instrumentOf(registry, s)]))
  const apply = (updates: ReadonlyArray<MetricUpdate>) =>
    Effect.sync(() => {
      for (const u of updates) {
        const i = instruments.get(u.metric)
        if (i !== undefined) applyOne(i, u)
      }
    })
  return Metrics.of({
    apply,
    observe: (o) => apply(metricUpdates(o)),
    answered: (question, answer) => apply(updatesOfExchanges([{ question, answer }])),
    failed: (operation, error) => apply(observedOfFailure(operation, tagOf(error)).flatMap(metricUpdates)),
    exposition: Effect.tryPromise({
      try: async () => ({ contentType: registry.contentType, body: await registry.metrics() }),
      catch: (e) => new MetricsUnreadable({ reason: errorText(e), cause: e }),
    }).pipe(Effect.withSpan("Metrics.exposition")),
  })
}
