// The whole controller in one screen: each worker a layer that forks its loop into the layer's scope
// and gives itself what only it uses (the gate's answers, the live page); what they share given once
// beneath them. Start and stop follow the layers' dependencies: a layer is built after what it
// requires and closed before it. What acts requires Holding (lease/holding.ts), which only a term
// under the controller lease gives (terms.ts, issue 13): none starts before the lease is held, and the
// lease is given back once the last has stopped. Nothing outside stops a worker: each waits out the
// store or the bus under untilItAnswers (retry.ts).
import { Effect, Layer } from "effect"
import { MeshBus } from "../bus/mesh-bus.ts"
import { Bus } from "../bus/nats.ts"
import { establishAtStart } from "../delivery/identity.ts"
import type { RecordingUnusable } from "../files/recording.ts"
import { GateWakes } from "../followers/wakes.ts"
import { ActGuard } from "../gate/guard.ts"
import { GateRunnerLive } from "../gate/runner.ts"
import { GateTurn } from "../gate/turn.ts"
import { VerbResponderLive } from "../gate/verbs.ts"
import type { Journal } from "../journal.ts"
import { FencedTransaction, TakeoverFenced } from "../lease/fence.ts"
import { ControllerName } from "../lease/name.ts"
import { recordSchemaReach, runningBuild } from "../lease/schema-reach.ts"
import { StoreUnderTheLease } from "../lease/store-bounds.ts"
import { CensusLive } from "../metrics/census.ts"
import { HeartbeatLive, LeaseFollowerLive, LeaseView, ReadinessLive } from "../metrics/probes.ts"
import { Metrics, ProgramWatchLive } from "../metrics/service.ts"
import { ControllerNotes } from "../program/notes.ts"
import type { ControllerRecorder } from "../program/recorder.ts"
import type { ControllerSettings } from "../config.ts"
import { DeliveryStore } from "../store/delivery.ts"
import { GateStore } from "../store/gate.ts"
import { StoreTransaction } from "../store/postgres.ts"
import { StandingsStore } from "../store/standings.ts"
import { StandingsFollowerLive } from "./follow.ts"
import { HealthFollowerLive } from "./health.ts"
import { WatchPortLive } from "./live.ts"
import { ReportsFollowerLive } from "./reports.ts"
import { actingTerms } from "./terms.ts"
import { WitnessFollowerLive } from "./witnesses.ts"

/** What acts, one term under the lease at a time; the takeover recorded in the store at once (issue 26). */
const Acting = (batch: number) =>
  Layer.mergeAll(
    StandingsFollowerLive(batch),
    ReportsFollowerLive,
    HealthFollowerLive,
    WitnessFollowerLive,
    GateRunnerLive,
    LeaseFollowerLive,
    TakeoverFenced,
  )
/** The followers a term waits for before its holder says it is ready: their loops' names. */
const termFollowers = ["standings", "reports", "health"]

/** What a candidate runs too: operators' verbs are refused naming the holder, /readyz says 503. */
const Candidate = (metricsAddr: string) =>
  Layer.mergeAll(CensusLive, HeartbeatLive, VerbResponderLive, WatchPortLive(metricsAddr))

/**
 * The store and the bus with their services of operations, then serve's start over them in the seed's
 * order (seeds 002 and 004): the schema reach said, then the signing identity established and said (one
 * that cannot sign does not start); then one gate turn, wake queue, guard, name, lease view, registry,
 * recorder and /readyz for every worker. Closed last: the store closes after every worker stopped.
 */
const Shared = (recorder: ControllerOptions["recorder"]) =>
  Layer.mergeAll(
    GateTurn.layer,
    GateWakes.layer,
    ActGuard.layer,
    ControllerName.layer,
    ReadinessLive,
    ProgramWatchLive,
    recorder,
  ).pipe(
    Layer.provideMerge(Layer.mergeAll(Metrics.layer, LeaseView.layer, ControllerNotes.layer)),
    Layer.provideMerge(
      Layer.effectDiscard(Effect.flatMap(runningBuild, recordSchemaReach).pipe(Effect.andThen(establishAtStart))),
    ),
    Layer.provideMerge(Layer.mergeAll(GateStore.layer, DeliveryStore.layer, StandingsStore.layer, MeshBus.layer)),
    Layer.provideMerge(FencedTransaction.layer.pipe(Layer.provideMerge(StoreTransaction.layer))),
    Layer.provideMerge(Layer.mergeAll(StoreUnderTheLease, Bus.layer)),
  )

interface ControllerOptions {
  readonly batch: number
  readonly recorder: Layer.Layer<ControllerRecorder, RecordingUnusable, ControllerSettings | Journal>
  /** Where /metrics, /healthz and /readyz (issue 10) and the live page (issue 29) listen. */
  readonly metricsAddr: string
}

/**
 * `serve`: term after term of what acts under the lease, beside what a candidate runs, over what they
 * share, until a signal ends it. `recorder` is ControllerRecorder.layerNone, or layerFile for `serve
 * --record`; the settings and the Journal are the caller's.
 */
export const serveController = (options: ControllerOptions) =>
  actingTerms(Acting(options.batch), termFollowers).pipe(
    Effect.provide(Candidate(options.metricsAddr).pipe(Layer.provideMerge(Shared(options.recorder)))),
  )
