// The gate's turn: a gate tick and an operator's verb both read and save a plan, so they run one at a
// time, never beside each other (docs/gate.md, "What serve and the CLI call to carry the verbs out").
import { Context, Effect, Layer, Semaphore } from "effect"

export class GateTurn extends Context.Service<
  GateTurn,
  {
    readonly one: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  }
>()("mesh-core/GateTurn") {
  static readonly layer = Layer.effect(
    GateTurn,
    Effect.map(Semaphore.make(1), (s) => GateTurn.of({ one: (effect) => s.withPermits(1)(effect) })),
  )
}
