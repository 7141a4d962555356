// What simulate is asked, and how bad input ends it: one line on standard error, exit code 2.
import { Data, Effect, Runtime, Stream } from "effect"
import { type FileUnreadable, type LineRefused, lineChunks } from "../files/lines.ts"

/** Bad input: a line of the log, a setting or the file itself. Said once, exit code 2. */
export class BadInput extends Data.TaggedError("BadInput")<{ readonly said: string }> {
  override readonly [Runtime.errorExitCode] = 2
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
  /** Called now and then with how many lines have been replayed; for a person watching. */
  readonly progress?: (lines: number) => void
}

/**
 * Reads every line of a file a chunk at a time through `step`, stopping at the first bad line:
 * the first reading of `simulate`, so a bad line is said before anything is printed as a result.
 */
export const checkEveryLine = <S, Bad extends { readonly line: number; readonly field: string; readonly problem: string }>(
  file: string, start: S, step: (state: S, text: string) => { readonly ok: true; readonly state: S } | { readonly ok: false; readonly bad: Bad },
) =>
  Stream.runFold(lineChunks(file), (): { readonly at: S } | { readonly bad: Bad } => ({ at: start }), (s, lines) => {
    if ("bad" in s) return s
    let at = s.at
    for (const text of lines) {
      const r = step(at, text)
      if (!r.ok) return { bad: r.bad }
      at = r.state
    }
    return { at }
  }).pipe(
    Effect.mapError((e: FileUnreadable | LineRefused) => new BadInput({ said: e.message })),
    Effect.flatMap((s) => ("bad" in s ? Effect.fail(new BadInput({ said: `${file}:${s.bad.line}: ${s.bad.field}: ${s.bad.problem}` })) : Effect.succeed(s.at))),
  )
