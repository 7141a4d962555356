// The gauges of what is kept now (issue 10: plans by state, conditions open by severity, failing
// standings by class), read from the store on a Schedule: three `group by` counts, decoded by the
// core's CensusRow and applied as census observations, so a state, severity or class no longer kept
// drops out of the scrape. A census the store cannot answer is one store error and the gauges stay
// as they were.
import { countsOf, metricUpdates } from "@mesh-core/core/controller/metrics"
import { Duration, Effect, Schedule } from "effect"
import { worker } from "../worker.ts"
import { census } from "../store/reach.ts"
import { Readiness } from "./readiness.ts"
import { Metrics } from "./service.ts"

/** One census: read, decoded, applied. */
export const takeCensus = Effect.fn("Metrics.census")(function* () {
  const metrics = yield* Metrics
  const result = yield* Effect.result(census())
  if (result._tag === "Failure") return yield* metrics.observe({ kind: "store-error", operation: "census" })
  const { plans, conditions, failing } = result.success
  yield* metrics.apply([
    ...metricUpdates({ kind: "plans-by-state", counts: countsOf(plans) }),
    ...metricUpdates({ kind: "conditions-open", counts: countsOf(conditions) }),
    ...metricUpdates({ kind: "standings-failing", counts: countsOf(failing) }),
  ])
})

/** A census every `every` ms, each pass beating `census` for `/healthz`, until interrupted. */
const censusLoop = Effect.fn("Metrics.censusLoop")(function* (every: number) {
  const readiness = yield* Readiness
  yield* takeCensus().pipe(
    Effect.andThen(readiness.beat("census")),
    Effect.repeat(Schedule.spaced(Duration.millis(every))),
  )
})

/** The gauges of what is kept now, from the store every 15 s (docs/metrics.md): a worker a candidate runs too. */
export const CensusLive = worker("census", censusLoop(15_000))
