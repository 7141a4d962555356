// How every worker of the controller waits out the store or the bus going away (issue 14): one named
// policy, capped and jittered, so a dozen controllers restarted together do not knock in step, and a
// long outage is retried every ten seconds or so, never given up on. What a worker says of it is the
// core's (core/src/controller/outage.ts): once when it begins, once when it is over.
import { Duration, Effect, Ref, Schedule } from "effect"
import { noOutage, type Outage, outageHeard, outageOver } from "@mesh-core/core/controller/outage"
import { Journal } from "./journal.ts"

/** 250 ms, doubling, never more than 10 s apart, each delay jittered; for ever. */
export const untilItAnswers = Schedule.min([
  Schedule.exponential(Duration.millis(250)),
  Schedule.spaced(Duration.seconds(10)),
]).pipe(Schedule.jittered)

/** What went away: the store or the bus, by the failure's tag. */
const whatOf = (e: { readonly _tag: string }): string => (e._tag === "BusUnreachable" ? "bus" : "store")

/**
 * A worker's memory of its outage, and the two things it does with it: `failed` says the first
 * failure of an outage (or runs `first` instead, when the core is to say it: a recorded
 * `store-failed`), `answered` says the outage is over. Failures in between are retried in silence.
 */
export const makeOutage = Effect.fn("Retry.makeOutage")(function* (worker: string) {
  const journal = yield* Journal
  const ref = yield* Ref.make<Outage>(noOutage)
  const failed = <R = never>(
    e: { readonly _tag: string; readonly message: string },
    first?: Effect.Effect<unknown, never, R>,
  ) =>
    Effect.gen(function* () {
      const r = outageHeard(yield* Ref.get(ref), worker, whatOf(e), e.message)
      yield* Ref.set(ref, r.outage)
      if (r.said.length === 0) return
      if (first !== undefined) yield* first
      else for (const line of r.said) yield* journal.say(line)
    })
  const answered = Effect.gen(function* () {
    const r = outageOver(yield* Ref.get(ref), worker)
    yield* Ref.set(ref, r.outage)
    for (const line of r.said) yield* journal.say(line)
  })
  return { failed, answered }
})
