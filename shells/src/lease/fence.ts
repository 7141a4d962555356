// Every act that changes the store carries the lease's epoch, and the store refuses one older than
// the newest it has seen (seed 004, issue 13; migration 0006's `mesh_fence`). A controller paused
// past its lease (a long GC, SIGSTOP) wakes believing it still holds epoch N: its lease stops it at
// the next look, but an act already on its way would land after epoch N+1 acted. The fence in the
// store is what stops that one, and the refusal stops the controller (`ControllerLease.fenced`).
// The fence's statements are the store's (store/postgres.ts); this ties a refusal to the lease.
import { Effect, Layer } from "effect"
import { untilItAnswers } from "../retry.ts"
import { type FencedBody, fencedWrite } from "../store/postgres.ts"
import { ControllerLease } from "./service.ts"

export { Fenced, FencedTransaction, newestEpoch } from "../store/postgres.ts"

/**
 * One write transaction under `epoch`, read from the lease when the act began: the fence first, then
 * `body`. Refused by the store, the lease is told, so `lost` completes and every act stops: nothing
 * this controller does from now is accepted.
 */
export const writeUnderEpoch = Effect.fn("Fence.writeUnderEpoch")(function* <A>(epoch: number, body: FencedBody<A>) {
  yield* Effect.annotateCurrentSpan("epoch", epoch)
  const lease = yield* ControllerLease
  return yield* fencedWrite(epoch, body).pipe(
    Effect.tapError((e) => (e._tag === "Fenced" ? lease.fenced(e.message) : Effect.void)),
  )
})

/** One write transaction under the lease's epoch now: a controller that no longer holds it does not write (NotHolding). */
export const underLease = Effect.fn("Fence.underLease")(function* <A>(
  body: (tx: Parameters<FencedBody<A>>[0], epoch: number) => Promise<A>,
) {
  const lease = yield* ControllerLease
  const epoch = yield* lease.epoch
  return yield* writeUnderEpoch(epoch, (tx) => body(tx, epoch))
})

/**
 * The takeover, in the store at once (issue 26): as soon as this controller holds the lease, a fenced
 * transaction of its own records its epoch, so the older epoch's sessions still open are ended now
 * (migration 0014), not at this controller's first write, which may come much later, and no
 * transaction of the older epoch commits from here. Waits out a store that does not answer; a lease
 * no longer held, or already passed on, has nothing to record.
 */
export const TakeoverFenced = Layer.effectDiscard(
  Effect.forkScoped(
    underLease(async () => undefined).pipe(
      Effect.retry({ schedule: untilItAnswers, while: (e) => e._tag === "StoreUnreadable" }),
      Effect.ignore,
    ),
  ),
)
