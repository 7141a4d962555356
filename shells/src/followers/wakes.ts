// What wakes the gate (core/src/gate/plan/wake.ts): the followers, the verbs and the lease offer what they
// kept; the gate runner waits for the next wake or its next wake-up, whichever comes first. Kept as a
// set of distinct wakes (one per machine, per plan, and so on), so a flood of reports from one machine
// is one wake and memory stays bounded by the mesh, not by the traffic. The first heard of a key is
// kept: of statements saying the same, the first says since when (wake.ts).
import { type Heard, wakeKey } from "@mesh-core/core/gate/plan/wake"
import { Clock, Context, Duration, Effect, Layer, Option, Queue } from "effect"

export class GateWakes extends Context.Service<
  GateWakes,
  {
    /** A wake heard; undefined is nothing to wake. */
    readonly offer: (wake: Heard | undefined) => Effect.Effect<void>
    /** Every wake heard since the last call, waiting for one; `due` alone once `at` (epoch ms) passes first. */
    readonly next: (at: number | undefined) => Effect.Effect<ReadonlyArray<Heard>>
  }
>()("mesh-core/GateWakes") {
  static readonly layer = Layer.effect(
    GateWakes,
    Effect.gen(function* () {
      // One fiber offers at a time and the runner takes all at once: a map kept in place, not copied a wake.
      const heard = new Map<string, Heard>()
      const signal = yield* Queue.sliding<void>(1)
      const offer = (wake: Heard | undefined) =>
        wake === undefined
          ? Effect.void
          : Effect.andThen(
              Effect.sync(() => {
                const key = wakeKey(wake)
                if (!heard.has(key)) heard.set(key, wake)
              }),
              Queue.offer(signal, undefined),
            )
      const next = (at: number | undefined) =>
        Effect.gen(function* () {
          const wait = Queue.takeAll(signal)
          if (at === undefined) yield* wait
          else {
            const now = yield* Clock.currentTimeMillis
            const signalled = yield* wait.pipe(Effect.timeoutOption(Duration.millis(Math.max(0, at - now))))
            if (Option.isNone(signalled)) return [{ kind: "due" as const }]
          }
          const wakes = [...heard.values()]
          heard.clear()
          const now = yield* Clock.currentTimeMillis
          return at !== undefined && now >= at ? [...wakes, { kind: "due" as const }] : wakes
        })
      return GateWakes.of({ offer, next })
    }),
  )
}
