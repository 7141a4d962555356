// What `simulate` prints, held until the whole log has been read: the log is checked and replayed
// in one reading (reading it twice was half of simulate's time, issue 11), and a bad line must
// still stop it before anything is printed as a result. Held in memory up to a few MiB, then in a
// file of its own in the temp dir (a week replayed with --json is gigabytes of decisions), so
// memory stays flat however long the log.
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Effect from "effect/Effect"
import type { Scope } from "effect"
import { writeOut } from "../files/output.ts"

const writeBytes = (bytes: Uint8Array): Effect.Effect<void> =>
  Effect.callback<void>((resume) => {
    if (process.stdout.write(bytes)) resume(Effect.void)
    else process.stdout.once("drain", () => resume(Effect.void))
  })

/** How much is held in memory before it goes to the file. */
const inMemory = 4 << 20

export interface HeldOutput {
  /** Holds one more piece of output. */
  readonly push: (text: string) => void
  /** Writes everything held to standard output, in order. */
  readonly release: Effect.Effect<void>
}

/** Output held for the life of the scope; the file it may have used is removed when the scope closes. */
export const heldOutput: Effect.Effect<HeldOutput, never, Scope.Scope> = Effect.acquireRelease(
  Effect.sync(() => {
    let parts: Array<string> = []
    let size = 0
    let spill: { readonly dir: string; readonly fd: number } | undefined
    const toFile = () => {
      if (spill === undefined) {
        const dir = mkdtempSync(join(tmpdir(), "mesh-core-simulate-"))
        spill = { dir, fd: openSync(join(dir, "held"), "w+", 0o600) }
      }
      writeSync(spill.fd, parts.join(""))
      parts = []
      size = 0
    }
    const release = Effect.gen(function* () {
      if (spill !== undefined) {
        let position = 0
        for (;;) {
          // A buffer each time: the one written last may still be queued on the way out.
          const buffer = Buffer.allocUnsafe(1 << 20)
          const n = readSync(spill.fd, buffer, 0, buffer.length, position)
          if (n === 0) break
          position += n
          // Bytes as they were held: a piece cut mid-character is whole again on the other side.
          yield* writeBytes(buffer.subarray(0, n))
        }
      }
      yield* writeOut(parts.join(""))
      parts = []
      size = 0
    })
    const close = () => {
      if (spill === undefined) return
      closeSync(spill.fd)
      rmSync(spill.dir, { recursive: true, force: true })
      spill = undefined
    }
    return {
      push: (text: string) => {
        parts.push(text)
        size += text.length
        if (size > inMemory) toFile()
      },
      release,
      close,
    }
  }),
  (held) => Effect.sync(held.close),
)
