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
import { deliveryNames } from "../bus/delivery-names.ts"
import { gateRunner } from "../gate/runner.ts"
import { VerbResponderWorker } from "../gate/verbs.ts"
import { ActGuard } from "../gate/guard.ts"
import { GateTurn } from "../gate/turn.ts"
import { ControllerName } from "../lease/name.ts"
import { censusLoop } from "../metrics/census.ts"
import { metricsHttpLayer } from "../metrics/http.ts"
import { followLease, heartbeat, LeaseView, readinessLayer } from "../metrics/probes.ts"
import { Metrics, ProgramWatchLive } from "../metrics/service.ts"
import { DeliveryStore } from "../store/delivery.ts"
import { GateStore } from "../store/gate.ts"
import { StoreTransaction } from "../store/postgres.ts"
import { StandingsStore } from "../store/standings.ts"
import { standingsFollower } from "./follow.ts"
import { healthFollower } from "./health.ts"
import { witnessFollower } from "./witnesses.ts"
import type { RecordingUnusable } from "../files/recording.ts"
import type { Journal } from "../journal.ts"
import type { ControllerRecorder } from "../program/recorder.ts"
import { reportsFollower } from "./reports.ts"
import { LivePageLive } from "./live.ts"
import { controllerLeaseLayer } from "../lease/serve.ts"
import { SchemaReachLive } from "../lease/schema-reach.ts"
import { FencedTransaction, TakeoverFenced } from "../lease/fence.ts"
import { leaseBucketName } from "../lease/bucket.ts"
import { actingTerms } from "./terms.ts"
import { CaughtUp } from "../lease/caught-up.ts"
import { GateWakes } from "../followers/wakes.ts"
import { StoreUnderTheLease } from "../lease/store-bounds.ts"
import { ControllerNotes } from "../program/notes.ts"
import { raiseTheBus } from "../delivery/raise.ts"
import { SigningIdentityLive } from "../delivery/identity.ts"
import { whenItAnswers } from "../followers/in-transaction.ts"
import { makeOutage } from "../retry.ts"

/** A worker: its loop forked into the layer's scope, so it runs while the controller runs. */
const worker = <E, R>(name: string, loop: Effect.Effect<unknown, E, R>) =>
  Layer.effectDiscard(Effect.forkScoped(loop.pipe(Effect.annotateLogs({ worker: name }))))

const withControllerSettings = <A, E, R>(f: (s: ControllerSettings["Service"]) => Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    return yield* f(yield* ControllerSettings)
  })

const StandingsFollowerLive = (batch: number) =>
  worker(
    "standings",
    withControllerSettings((s) => standingsFollower({ names: busNames(s.busPrefix), batch })),
  )
const ReportsFollowerLive = worker(
  "reports",
  withControllerSettings((s) => reportsFollower(deliveryNames(s.busPrefix))),
)
const HealthFollowerLive = worker(
  "health",
  withControllerSettings((s) => healthFollower(deliveryNames(s.busPrefix))),
)
const WitnessFollowerLive = worker(
  "witnesses",
  withControllerSettings((s) => witnessFollower(deliveryNames(s.busPrefix))),
)
/**
 * raiseTheBus (seeds 002 and 004; issue 28): at the start of every term, before any worker grants
 * anything, every stream, bucket and log the mesh makes asserted, and one line said. A store or bus
 * not answering is said once and waited out, as every worker waits.
 */
const RaiseTheBusLive = Layer.effectDiscard(
  withControllerSettings((s) =>
    Effect.flatMap(makeOutage("controller"), (outage) =>
      whenItAnswers(outage, raiseTheBus(deliveryNames(s.busPrefix), busNames(s.busPrefix))),
    ),
  ),
)
/** The store's and the bus's heartbeat: one that stops answering said within a few seconds (issue 27). */
const HeartbeatLive = worker("heartbeat", heartbeat())
/** The gauges of what is kept now, from the store every 15 s (docs/metrics.md). */
const CensusLive = worker("census", censusLoop(15_000))
const GateRunnerLive = worker(
  "gate",
  withControllerSettings((s) => gateRunner(deliveryNames(s.busPrefix), s.gate)),
)
/** What this controller holds of the lease, every second, for /readyz and mesh_lease_held / mesh_lease_epoch. */
const FollowLeaseLive = Layer.effectDiscard(followLease(1_000))

/** The services of operations, over the connections. */
const ServicesLive = Layer.mergeAll(
  GateStore.layer,
  DeliveryStore.layer,
  StandingsStore.layer,
  FencedTransaction.layer.pipe(Layer.provideMerge(StoreTransaction.layer)),
  MeshBus.layer,
).pipe(Layer.provideMerge(Layer.mergeAll(StoreUnderTheLease, Bus.layer)))

