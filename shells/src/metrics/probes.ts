// The readiness probes from the real store, bus and lease (issue 10). The lease layer of serve
// builds only once this controller holds the lease (a candidate waits inside it), so `/readyz` must
// answer before that: what this controller knows of the lease is kept in `LeaseView`, "not held"
// until the lease's side says otherwise (`followLease`), and the probe reads it.
import { metricUpdates } from "@mesh-core/core/controller/metrics"
import { heldBy, leaseState, statusClockAllowanceMs } from "@mesh-core/core/lease/view"
import { Clock, Context, Duration, Effect, Layer, Option, Ref, Schedule } from "effect"
import { Bus, ping as busPing } from "../bus/nats.ts"
import { leaseSeenOn } from "../lease/read.ts"
import { ControllerLease } from "../lease/service.ts"
import { CaughtUp } from "../lease/caught-up.ts"
import { ping, Store } from "../store/postgres.ts"
import { Metrics } from "./service.ts"
import { type LeaseSeen, ProbeFailed, Readiness, type ReadinessOptions } from "./readiness.ts"
import { errorText } from "@mesh-core/core/text/error-text"
import { formatDuration } from "@mesh-core/core/duration"
import { makeOutage } from "../retry.ts"
import { worker } from "../worker.ts"
import { Holding } from "../lease/holding.ts"
import { leaseBucketName } from "../lease/bucket.ts"
import { ControllerSettings } from "../config.ts"
import { ControllerNotes } from "../program/notes.ts"

export class LeaseView extends Context.Service<
  LeaseView,
  {
    readonly seen: Effect.Effect<LeaseSeen>
    readonly set: (seen: LeaseSeen) => Effect.Effect<void>
    /** Whether this controller is stopping its acts (a lease lost, or a signal) and has not given the lease back yet. */
    readonly handingOver: Effect.Effect<boolean>
    readonly setHandingOver: (on: boolean) => Effect.Effect<void>
  }
>()("mesh-core/LeaseView") {
  static readonly layer = Layer.effect(
    LeaseView,
    Effect.gen(function* () {
      const ref = yield* Ref.make<LeaseSeen>({ held: false })
      const stopping = yield* Ref.make(false)
      return LeaseView.of({
        seen: Ref.get(ref),
        set: (s) => Ref.set(ref, s),
        handingOver: Ref.get(stopping),
        setHandingOver: (on) => Ref.set(stopping, on),
      })
    }),
  )
}

/** A `select 1` on the store. */
const storeProbe = ping().pipe(Effect.mapError((e) => new ProbeFailed({ reason: errorText(e.cause), cause: e.cause })))

/** A round trip to the bus's server. */
const busProbe = busPing().pipe(Effect.mapError((e) => new ProbeFailed({ reason: errorText(e.cause), cause: e.cause })))

/** One part the heartbeat asks, over the store and the bus it is given. */
interface Part {
  readonly outage: Effect.Success<ReturnType<typeof makeOutage>>
  readonly probe: Effect.Effect<void, ProbeFailed, Store | Bus>
  readonly tag: string
  readonly what: string
}

/**
 * The store's and the bus's heartbeat (issue 27): each asked every `every` ms, each answer bounded by
 * `timeout` ms, and a part that stops answering said within a few seconds — once, as every worker
 * says an outage (core/src/controller/outage.ts), and once when it answers again — where before a
 * frozen store left serve silent for 20 s and more while only /readyz changed.
 */
