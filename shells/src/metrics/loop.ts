// One pass of a controller loop, watched (issue 10): how long it took into mesh_loop_duration_seconds
// and when it ended into mesh_loop_last_run_timestamp_seconds, and a beat for `/healthz`. Metrics and
// readiness where serve gives them; a test or a one-shot command runs the loop without either.
import { Clock, Effect, Option } from "effect"
import { Readiness } from "./readiness.ts"
import { Metrics } from "./service.ts"

/** Runs `pass`; once it succeeds, observes it as one pass of `loop` and beats `loop`. */
export const watchedPass = Effect.fn("Metrics.watchedPass")(function* <A, E, R>(
  loop: string,
  pass: Effect.Effect<A, E, R>,
) {
  const metrics = Option.getOrUndefined(yield* Effect.serviceOption(Metrics))
  const readiness = Option.getOrUndefined(yield* Effect.serviceOption(Readiness))
  const started = yield* Clock.currentTimeMillis
  const a = yield* pass
  const at = yield* Clock.currentTimeMillis
  if (metrics !== undefined) yield* metrics.observe({ kind: "loop", loop, seconds: (at - started) / 1000, at })
  if (readiness !== undefined) yield* readiness.beat(loop)
  return a
})

/** Applies what an observation moves, where serve gives metrics. */
export const observeIfWatched = (o: Parameters<Metrics["Service"]["observe"]>[0]) =>
  Effect.serviceOption(Metrics).pipe(
    Effect.flatMap(Option.match({ onNone: () => Effect.void, onSome: (m) => m.observe(o) })),
  )
