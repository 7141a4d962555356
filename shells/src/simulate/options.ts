// What simulate is asked, and how bad input ends it: one line on standard error, exit code 2.
import * as Data from "effect/Data"
import * as Runtime from "effect/Runtime"

/** Bad input: a line of the log, a setting or the file itself. Said once, exit code 2. */
export class BadInput extends Data.TaggedError("BadInput")<{ readonly said: string; readonly cause?: unknown }> {
  override readonly [Runtime.errorExitCode] = 2
  override readonly [Runtime.errorReported] = false
  override get message(): string {
    return this.said
  }
}

/** A replay that did not reproduce the day, under `--strict`: said once, exit code 1. */
export class ReplayDiffers extends Data.TaggedError("ReplayDiffers")<{ readonly said: string }> {
  override readonly [Runtime.errorExitCode] = 1
  override readonly [Runtime.errorReported] = false
  override get message(): string {
    return this.said
  }
}

export interface SimulateOptions {
  readonly file: string
  readonly json: boolean
  readonly set: ReadonlyArray<string>
  /** `name=v1,v2,…`, once for one setting or twice for a grid: the day replayed once per point. */
  readonly sweep?: ReadonlyArray<string>
  /** Where to write the day as a page (HTML, self-contained). */
  readonly html?: string
  /** `--strict`: a replay that does not reproduce the day ends non-zero (core/src/strict.ts). */
  readonly strict?: boolean
  /** Called now and then with how many lines have been replayed; for a person watching. */
  readonly progress?: (lines: number) => void
}
