// What every worker that acts stands on (issue 13; docs/lease.md): this controller holds the lease,
// the bus is raised for its term and the gate's acts are guarded by it (controller/terms.ts builds
// it). A worker of a term requires it, so none starts before the lease is held, and the lease is
// given back only once the last of them has stopped: the order is the layers' dependency, not the
// place of a provide.
import { Context, Effect, Layer } from "effect"
import type { ControllerLease } from "./service.ts"

export class Holding extends Context.Service<Holding, { readonly lease: ControllerLease["Service"] }>()(
  "mesh-core/lease/Holding",
) {}

/** `loop` as a worker of the term (`name` annotates its logs): started once the lease is held, stopped before it is given back. */
export const termWorker = <E, R>(name: string, loop: Effect.Effect<unknown, E, R>) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      yield* Holding
      yield* Effect.forkScoped(loop.pipe(Effect.annotateLogs({ worker: name })))
    }),
  )
