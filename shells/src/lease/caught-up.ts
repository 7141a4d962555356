// Whether a term's followers have caught up with the bus (issue 26: readiness is real). A holder is
// ready only once every follower of its term has fetched a batch smaller than it asked for, so it has
// read what was waiting when it took the lease; until then its lease record says not ready (the gate's
// controller check, seed 003-9) and /readyz names the followers still catching up. Which followers a
// term has and what "caught up" means are decided in core/src/controller/readiness.ts.
import { caughtUpWith } from "@mesh-core/core/controller/readiness"
import { Context, Deferred, Effect, Layer, Ref } from "effect"
import { ControllerLease } from "./service.ts"

export class CaughtUp extends Context.Service<
  CaughtUp,
  {
    /** `loop` fetched less than it asked for: it has read what was waiting. */
    readonly said: (loop: string) => Effect.Effect<void>
    /** The followers of this term still catching up, in the order expected. */
    readonly waiting: Effect.Effect<ReadonlyArray<string>>
  }
>()("mesh-core/CaughtUp") {
  /**
   * One term's: `expected` are its followers' loops; once all have caught up, the lease is told the
   * holder is ready (ControllerLease.setReady), so the next renewal says so.
   */
  static readonly layer = (expected: ReadonlyArray<string>) =>
    Layer.effect(
      CaughtUp,
      Effect.gen(function* () {
        const lease = yield* ControllerLease
        const caught = yield* Ref.make<ReadonlySet<string>>(new Set())
        const all = yield* Deferred.make<void>()
        const said = (loop: string) =>
          Effect.gen(function* () {
            if (yield* Deferred.isDone(all)) return
            const now = yield* Ref.updateAndGet(caught, (s) => new Set([...s, loop]))
            if (caughtUpWith(expected, now).length > 0) return
            yield* Deferred.succeed(all, undefined)
            yield* lease.setReady(true)
          })
        return CaughtUp.of({ said, waiting: Effect.map(Ref.get(caught), (s) => caughtUpWith(expected, s)) })
      }),
    )
}
