// serve's terms under the controller lease (seed 004's serveUnderTheLease, with one departure:
// docs/lease.md). A term is the lease taken (its layer waits as a candidate) and every worker that acts
// under it; it ends the moment the lease is lost, its scope closing the workers first, then the lease.
// Seed 004 then exits for a supervisor to start it again; serve stands down and campaigns again, so a
// bus outage longer than the lease ends no controller, and only a signal ends serve. From the moment a
// term begins to end until the lease is given back, a verb is refused as a handover (novox/hq issue
// 289), so its caller asks the controller after this one.
import { Context, Effect, Layer, Predicate } from "effect"
import { makeOutage, untilItAnswers } from "../retry.ts"
import { ControllerLease } from "../lease/service.ts"
import { LeaseView } from "../metrics/probes.ts"

/** Term after term until interrupted: never returns; fails only when a term cannot be built at all. */
export const actingTerms = Effect.fn("Controller.actingTerms")(function* <ROut, E, R>(
  term: Layer.Layer<ROut | ControllerLease, E, R>,
) {
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
