// A worker of `serve` (docs/architecture.md): its loop forked into its layer's scope, so it runs for
// as long as the layer lives and stops when the layer is closed. Each worker's layer gives itself
// what only it uses; what workers share is given once beneath them all (controller/main.ts).
import { Effect, Layer } from "effect"

/** `loop` as a worker named `name` (the `worker` annotation of its logs). */
export const worker = <E, R>(name: string, loop: Effect.Effect<unknown, E, R>) =>
  Layer.effectDiscard(Effect.forkScoped(loop.pipe(Effect.annotateLogs({ worker: name }))))
