// A file's lines as a stream, read a chunk at a time so memory stays flat however long the file.
// A name ending in .gz is read through gunzip: recorded days are kept compressed.
//
// Bad input is refused, never waited on or buffered whole (issue 14): a line longer than
// `maxLineBytes` is refused as soon as that many bytes of it have been read (a 203 KB .gz that
// expands to one 200 MB line took 400 s and gigabytes before), bytes that are not UTF-8 are refused,
// and a fifo, a directory or a device is refused before it is opened (a named pipe hung for ever).
import { createReadStream, statSync } from "node:fs"
import { createGunzip } from "node:zlib"
import { Data, Effect, Stream } from "effect"

/** The longest line a fact log may have: a contributions document of thousands of consumers fits. */
export const maxLineBytes = 16 * 1024 * 1024

export class FileUnreadable extends Data.TaggedError("FileUnreadable")<{ readonly file: string; readonly reason: string }> {
  override get message(): string {
    return `${this.file}: cannot be read: ${this.reason}`
  }
}

/** A line that cannot be a fact log's: `FILE:LINE: (line): problem`. */
export class LineRefused extends Data.TaggedError("LineRefused")<{ readonly file: string; readonly line: number; readonly problem: string }> {
  override get message(): string {
    return `${this.file}:${this.line}: (line): ${this.problem}`
  }
}

const reasonOf = (e: unknown): string => (e instanceof Error ? e.message : String(e))

/** Checks the file is a regular file that can be opened, so anything else is said before anything is done. */
export const canOpen = (file: string): Effect.Effect<void, FileUnreadable> =>
  Effect.suspend(() => {
    let kind: string
    try {
      const s = statSync(file)
      kind = s.isFile() ? "file" : s.isDirectory() ? "a directory" : s.isFIFO() ? "a named pipe (fifo)" : "not a regular file"
    } catch (e) {
      return Effect.fail(new FileUnreadable({ file, reason: reasonOf(e) }))
    }
    if (kind !== "file") return Effect.fail(new FileUnreadable({ file, reason: `${kind}; give a fact log file` }))
    return Effect.callback<void, FileUnreadable>((resume) => {
      const s = createReadStream(file)
      s.once("open", () => {
        s.destroy()
        resume(Effect.void)
      })
      s.once("error", (e) => resume(Effect.fail(new FileUnreadable({ file, reason: reasonOf(e) }))))
    })
  })

class Refusal extends Error {
  readonly line: number
  readonly problem: string
  constructor(line: number, problem: string) {
    super(problem)
    this.line = line
    this.problem = problem
  }
}

/** Arrays of whole lines, in order; the last line need not end in a newline. */
export const lineChunks = (file: string, limit = maxLineBytes): Stream.Stream<ReadonlyArray<string>, FileUnreadable | LineRefused> =>
  Stream.suspend(() => {
    const raw = createReadStream(file, { highWaterMark: 1 << 20 })
    // gunzip's default 16 KiB output chunk made inflating cost four times what it does in 256 KiB ones.
    const source = file.endsWith(".gz") ? raw.pipe(createGunzip({ chunkSize: 1 << 16 })) : raw
    raw.on("error", (e) => source.destroy(e))
    const decoder = new TextDecoder("utf-8", { fatal: true })
    let partial = ""
    let partialBytes = 0
    let line = 0
    // Which line of the chunk holds the bytes that are not UTF-8 (a sequence split across chunks is
    // the line under way's).
    const badLine = (bytes: Uint8Array): number => {
      let start = 0
      let n = line + 1
      for (;;) {
        const end = bytes.indexOf(0x0a, start)
        if (end < 0) return n
        try {
          new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(start, end))
        } catch {
          return n
        }
        start = end + 1
        n += 1
      }
    }
    const decode = (bytes: Uint8Array, stream: boolean): string => {
      try {
        return decoder.decode(bytes, { stream })
      } catch {
        throw new Refusal(badLine(bytes), "not UTF-8")
      }
    }
    async function* chunks(): AsyncGenerator<ReadonlyArray<string>> {
      try {
        for await (const buffer of source as AsyncIterable<Uint8Array>) {
          const lastNewline = buffer.lastIndexOf(0x0a)
          if (lastNewline < 0) {
            // No line ends in this chunk: it is all the line under way, counted before it is kept.
            partialBytes += buffer.length
            if (partialBytes > limit) throw new Refusal(line + 1, `longer than ${limit} bytes, the most a fact log's line may be`)
            partial += decode(buffer, true)
            continue
          }
          const text = partial + decode(buffer, true)
          const lines = text.split("\n")
          partial = lines.pop()!
          partialBytes = buffer.length - lastNewline - 1
          for (const l of lines) {
            line += 1
            if (l.length > limit) throw new Refusal(line, `longer than ${limit} bytes, the most a fact log's line may be`)
          }
          if (partialBytes > limit) throw new Refusal(line + 1, `longer than ${limit} bytes, the most a fact log's line may be`)
          yield lines
        }
        const rest = partial + decode(new Uint8Array(0), false)
        if (rest !== "") yield [rest]
      } finally {
        source.destroy()
        raw.destroy()
      }
    }
    return Stream.fromAsyncIterable(chunks(), (e) =>
      e instanceof Refusal ? new LineRefused({ file, line: e.line, problem: e.problem }) : new FileUnreadable({ file, reason: reasonOf(e) }))
  })
