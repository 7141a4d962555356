// How `serve` acts under the controller lease (seed 004's serveUnderTheLease, novox/hq to-be 45 §6):
// the lease taken before anything that acts (building its layer waits as a candidate, said); every
// act under the lease's epoch, the store's fence first; an act refused stops this controller's acts
// at once; and `serve` ends, non-zero, in the seed's sentence the moment the lease is lost, its scope
// closing the workers first, then the lease (given back when still held), then the store.
import { Data, Effect, Layer, Runtime } from "effect"
import { leaseBucketName } from "./bucket.ts"
import { Fenced, FencedTransaction, newestEpoch } from "./fence.ts"
import { ControllerLease, type NotHolding } from "./service.ts"
import { leaseReplicasConfig } from "./settings.ts"

/**
 * The lease of the mesh whose subjects carry `prefix`, numbered above the store's newest epoch, its
 * bucket kept in MESH_LEASE_REPLICAS copies (3 on a clustered bus).
 */
export const controllerLeaseLayer = (prefix: string, self?: string) =>
  Layer.unwrap(
    Effect.map(leaseReplicasConfig, (replicas) =>
      ControllerLease.layer({
        bucket: leaseBucketName(prefix),
        replicas,
        floor: newestEpoch,
        ...(self === undefined ? {} : { self }),
      }),
    ),
  )

/** `serve` ended because this controller stopped acting: its lease lost, or an act refused by the store. */
export class LeaseLost extends Data.TaggedError("LeaseLost")<{ readonly said: string }> {
  override readonly [Runtime.errorExitCode] = 1
  override get message(): string {
    return this.said
  }
}

/** Waits until this controller stops acting, then fails with the seed's sentence: `serve`'s main fiber. */
export const untilTheLeaseIsLost: Effect.Effect<never, LeaseLost, ControllerLease> = Effect.gen(function* () {
  const lease = yield* ControllerLease
  const lost = yield* lease.lost
  return yield* Effect.fail(new LeaseLost({ said: lost.said }))
})

/**
 * One act under `lease`: its epoch read now, handed to `act` (which fences its transaction with it
 * first, fence.ts). A controller that no longer holds the lease does not act, and one whose act the
 * store refused tells the lease: either way the act never returns, and the worker stops there until
 * `serve`'s scope ends it, rather than retry an act nothing will accept.
 */
export const actUnder = Effect.fn("Lease.actUnderTheLease")(function* <A, E, R>(
  lease: ControllerLease["Service"],
  act: (epoch: number) => Effect.Effect<A, E | Fenced, R>,
) {
  const epoch = yield* lease.epoch.pipe(Effect.catchTag("NotHolding", (_: NotHolding) => Effect.never))
  return yield* act(epoch).pipe(
    Effect.catchIf(
      (e): e is Fenced => e instanceof Fenced,
      (e) => Effect.andThen(lease.fenced(e.message), Effect.never),
    ),
  )
})

/** One act under the lease this controller holds (`actUnder`). */
export const actUnderTheLease = <A, E, R>(act: (epoch: number) => Effect.Effect<A, E | Fenced, R>) =>
  Effect.gen(function* () {
    return yield* actUnder(yield* ControllerLease, act)
  })

/**
 * `effect` as one act under `lease`: in one transaction of `transactions` whose first statement is the
 * store's fence under the lease's epoch now. What every follower and gate write goes through (issue 13).
 */
export const fencedActUnder = <A, E, R>(
  lease: ControllerLease["Service"],
  transactions: FencedTransaction["Service"],
  effect: Effect.Effect<A, E, R>,
) => actUnder(lease, (epoch) => transactions.within(epoch, effect)).pipe(Effect.withSpan("Lease.fencedAct"))

/** `effect` as one act under the lease this controller holds, in its fenced transaction (`fencedActUnder`). */
export const fencedAct = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    return yield* fencedActUnder(yield* ControllerLease, yield* FencedTransaction, effect)
  })