const heartbeat = Effect.fn("Metrics.heartbeat")(function* (every = 1_000, timeout = 2_000) {
  const parts: ReadonlyArray<Part> = [
    {
      outage: yield* makeOutage("store"),
      probe: storeProbe,
      tag: "StoreUnreadable",
      what: "store",
    },
    {
      outage: yield* makeOutage("bus"),
      probe: busProbe,
      tag: "BusUnreachable",
      what: "bus",
    },
  ]
  const beat = Effect.forEach(
    parts,
    (p) =>
      p.probe.pipe(
        Effect.timeoutOrElse({
          duration: Duration.millis(timeout),
          orElse: () => Effect.fail(new ProbeFailed({ reason: `no answer within ${formatDuration(timeout)}` })),
        }),
        Effect.matchEffect({
          onSuccess: () => p.outage.answered,
          onFailure: (e) => p.outage.failed({ _tag: p.tag, message: `the ${p.what} is not answering: ${e.reason}` }),
        }),
      ),
    { concurrency: "unbounded", discard: true },
  )
  return yield* beat.pipe(Effect.repeat(Schedule.spaced(Duration.millis(every))))
})

/** The store's and the bus's heartbeat as a worker a candidate runs too. */
export const HeartbeatLive = worker("heartbeat", heartbeat())

/**
 * Readiness from the store, the bus and the lease view. Given the lease's `bucket`, a controller that
 * does not hold the lease also reads who does, so its `/readyz` names the holder (a read bounded by a
 * second; not answering, the holder is simply not named).
 */
export const readinessLayer = (options: ReadinessOptions = {}, bucket?: string) =>
  Layer.unwrap(
    Effect.gen(function* () {
      const store = yield* Store
      const bus = yield* Bus
      const view = yield* LeaseView
      const notes = yield* Effect.serviceOption(ControllerNotes)
      const lease =
        bucket === undefined
          ? view.seen
          : Effect.gen(function* () {
              const seen = yield* view.seen
              if (seen.held) return seen
              const read = yield* leaseSeenOn(bus, bucket).pipe(Effect.timeoutOption(Duration.seconds(1)))
              if (Option.isNone(read)) return seen
              return {
                held: false,
                holder: heldBy(leaseState(read.value, yield* Clock.currentTimeMillis, statusClockAllowanceMs)),
              }
            })
      return Readiness.layer(
        {
          lease,
          store: Effect.provideService(storeProbe, Store, store),
          bus: Effect.provideService(busProbe, Bus, bus),
          notes: Option.isNone(notes) ? Effect.succeed([]) : notes.value.all,
        },
        options,
      )
    }),
  )

/** serve's /readyz probes, naming who holds the lease when this controller does not. */
export const ReadinessLive = Layer.unwrap(
  Effect.gen(function* () {
    return readinessLayer({}, leaseBucketName((yield* ControllerSettings).busPrefix))
  }),
)

/**
 * Once the lease is held: what this controller holds, every `every` ms, into the lease view and the
 * metrics (mesh_lease_held, mesh_lease_epoch), until the scope closes. Fork it in the scope that holds
 * the lease; when that scope closes the view goes back to "not held".
 */
export const followLease = Effect.fn("Metrics.followLease")(function* (every: number) {
  const lease = yield* ControllerLease
  const view = yield* LeaseView
  const metrics = yield* Metrics
  const caughtUp = yield* Effect.serviceOption(CaughtUp)
  const look = Effect.gen(function* () {
    const held = yield* lease.held
    const catchingUp = Option.isSome(caughtUp) ? yield* caughtUp.value.waiting : []
    const seen: LeaseSeen =
      held === undefined ? { held: false } : { held: true, holder: held.holder, epoch: held.epoch, catchingUp }
    yield* view.set(seen)
    yield* metrics.apply(metricUpdates({ kind: "lease", held: seen.held, epoch: seen.epoch }))
  })
  yield* Effect.addFinalizer(() =>
    Effect.andThen(
      view.set({ held: false }),
      metrics.apply(metricUpdates({ kind: "lease", held: false, epoch: undefined })),
    ),
  )
  yield* look.pipe(Effect.repeat(Schedule.spaced(Duration.millis(every))), Effect.forkScoped)
})

/** What this controller holds of the lease, every second, for /readyz and mesh_lease_held / mesh_lease_epoch: a worker of the term. */
export const LeaseFollowerLive = Layer.effectDiscard(
  Effect.gen(function* () {
    yield* Holding
    yield* followLease(1_000)
  }),
)
