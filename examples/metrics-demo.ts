// The watch port, shown (issue 10): two releases run through the gate program as serve runs it (one
// build refused on its first machine and put back, one that settles and passes), each program's
// exchanges turned into metric updates by the core's rule, applied to a registry, and the port
// scraped: `/metrics` (the mesh_ series), `/healthz`, and `/readyz` of the holder and of a controller
// that does not hold the lease. No servers needed: `npx node examples/metrics-demo.ts`.
import { gateTick } from "@mesh-core/core/gate/tick/tick"
import { type MetricUpdate, metricUpdates, updatesOfExchanges } from "@mesh-core/core/controller/metrics"
import { runPure } from "@mesh-core/core/program"
import type { Question } from "@mesh-core/core/controller/catalogue"
import type { PlanRecord } from "@mesh-core/core/gate/plan/records"
import type { GateFactsRecord } from "@mesh-core/core/gate/judging/facts"
import { Effect, Layer } from "effect"
import { metricsHttpLayer, MetricsServer } from "../shells/src/metrics/http.ts"
import { type LeaseSeen, Readiness } from "../shells/src/metrics/readiness.ts"
import { Metrics } from "../shells/src/metrics/service.ts"

export const settings = { settle: 4_000, bound: 10_000, passes: 2, every: 1_000 }

export const planOf = (module: string, n: number): PlanRecord => ({
  id: `${module}-${module}-${n}`,
  module,
  build: `${module}-${n}`,
  commit: "5e1f0c2a9b",
  previous: "a71c3d09e4",
  previousBuild: `${module}-${n - 1}`,
  machines: ["hq-3"],
  rest: ["hq-4", "hq-5"],
  sentAt: 0,
  state: "open",
  note: "",
})

/**
 * A world that answers the gate program: the plan open, hq-3 reporting `outcome` at `now`, every act
 * done; the verdict kept as this controller's unless `mine` is false (another controller kept it).
 */
export const world =
  (plan: PlanRecord, now: number, outcome: string, mine = true) =>
  (q: Question): unknown => {
    switch (q.q) {
      case "plans-in-flight":
        return { ok: true, value: [plan] }
      case "gate-facts":
        return {
          now,
          reports: { "hq-3": { at: 1, current: true, outcome } },
          engines: {},
          served: { ok: true, value: {} },
          open: { ok: true, value: [] },
          rolledBack: {},
          holder: { ok: true, value: null },
          health: { ok: true, value: {} },
        } satisfies GateFactsRecord
      case "builds":
        return {
          ok: true,
          value: [
            { build: plan.previousBuild, module: plan.module, commit: plan.previous },
            { build: plan.build, module: plan.module, commit: plan.commit },
          ],
        }
      case "among-kept":
        return { ok: true, value: true }
      case "record-verdict":
        return { ok: true, mine }
      case "send-plan":
        return { told: q.machines }
      case "now":
        return now
      case "verdict-of":
      case "plan-of":
        return { ok: true, value: null }
      case "engine-builds":
      case "witness-verdicts":
      case "manifests":
        return { ok: true, value: {} }
      case "latest-verdicts":
      case "probe-conditions":
        return { ok: true, value: [] }
      case "holder-list":
        return { ok: true, value: { holder: null, behind: false } }
      default:
        return { ok: true }
    }
  }

/** The updates of a build refused on hq-3: judged once, failed, put back. */
export const refusedRelease = (): ReadonlyArray<MetricUpdate> =>
  updatesOfExchanges(runPure(gateTick(settings), world(planOf("letta", 204), 2_000, "refused")).exchanges)

/** The updates of a build applied on hq-3, judged every 1.5 s until it passes and the rest are sent. */
const passedRelease = (): ReadonlyArray<MetricUpdate> => {
  const updates: Array<MetricUpdate> = []
  let plan = planOf("hermes", 12)
  for (let now = 1_500; plan.gate?.verdict !== "passed" && now < 20_000; now += 1_500) {
    const ran = runPure(gateTick(settings), world(plan, now, "applied"))
    updates.push(
      ...updatesOfExchanges(ran.exchanges),
      ...metricUpdates({ kind: "loop", loop: "gate", seconds: 0.004, at: now }),
    )
    const saved = ran.exchanges
      .map((e) => e.question)
      .find((q): q is Extract<Question, { q: "save-plan" }> => q.q === "save-plan")
    if (saved !== undefined) plan = saved.plan
  }
  return updates
}

const get = (url: string) =>
  Effect.tryPromise(async () => {
    const r = await fetch(url)
    return `${r.status} ${r.headers.get("content-type")}\n${await r.text()}`
  })

/** Starts the port over the test registry and the given lease, applies `updates`, and scrapes it. */
export const scrapeAfter = (updates: ReadonlyArray<MetricUpdate>, lease: LeaseSeen) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const metrics = yield* Metrics
      const { url } = yield* MetricsServer
      yield* metrics.apply(updates)
      return {
        url,
        metrics: yield* get(`${url}/metrics`),
        healthz: yield* get(`${url}/healthz`),
        readyz: yield* get(`${url}/readyz`),
      }
    }).pipe(
      Effect.provide(
        metricsHttpLayer("127.0.0.1:0").pipe(
          Layer.provideMerge(Layer.mergeAll(Metrics.layerTest, Readiness.layerTest({ lease, store: true, bus: true }))),
        ),
      ),
    ),
  )

export const demoUpdates = (): ReadonlyArray<MetricUpdate> => [
  ...refusedRelease(),
  ...passedRelease(),
  ...metricUpdates({ kind: "lease", held: true, epoch: 3 }),
  ...metricUpdates({ kind: "plans-by-state", counts: { passed: 1, failed: 1 } }),
]

if (import.meta.main) {
  const holder = await scrapeAfter(demoUpdates(), { held: true, epoch: 3 })
  const other = await scrapeAfter([], { held: false, holder: "hq-1/4242/ab12" })
  const meshOnly = holder.metrics.split("\n").filter((l) => l.startsWith("mesh_") && !/ 0$/.test(l))
  console.log(`GET ${holder.url}/metrics (the mesh_ series that moved)\n${meshOnly.join("\n")}\n`)
  console.log(`GET ${holder.url}/healthz\n${holder.healthz}`)
  console.log(`GET ${holder.url}/readyz (the lease holder)\n${holder.readyz}`)
  console.log(`GET ${other.url}/readyz (a controller that does not hold the lease)\n${other.readyz}`)
}
