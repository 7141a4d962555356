// The whole controller in one screen: each worker a layer that forks its loop into the layer's
// scope, all merged, given the services of operations (store, bus), the connections under them, the
// settings read once at start and the recorder. `serve` only launches it (Layer.launch). Nothing
// outside stops it: each worker waits out the store or the bus under untilItAnswers (retry.ts).
//
// The controller lease (issue 13) wraps the workers that act: a worker layer may require
// `ControllerLease` (shells/src/lease/service.ts) and run its loop only while it holds it, without
// changing this wiring beyond providing the lease's layer below.
import { Effect, Layer } from "effect"
import { MeshBus } from "../bus/mesh-bus.ts"
import { Bus } from "../bus/nats.ts"
import { busNames } from "../bus/subjects.ts"
import { ControllerSettings } from "../config.ts"
import { deliveryNames } from "../delivery/wire.ts"
import { gateRunner } from "../gate/runner.ts"
import { VerbResponderLive } from "../gate/verbs.ts"
import { censusLoop } from "../metrics/census.ts"
import { metricsHttpLayer } from "../metrics/http.ts"
import { LeaseView, readinessLayer } from "../metrics/probes.ts"
import { Metrics } from "../metrics/service.ts"
import { DeliveryStore } from "../store/delivery.ts"
import { GateStore } from "../store/gate.ts"
import { Store, StoreTransaction } from "../store/postgres.ts"
import { StandingsStore } from "../store/standings.ts"
import { standingsFollower } from "./follow.ts"
import { healthFollower } from "./health.ts"
import type { RecordingUnusable } from "../files/recording.ts"
import type { Journal } from "../journal.ts"
import { ControllerRecorder } from "./recorder.ts"
import { reportsFollower } from "./reports.ts"

/** A worker: its loop forked into the layer's scope, so it runs while the controller runs. */
const worker = <E, R>(name: string, loop: Effect.Effect<unknown, E, R>) =>
  Layer.effectDiscard(Effect.forkScoped(loop.pipe(Effect.annotateLogs({ worker: name }))))

const settingsWith = <A, E, R>(f: (s: ControllerSettings["Service"]) => Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    return yield* f(yield* ControllerSettings)
  })

export const StandingsFollowerLive = (batch: number) =>
  worker("standings", settingsWith((s) => standingsFollower({ names: busNames(s.busPrefix), batch })))
export const ReportsFollowerLive = worker("reports", settingsWith((s) => reportsFollower(deliveryNames(s.busPrefix))))
export const HealthFollowerLive = worker("health", settingsWith((s) => healthFollower(deliveryNames(s.busPrefix))))
/** The gauges of what is kept now, from the store every 15 s (docs/metrics.md). */
export const CensusLive = worker("census", censusLoop(15_000))
export const GateRunnerLive = worker("gate", settingsWith((s) => gateRunner(deliveryNames(s.busPrefix), s.gate, s.gate.every)))

/** The services of operations, over the connections. */
export const ServicesLive = Layer.mergeAll(GateStore.layer, DeliveryStore.layer, StandingsStore.layer, StoreTransaction.layer, MeshBus.layer).pipe(
  Layer.provideMerge(Layer.mergeAll(Store.layer, Bus.layer)),
)

/**
 * The controller: every worker, with its services. `recorder` is ControllerRecorder.layerNone, or
 * layerFile for `serve --record`; the settings and the Journal are the caller's.
 */
export const controller = (options: {
  readonly batch: number
  readonly recorder: Layer.Layer<ControllerRecorder, RecordingUnusable, ControllerSettings | Journal>
  /** Where /metrics, /healthz and /readyz listen (issue 10). */
  readonly metricsAddr: string
}) =>
  Layer.mergeAll(
    StandingsFollowerLive(options.batch), ReportsFollowerLive, HealthFollowerLive, GateRunnerLive, CensusLive,
    VerbResponderLive, // operators' verbs (issue 10): answers a candidate too, refusing and naming the holder
    // The watch port is a sibling of the workers, never below the controller lease (whose layer waits
    // in its build while another controller holds it), so /healthz and /readyz answer a candidate too.
    metricsHttpLayer(options.metricsAddr),
  ).pipe(
    Layer.provide(options.recorder),
    Layer.provide(readinessLayer()),
    // One registry for every worker and the port.
    Layer.provide(Layer.mergeAll(Metrics.layer, LeaseView.layer)),
    Layer.provide(ServicesLive),
  )
