// Where a program says what it is doing: standard error by default, a list in tests.
import { Context, Effect, Layer } from "effect"

export class Journal extends Context.Service<Journal, { readonly say: (line: string) => Effect.Effect<void> }>()(
  "mesh-core/Journal",
) {}

export const stderrLayer = Layer.succeed(Journal, {
  say: (line) => Effect.sync(() => void process.stderr.write(`${line}\n`)),
})

export const memoryLayer = (lines: Array<string>) =>
  Layer.succeed(Journal, { say: (line) => Effect.sync(() => void lines.push(line)) })

export const say = Effect.fn("Journal.say")(function* (line: string) {
  const journal = yield* Journal
  yield* journal.say(line)
})
