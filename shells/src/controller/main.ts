// The whole controller in one screen: each worker a layer that forks its loop into the layer's
// scope, all merged, given the services of operations (store, bus), the connections under them, the
// settings read once at start and the recorder. `serve` runs it until its lease is lost. Nothing
// outside stops it: each worker waits out the store or the bus under untilItAnswers (retry.ts).
//
// The controller lease (issue 13) lies beneath the workers that act: each act carries its epoch and
// the store's fence first (actUnderTheLease, shells/src/lease/serve.ts).
import { Effect, Layer } from "effect"
import { MeshBus } from "../bus/mesh-bus.ts"
import { Bus } from "../bus/nats.ts"
import { busNames } from "../bus/subjects.ts"
import { ControllerSettings } from "../config.ts"
import { deliveryNames } from "../delivery/wire.ts"
import { gateRunner } from "../gate/runner.ts"
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
import { controllerLeaseLayer } from "../lease/serve.ts"
import { SchemaReachLive } from "../lease/schema-reach.ts"

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
export const GateRunnerLive = worker("gate", settingsWith((s) => gateRunner(deliveryNames(s.busPrefix), s.gate, s.gate.every)))

/** The services of operations, over the connections. */
export const ServicesLive = Layer.mergeAll(GateStore.layer, DeliveryStore.layer, StandingsStore.layer, StoreTransaction.layer, MeshBus.layer).pipe(
  Layer.provideMerge(Layer.mergeAll(Store.layer, Bus.layer)),
)

/**
 * The controller lease of this mesh's prefix (issue 13): provided beneath the workers, so it is built
 * (waited for as a candidate) before any of them starts, and closed (given back) after they stop.
 */
export const LeaseLive = Layer.unwrap(Effect.gen(function*() {
  return controllerLeaseLayer((yield* ControllerSettings).busPrefix)
}))

/**
 * The controller: every worker, with its services. `recorder` is ControllerRecorder.layerNone, or
 * layerFile for `serve --record`; the settings and the Journal are the caller's.
 */
export const controller = (options: { readonly batch: number; readonly recorder: Layer.Layer<ControllerRecorder, RecordingUnusable, ControllerSettings | Journal> }) =>
  Layer.mergeAll(StandingsFollowerLive(options.batch), ReportsFollowerLive, HealthFollowerLive, GateRunnerLive).pipe(
    Layer.provide(options.recorder),
    // Start: store and bus, then the schema reach said, then the lease taken, then the workers.
    // Stop: the workers, then the lease given back, then the store closed.
    Layer.provideMerge(LeaseLive),
    Layer.provideMerge(SchemaReachLive),
    Layer.provideMerge(ServicesLive),
  )
