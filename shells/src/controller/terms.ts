// serve's terms under the controller lease (seed 004's serveUnderTheLease, with one departure:
// docs/lease.md). A term is the lease taken (its layer waits as a candidate) and every worker that acts
// under it; it ends the moment the lease is lost, its scope closing the workers first, then the lease.
// Seed 004 then exits for a supervisor to start it again; serve stands down and campaigns again, so a
// bus outage longer than the lease ends no controller, and only a signal ends serve. From the moment a
// term begins to end until the lease is given back, a verb is refused as a handover (novox/hq issue
// 289), so its caller asks the controller after this one.
import { Context, Effect, Layer, Predicate } from "effect"
import { deliveryNames } from "../bus/delivery-names.ts"
import { busNames } from "../bus/subjects.ts"
import { ControllerSettings } from "../config.ts"
import { raiseTheBus } from "../delivery/raise.ts"
import { whenItAnswers } from "../followers/in-transaction.ts"
import { ActGuard } from "../gate/guard.ts"
import { CaughtUp } from "../lease/caught-up.ts"
import { Holding } from "../lease/holding.ts"
import { ControllerName } from "../lease/name.ts"
import { controllerLeaseLayer } from "../lease/serve.ts"
import { ControllerLease } from "../lease/service.ts"
import { LeaseView } from "../metrics/probes.ts"
import { makeOutage, untilItAnswers } from "../retry.ts"

/** The controller lease of this mesh's prefix (issue 13), in this controller's name: building it waits as a candidate. */
const LeaseLive = Layer.unwrap(
  Effect.gen(function* () {
    return controllerLeaseLayer((yield* ControllerSettings).busPrefix, (yield* ControllerName).self)
  }),
)

/**
 * Holding the lease: the gate's acts guarded by it from here until the term ends (gate/guard.ts), then
 * the bus raised (raiseTheBus, seeds 002 and 004; issue 28): every stream, bucket and log the mesh makes
 * asserted and one line said before any worker of the term grants anything. A store or bus not
 * answering is said once and waited out, as every worker waits.
 */
const HoldingLive = Layer.effect(
  Holding,
  Effect.gen(function* () {
    const lease = yield* ControllerLease
    const s = yield* ControllerSettings
    yield* ActGuard.holdUnder(lease)
    const outage = yield* makeOutage("controller")
    yield* whenItAnswers(outage, raiseTheBus(deliveryNames(s.busPrefix), busNames(s.busPrefix)))
    return Holding.of({ lease })
  }),
)

/**
 * What the workers of a term stand on: the lease, and over it the term's `followers` counted for
 * readiness (a holder is ready once each has read what was waiting, lease/caught-up.ts) and Holding.
 */
const termGround = (followers: ReadonlyArray<string>) =>
  Layer.mergeAll(HoldingLive, CaughtUp.layer(followers)).pipe(Layer.provideMerge(LeaseLive))

/**
 * Term after term of `workers` until interrupted: never returns; fails only when a term cannot be built
 * at all. Each term builds its ground anew (the lease taken again) and the workers over it.
 */
export const actingTerms = Effect.fn("Controller.actingTerms")(function* <E, R>(
  workers: Layer.Layer<never, E, R>,
  followers: ReadonlyArray<string>,
) {
  const term = workers.pipe(Layer.provideMerge(termGround(followers)))
  const view = yield* LeaseView
  // A candidate whose bus is away waits it out, said once, as every worker does (retry.ts).
  const outage = yield* makeOutage("lease")
  const unreachable = (e: unknown) => Predicate.isTagged(e, "LeaseUnreachable")
  for (;;) {
    yield* Effect.scoped(
      Effect.gen(function* () {
        // Runs last, once the lease is given back.
        yield* Effect.addFinalizer(() => view.setHandingOver(false))
        const built = yield* Layer.build(term)
        yield* outage.answered
        // Runs first as the term ends, before its workers stop.
        yield* Effect.addFinalizer(() => view.setHandingOver(true))
        yield* Context.get(built, ControllerLease).lost
      }),
    ).pipe(
      Effect.tapError((e) =>
        unreachable(e)
          ? outage.failed({
              _tag: "BusUnreachable",
              message: String(Predicate.hasProperty(e, "message") ? e.message : e),
            })
          : Effect.void,
      ),
      Effect.retry({ schedule: untilItAnswers, while: unreachable }),
    )
  }
})
