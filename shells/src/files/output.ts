// Writing to standard output without holding more than the pipe will take: a slow reader of
// `simulate --json` slows the replay down rather than filling memory.
import * as Effect from "effect/Effect"

export const writeOut = (text: string): Effect.Effect<void> =>
  text === ""
    ? Effect.void
    : Effect.callback<void>((resume) => {
        if (process.stdout.write(text)) resume(Effect.void)
        else process.stdout.once("drain", () => resume(Effect.void))
      })

export const writeErr = (text: string): Effect.Effect<void> => Effect.sync(() => void process.stderr.write(text))
