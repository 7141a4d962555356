// How a command ends badly: one line on standard error and an exit code a script can act on.
// 1: not well (status); 2: bad input (a file, a line, a setting); 3: the bus or the store unreachable.
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Runtime from "effect/Runtime"
import { SettingRefused } from "../config.ts"
import { writeErr } from "../files/output.ts"

export class CommandFailed extends Data.TaggedError("CommandFailed")<{
  readonly code: number
  readonly said: string
  readonly cause?: unknown
}> {
  override readonly [Runtime.errorReported] = false
  override get [Runtime.errorExitCode](): number {
    return this.code
  }
  override get message(): string {
    return this.said
  }
}

export const exitCodes = { notWell: 1, badInput: 2, unreachable: 3 } as const

/** Any failure of `program` said on standard error and ended with `code`; a setting refused is bad input (2), as `serve` says it. */
export const endingWith =
  (code: number) =>
  <A, E extends { readonly message: string }, R>(program: Effect.Effect<A, E, R>) =>
    program.pipe(
      Effect.catch((e: E) =>
        Effect.fail(
          e instanceof CommandFailed
            ? e
            : new CommandFailed({
                code: e instanceof SettingRefused ? exitCodes.badInput : code,
                said: e.message,
                cause: e,
              }),
        ),
      ),
      Effect.tapError((e) => (e.said === "" ? Effect.void : writeErr(`${e.said}\n`))),
    )
