// Writing to standard output without holding more than the pipe will take: a slow reader of
// `simulate --json` slows the replay down rather than filling memory.
import { closeSync, openSync, rmSync, type Stats, statSync } from "node:fs"
import { rename, rm, writeFile } from "node:fs/promises"
import { basename, dirname, join } from "node:path"
import * as Effect from "effect/Effect"
import { errorText } from "@mesh-core/core/text/error-text"
import { shown } from "@mesh-core/core/text/terminal-text"

export const writeOut = (text: string): Effect.Effect<void> =>
  text === ""
    ? Effect.void
    : Effect.callback<void>((resume) => {
        if (process.stdout.write(text)) resume(Effect.void)
        else process.stdout.once("drain", () => resume(Effect.void))
      })

/**
 * Lines for a terminal, the one way text a person reads leaves this program on standard output:
 * each line shown as core/src/shown.ts says (issue 43), so no control character from outside acts
 * on the terminal and no LF inside a field forges a line.
 */
export const writeLines = (lines: ReadonlyArray<string>): Effect.Effect<void> =>
  writeOut(`${lines.map(shown).join("\n")}\n`)

export const writeErr = (text: string): Effect.Effect<void> => Effect.sync(() => void process.stderr.write(text))

/**
 * Why `out` cannot take a file written whole, said before anything is done (issue 43: `simulate F
 * --html F` emptied the fact log F, and `--html /dev/full` failed only after the whole replay was
 * printed): a path naming one of `inputs` (by any name: a hard link, a symlink), one that is not a
 * regular file, or a folder where nothing can be made beside it. Undefined when it can.
 */
export const cannotWriteOver = (out: string, inputs: ReadonlyArray<string>): string | undefined => {
  let was: Stats | undefined
  try {
    was = statSync(out)
  } catch {
    was = undefined
  }
  if (was !== undefined) {
    if (!was.isFile()) return "not a regular file; give a file to write to"
    for (const input of inputs) {
      const i = statSync(input, { throwIfNoEntry: false })
      if (i !== undefined && i.dev === was.dev && i.ino === was.ino)
        return `is ${input}, which is read (the same file${input === out ? "" : " by another name"}); give another`
    }
  }
  const beside = besideOf(out)
  try {
    closeSync(openSync(beside, "wx", 0o600))
    rmSync(beside, { force: true })
  } catch (e) {
    return errorText(e)
  }
  return undefined
}

const besideOf = (out: string) => join(dirname(out), `.${basename(out)}.${process.pid}.tmp`)

/** Writes `text` beside `out` and renames it into place: a failed write leaves what was there. */
export const writeBeside = (out: string, text: string): Effect.Effect<void, Error> =>
  Effect.tryPromise({
    try: async () => {
      const beside = besideOf(out)
      try {
        await writeFile(beside, text, { encoding: "utf8", mode: 0o644 })
        await rename(beside, out)
      } finally {
        await rm(beside, { force: true })
      }
    },
    catch: (e) => new Error(errorText(e), { cause: e }),
  })
