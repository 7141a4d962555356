// What every worker of `serve` shares (controller/main.ts), given once beneath them all: the store and
// the bus with the services of operations over them, serve's start in the seed's order, and one of
// each thing the workers meet in: the gate's turn and wakes, the act guard, this controller's name,
// the lease view, the metrics registry, the recorder and /readyz. Built before any worker, closed
// after the last has stopped: the store closes last.
import { Effect, Layer } from "effect"
import { MeshBus } from "../bus/mesh-bus.ts"
import { Bus } from "../bus/nats.ts"
import type { ControllerSettings } from "../config.ts"
import { establishAtStart } from "../delivery/identity.ts"
import type { RecordingUnusable } from "../files/recording.ts"
import { GateWakes } from "../followers/wakes.ts"
import { ActGuard } from "../gate/guard.ts"
import { GateTurn } from "../gate/turn.ts"
import type { Journal } from "../journal.ts"
import { FencedTransaction } from "../lease/fence.ts"
import { requireFencing } from "../lease/fencing-role.ts"
import { ControllerName } from "../lease/name.ts"
import { recordSchemaReach, runningBuild } from "../lease/schema-reach.ts"
import { StoreUnderTheLease } from "../lease/store-bounds.ts"
import { LeaseView, ReadinessLive } from "../metrics/probes.ts"
import { Metrics, ProgramWatchLive } from "../metrics/service.ts"
import { ControllerNotes } from "../program/notes.ts"
import type { ControllerRecorder } from "../program/recorder.ts"
import { DeliveryStore } from "../store/delivery.ts"
import { GateStore } from "../store/gate.ts"
import { StoreTransaction } from "../store/postgres.ts"
import { StandingsStore } from "../store/standings.ts"

/** The store and the bus, and the services of operations over them: opened first, closed last. */
const Connections = Layer.mergeAll(
  GateStore.layer,
  DeliveryStore.layer,
  StandingsStore.layer,
  FencedTransaction.layer.pipe(Layer.provideMerge(StoreTransaction.layer)),
  MeshBus.layer,
).pipe(Layer.provideMerge(Layer.mergeAll(StoreUnderTheLease, Bus.layer)))

/**
 * serve's start in the seed's order (seeds 002 and 004), before anything else is built: the schema
 * reach said, then the signing identity established and said (one that cannot sign does not start).
 */
const Started = Layer.effectDiscard(
  Effect.flatMap(runningBuild, recordSchemaReach).pipe(
    Effect.andThen(establishAtStart),
    // Before the lease: a controller that could not fence a paused holder does not act (issue 40).
    Effect.andThen(requireFencing),
  ),
)

/** One gate turn, wake queue, guard, name, lease view, registry, recorder and /readyz for every worker. */
export const Shared = ({ recorder }: ServeOptions) =>
  Layer.mergeAll(
    GateTurn.layer,
    GateWakes.layer,
    ActGuard.layer,
    ControllerName.layer,
    ReadinessLive,
    ProgramWatchLive,
    recorder,
  ).pipe(
    // Beneath the recorder and /readyz, which say what ControllerNotes keeps (a recording that stopped).
    Layer.provideMerge(Layer.mergeAll(Metrics.layer, LeaseView.layer, ControllerNotes.layer)),
    Layer.provideMerge(Started),
    Layer.provideMerge(Connections),
  )

export interface ServeOptions {
  /** ControllerRecorder.layerNone, or layerFile for `serve --record`. */
  readonly recorder: Layer.Layer<ControllerRecorder, RecordingUnusable, ControllerSettings | Journal>
}
