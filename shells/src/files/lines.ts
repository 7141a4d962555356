// A file's lines as a stream, read a chunk at a time so memory stays flat however long the file.
// A name ending in .gz is read through gunzip: recorded days are kept compressed.
import { createReadStream } from "node:fs"
import { createGunzip } from "node:zlib"
import { Data, Effect, Stream } from "effect"

export class FileUnreadable extends Data.TaggedError("FileUnreadable")<{ readonly file: string; readonly reason: string }> {
  override get message(): string {
    return `${this.file}: cannot be read: ${this.reason}`
  }
}

const reasonOf = (e: unknown): string => (e instanceof Error ? e.message : String(e))

/** Checks the file can be opened, so a missing one is said before anything else is done. */
export const canOpen = (file: string): Effect.Effect<void, FileUnreadable> =>
  Effect.callback<void, FileUnreadable>((resume) => {
    const s = createReadStream(file)
    s.once("open", () => {
      s.destroy()
      resume(Effect.void)
    })
    s.once("error", (e) => resume(Effect.fail(new FileUnreadable({ file, reason: reasonOf(e) }))))
  })

/** Arrays of whole lines, in order; the last line need not end in a newline. */
export const lineChunks = (file: string): Stream.Stream<ReadonlyArray<string>, FileUnreadable> =>
  Stream.suspend(() => {
    const raw = createReadStream(file, { highWaterMark: 1 << 20 })
    const source = file.endsWith(".gz") ? raw.pipe(createGunzip()) : raw
    raw.on("error", (e) => source.destroy(e))
    const decoder = new TextDecoder("utf-8")
    let partial = ""
    async function* chunks(): AsyncGenerator<ReadonlyArray<string>> {
      for await (const buffer of source as AsyncIterable<Uint8Array>) {
        const text = partial + decoder.decode(buffer, { stream: true })
        const lines = text.split("\n")
        partial = lines.pop()!
        if (lines.length > 0) yield lines
      }
      const rest = partial + decoder.decode()
      if (rest !== "") yield [rest]
    }
    return Stream.fromAsyncIterable(chunks(), (e) => new FileUnreadable({ file, reason: reasonOf(e) }))
  })
