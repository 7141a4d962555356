// A file's lines as a stream, read a chunk at a time so memory stays flat however long the file.
// A name ending in .gz is read through gunzip: recorded days are kept compressed.
//
// Bad input is refused, never waited on or buffered whole (issue 14): a line longer than
// `maxLineBytes` is refused as soon as that many bytes of it have been read (a 203 KB .gz that
// expands to one 200 MB line took 400 s and gigabytes before), bytes that are not UTF-8 are refused,
// and a fifo, a directory or a device is refused before it is opened (a named pipe hung for ever).
import { createReadStream, statSync } from "node:fs"
import { type FileHandle, open } from "node:fs/promises"
import { createGunzip, type Gunzip } from "node:zlib"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"

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

const tooLong = (line: number, limit: number) => new Refusal(line, `longer than ${limit} bytes, the most a fact log's line may be`)

/**
 * Bytes in, whole lines out, in order: each piece is decoded and split as soon as it is handed
 * over, so no piece of the file is held after it (issue 11: pieces held until a full GC were most
 * of a week's peak memory). Throws a Refusal for bytes that are not UTF-8 or a line over `limit`.
 */
class LineSplitter {
  private readonly decoder = new TextDecoder("utf-8", { fatal: true })
  private partial = ""
  private partialBytes = 0
  private line = 0
  /** Bytes handed over so far. */
  taken = 0
  private readonly limit: number
  constructor(limit: number) {
    this.limit = limit
  }

  // Which line of the piece holds the bytes that are not UTF-8 (a sequence split across pieces is
  // the line under way's).
  private badLine(bytes: Uint8Array): number {
    let start = 0
    let n = this.line + 1
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

  private decode(bytes: Uint8Array, stream: boolean): string {
    try {
      return this.decoder.decode(bytes, { stream })
    } catch {
      throw new Refusal(this.badLine(bytes), "not UTF-8")
    }
  }

  /** The lines this piece ends (none when it ends none). */
  push(bytes: Uint8Array): Array<string> {
    this.taken += bytes.length
    const lastNewline = bytes.lastIndexOf(0x0a)
    if (lastNewline < 0) {
      // No line ends in this piece: it is all the line under way, counted before it is kept.
      this.partialBytes += bytes.length
      if (this.partialBytes > this.limit) throw tooLong(this.line + 1, this.limit)
      this.partial += this.decode(bytes, true)
      return []
    }
    const lines = (this.partial + this.decode(bytes, true)).split("\n")
    this.partial = lines.pop()!
    this.partialBytes = bytes.length - lastNewline - 1
    for (const l of lines) {
      this.line += 1
      if (l.length > this.limit) throw tooLong(this.line, this.limit)
    }
    if (this.partialBytes > this.limit) throw tooLong(this.line + 1, this.limit)
    return lines
  }

  /** The last line, when the file does not end in a newline. */
  end(): Array<string> {
    const rest = this.partial + this.decode(new Uint8Array(0), false)
    return rest === "" ? [] : [rest]
  }
}

/**
 * How much is read at a time, into one buffer reused for every read. A gzipped log expands 20 to 35
 * times and the lines of one read are all held until they are handed on, so its reads are small:
 * 4 KiB (~100 KiB of lines) kept a provider's week at 121-144 MiB, 16 KiB and 64 KiB at 220-280
 * (lines held across a young-generation GC are promoted, and the old generation grows).
 */
export const readBytes = { plain: 1 << 20, gzipped: 1 << 12 }

/**
 * Hands `piece` to gunzip and answers once gunzip has taken all of it (so the buffer may be read
 * into again), or fails with gunzip's error.
 */
const inflate = (gunzip: Gunzip, piece: Uint8Array): Promise<void> =>
  new Promise((resolve, reject) => {
    gunzip.once("error", reject)
    gunzip.write(piece, (e) => {
      gunzip.off("error", reject)
      if (e) reject(e)
      else resolve()
    })
  })

/** Ends gunzip's input and answers once its last output has been handed over. */
const inflateEnd = (gunzip: Gunzip): Promise<void> =>
  new Promise((resolve, reject) => {
    gunzip.once("error", reject)
    gunzip.once("end", () => {
      gunzip.off("error", reject)
      resolve()
    })
    gunzip.end()
  })

/**
 * A full GC every 256 MiB of lines read, when Node was started with --expose-gc (`npm run
 * simulate` is). Lines a young-generation GC finds still held are promoted, and V8 let the old
 * generation's garbage grow to ~100 MiB before collecting it on some runs of a provider's week and
 * not on others: 121-162 MiB peak for the same log (issue 11). Fourteen collections a week's log,
 * each a few tens of milliseconds with the ~35 MiB a replay keeps.
 */
const collectEvery = 256 * (1 << 20)

/** Arrays of whole lines, in order; the last line need not end in a newline. */
export const lineChunks = (file: string, limit = maxLineBytes, reads = readBytes): Stream.Stream<ReadonlyArray<string>, FileUnreadable | LineRefused> =>
  Stream.suspend(() => {
    const splitter = new LineSplitter(limit)
    async function* plain(handle: FileHandle): AsyncGenerator<ReadonlyArray<string>> {
      const buffer = Buffer.allocUnsafe(reads.plain)
      for (;;) {
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, null)
        if (bytesRead === 0) break
        const lines = splitter.push(buffer.subarray(0, bytesRead))
        if (lines.length > 0) yield lines
      }
      const last = splitter.end()
      if (last.length > 0) yield last
    }
    async function* gzipped(handle: FileHandle): AsyncGenerator<ReadonlyArray<string>> {
      const buffer = Buffer.allocUnsafe(reads.gzipped)
      // gunzip's default 16 KiB output chunk made inflating cost four times what it does in bigger ones.
      const gunzip = createGunzip({ chunkSize: 1 << 16 })
      // Each piece gunzip puts out is split into lines as it comes and dropped, never queued; a line
      // refused stops the splitting, and is thrown once gunzip has taken the piece under way.
      let ready: Array<ReadonlyArray<string>> = []
      let refused: unknown = undefined
      gunzip.on("data", (out: Uint8Array) => {
        if (refused !== undefined) return
        try {
          const lines = splitter.push(out)
          if (lines.length > 0) ready.push(lines)
        } catch (e) {
          refused = e
        }
      })
      const drain = function*() {
        if (refused !== undefined) throw refused
        const taken = ready
        ready = []
        yield* taken
      }
      try {
        for (;;) {
          const { bytesRead } = await handle.read(buffer, 0, buffer.length, null)
          if (bytesRead === 0) break
          await inflate(gunzip, buffer.subarray(0, bytesRead))
          yield* drain()
        }
        await inflateEnd(gunzip)
        yield* drain()
        const last = splitter.end()
        if (last.length > 0) yield last
      } finally {
        gunzip.destroy()
      }
    }
    async function* chunks(): AsyncGenerator<ReadonlyArray<string>> {
      const handle = await open(file, "r")
      try {
        let collected = 0
        for await (const lines of file.endsWith(".gz") ? gzipped(handle) : plain(handle)) {
          yield lines
          if (splitter.taken - collected >= collectEvery) {
            collected = splitter.taken
            globalThis.gc?.()
          }
        }
      } finally {
        await handle.close()
      }
    }
    return Stream.fromAsyncIterable(chunks(), (e) =>
      e instanceof Refusal ? new LineRefused({ file, line: e.line, problem: e.problem }) : new FileUnreadable({ file, reason: reasonOf(e) }))
  })
