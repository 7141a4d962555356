// The gate's turn: a gate tick and an operator's verb both read and save a plan, so they run one at a
// time, never beside each other (docs/gate.md, "What serve and the CLI call to carry the verbs out").
import { Context, Duration, Effect, Layer, Option, Semaphore } from "effect"

export class GateTurn extends Context.Service<
  GateTurn,
  {
    readonly one: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
    /**
     * `effect` in the turn if the turn comes within `ms`, else nothing run. How a verb waits (issue 27):
     * a judging stuck on a frozen store's write holds the turn for as long as the freeze lasts, and an
     * operator's verb waited behind it past its own 20 s with no word.
     */
    readonly within: <A, E, R>(ms: number, effect: Effect.Effect<A, E, R>) => Effect.Effect<Option.Option<A>, E, R>
  }
>()("mesh-core/GateTurn") {
  static readonly layer = Layer.effect(
    GateTurn,
    Effect.map(Semaphore.make(1), (s) =>
      GateTurn.of({ one: (effect) => s.withPermits(1)(effect), within: (ms, effect) => takenWithin(s, ms, effect) }),
    ),
  )
}

const takenWithin = <A, E, R>(
  s: Semaphore.Semaphore,
  ms: number,
  effect: Effect.Effect<A, E, R>,
): Effect.Effect<Option.Option<A>, E, R> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(
      restore(Effect.timeoutOption(s.take(1), Duration.millis(ms))),
      (took): Effect.Effect<Option.Option<A>, E, R> =>
        Option.isNone(took)
          ? Effect.succeed(Option.none<A>())
          : restore(effect).pipe(Effect.map(Option.some), Effect.ensuring(s.release(1))),
    ),
  )