/**
 * The controller lease of this mesh's prefix (issue 13): provided beneath the workers, so it is built
 * (waited for as a candidate) before any of them starts, and closed (given back) after they stop.
 */
const LeaseLive = Layer.unwrap(
  Effect.gen(function* () {
    return controllerLeaseLayer((yield* ControllerSettings).busPrefix, (yield* ControllerName).self)
  }),
)

/** /readyz's probes, naming who holds the lease when this controller does not. */
const ReadinessLive = Layer.unwrap(
  Effect.gen(function* () {
    return readinessLayer({}, leaseBucketName((yield* ControllerSettings).busPrefix))
  }),
)

/** The followers a term waits for before its holder says it is ready: their loops' names. */
const termFollowers = ["standings", "reports", "health"]

/**
 * One term of what acts, beneath the lease: built only once this controller holds it, stopped before
 * it is given back, and built again when it holds the lease again (terms.ts). The lease's own state
 * goes to the lease view (/readyz) and the metrics from here.
 */
const actingTerm = (batch: number) =>
  Layer.mergeAll(
    StandingsFollowerLive(batch),
    ReportsFollowerLive,
    HealthFollowerLive,
    WitnessFollowerLive,
    GateRunnerLive,
    FollowLeaseLive,
    // The takeover recorded in the store at once, ending the older epoch's sessions still open (issue 26).
    TakeoverFenced,
  ).pipe(
    // The bus raised before any worker of the term starts (each made before a membership names it).
    Layer.provideMerge(RaiseTheBusLive),
    // The gate's acts are guarded by the lease from here until it is given back (gate/guard.ts).
    Layer.provideMerge(ActGuard.whileHolding),
    // Ready once every follower of the term has read what was waiting (lease/caught-up.ts).
    Layer.provideMerge(CaughtUp.layer(termFollowers)),
    Layer.provideMerge(LeaseLive),
  )

interface ControllerOptions {
  readonly batch: number
  readonly recorder: Layer.Layer<ControllerRecorder, RecordingUnusable, ControllerSettings | Journal>
  /** Where /metrics, /healthz and /readyz (issue 10) and the live page (issue 29) listen. */
  readonly metricsAddr: string
}

/** The controller's services and the workers that never act (census, verbs, the watch port). */
const controller = (options: ControllerOptions) => {
  return Layer.mergeAll(
    // The census and the watch port are siblings of what acts, never below the controller lease (whose
    // layer waits in its build while another controller holds it), so /healthz and /readyz answer a
    // candidate too, /readyz with 503 until it holds the lease.
    CensusLive,
    HeartbeatLive,
    // Operators' verbs (issue 10): answered by a candidate too, refusing and naming the holder.
    VerbResponderWorker,
    metricsHttpLayer(options.metricsAddr),
  ).pipe(
    // One gate turn, one guard and one name for the gate, the verbs and the lease.
    Layer.provideMerge(Layer.mergeAll(GateTurn.layer, ActGuard.layer, ControllerName.layer, GateWakes.layer)),
    // What the live page at / shows (issue 29): read as `status` reads it, over the same services.
    Layer.provide(LivePageLive),
    Layer.provide(ReadinessLive),
    // One recorder for the gate, the verbs and /readyz (a recording that stopped is said there).
    Layer.provideMerge(options.recorder),
    // One registry and one lease view for every worker and the port.
    // The drives' watch is the registry's (program/drive.ts ProgramWatch).
    Layer.provideMerge(ProgramWatchLive),
    Layer.provideMerge(Layer.mergeAll(Metrics.layer, LeaseView.layer, ControllerNotes.layer)),
    // Start: store and bus, then the schema reach said, then the signing identity established and
    // said (seed 002: one that cannot sign does not start), then (acting) the lease taken, then the
    // workers. Stop: the workers, then the lease given back, then the store closed.
    Layer.provideMerge(SigningIdentityLive),
    Layer.provideMerge(SchemaReachLive),
    Layer.provideMerge(ServicesLive),
  )
}

/**
 * `serve`: term after term of what acts under the lease, over the controller's services, until a
 * signal ends it. `recorder` is ControllerRecorder.layerNone, or layerFile for `serve --record`; the
 * settings and the Journal are the caller's.
 */
export const serveController = (options: ControllerOptions) =>
  actingTerms(actingTerm(options.batch)).pipe(Effect.provide(controller(options)))
