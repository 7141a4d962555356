// Where a program says what it is doing: standard error by default, a list in tests.
import { Context, Effect, Layer } from "effect"
import { shown } from "@mesh-core/core/text/terminal-text"

export class Journal extends Context.Service<Journal, { readonly say: (line: string) => Effect.Effect<void> }>()(
  "mesh-core/Journal",
) {}

/** The journal in text form: each line shown as core/src/shown.ts says, so text from outside acts on no terminal (issue 43). */
export const stderrLayer = Layer.succeed(Journal, {
  say: (line) => Effect.sync(() => void process.stderr.write(`${shown(line)}\n`)),
})

export const memoryLayer = (lines: Array<string>) =>
  Layer.succeed(Journal, { say: (line) => Effect.sync(() => void lines.push(line)) })

export const say = Effect.fn("Journal.say")(function* (line: string) {
  const journal = yield* Journal
  yield* journal.say(line)
})
