// What serve's live page shows (issue 29), read as `status` reads it — the standings, the conditions,
// the plans, each on its own (controller/status.ts) — and the lease as a reader sees it over serve's
// own bus connection. What the page says of them is the core's (core/src/status/live.ts).
import { leaseState, statusClockAllowanceMs } from "@mesh-core/core/lease/view"
import { liveNotAnswering, liveReadWithinMs, liveView } from "@mesh-core/core/status/live"
import { Clock, Duration, Effect, Layer } from "effect"
import type { Bus } from "../bus/nats.ts"
import { ControllerSettings } from "../config.ts"
import { leaseBucketName } from "../lease/bucket.ts"
import { leaseSeen } from "../lease/read.ts"
import { metricsHttpLayer } from "../metrics/http.ts"
import { LivePage } from "../metrics/live.ts"
import type { DeliveryStore } from "../store/delivery.ts"
import type { GateStore } from "../store/gate.ts"
import type { StandingsStore } from "../store/standings.ts"
import { readWholeStatus } from "./status.ts"

const LivePageLive = Layer.effect(
  LivePage,
  Effect.gen(function* () {
    const settings = yield* ControllerSettings
    const services = yield* Effect.context<Bus | DeliveryStore | GateStore | StandingsStore>()
    const bucket = leaseBucketName(settings.busPrefix)
    const view = Effect.gen(function* () {
      const unanswered = { ok: false as const, why: liveNotAnswering }
      const status = yield* readWholeStatus(settings.staleAfterMs).pipe(
        Effect.timeoutOrElse({
          duration: Duration.millis(liveReadWithinMs),
          orElse: () =>
            Effect.succeed({ standings: unanswered, conditions: unanswered, plans: unanswered, held: unanswered }),
        }),
      )
      const seen = yield* leaseSeen(bucket)
      const lease = leaseState(seen, yield* Clock.currentTimeMillis, statusClockAllowanceMs)
      return liveView({ ...status, lease, gate: settings.gate })
    }).pipe(Effect.provideContext(services), Effect.withSpan("LivePage.view"))
    return LivePage.of({ view })
  }),
)

/**
 * The watch port at `address` (issue 10: /metrics, /healthz, /readyz) with the live page at / (issue
 * 29): a worker a candidate runs too, so /readyz answers it with 503 until it holds the lease.
 */
export const WatchPortLive = (address: string) => metricsHttpLayer(address).pipe(Layer.provide(LivePageLive))
