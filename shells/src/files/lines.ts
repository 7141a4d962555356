// A file's lines as a stream, read a chunk at a time so memory stays flat however long the file.
// A name ending in .gz is read through gunzip: recorded days are kept compressed.
//
// Bad input is refused, never waited on or buffered whole (issue 14): a line longer than
// `maxLineBytes` is refused as soon as that many bytes of it have been read (a 203 KB .gz that
// expands to one 200 MB line took 400 s and gigabytes before), bytes that are not UTF-8 are refused,
// and a fifo, a directory or a device is refused before it is opened (a named pipe hung for ever).
import { closeSync, constants, createReadStream, fstatSync, openSync, readSync, type Stats, statSync } from "node:fs"
import { type FileHandle, open } from "node:fs/promises"
import { pipeline } from "node:stream"
import { createGunzip } from "node:zlib"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { errorText } from "@mesh-core/core/text/error-text"

/** The longest line a fact log may have: a contributions document of thousands of consumers fits. */
export const maxLineBytes = 16 * 1024 * 1024

export class FileUnreadable extends Data.TaggedError("FileUnreadable")<{
  readonly file: string
  readonly reason: string
  readonly cause?: unknown
}> {
  override get message(): string {
    return `${this.file}: cannot be read: ${this.reason}`
  }
}

/** A line that cannot be a fact log's: `FILE:LINE: (line): problem`. */
export class LineRefused extends Data.TaggedError("LineRefused")<{
  readonly file: string
  readonly line: number
  readonly problem: string
}> {
  override get message(): string {
    return `${this.file}:${this.line}: (line): ${this.problem}`
  }
}

/** What a path is when it is not a regular file (by FileSystem's names for types), or undefined when it is one. */
const kindOf = (type: string): string | undefined =>
  type === "File"
    ? undefined
    : (({ Directory: "a directory", FIFO: "a named pipe (fifo)", Socket: "a socket" } as Record<string, string>)[
        type
      ] ?? (type.endsWith("Device") ? "a device" : "not a regular file"))

const notRegular = (s: Stats): string | undefined =>
  s.isFile()
    ? undefined
    : kindOf(
        s.isDirectory()
          ? "Directory"
          : s.isFIFO()
            ? "FIFO"
            : s.isSocket()
              ? "Socket"
              : s.isCharacterDevice() || s.isBlockDevice()
                ? "Device"
                : "",
      )

/**
 * Why `file` cannot be read as a file, said from its metadata alone (stat opens nothing, so a fifo
 * cannot hang it): what it is when it is there and not a regular file, or undefined (a regular file,
 * or nothing there yet).
 */
export const notAFile = (file: string): string | undefined => {
  try {
    return notRegular(statSync(file))
  } catch {
    return undefined
  }
}

/** Checks the file is a regular file that can be opened, so anything else is said before anything is done. */
export const canOpen = (file: string): Effect.Effect<void, FileUnreadable> =>
  Effect.suspend(() => {
    let kind: string | undefined
    try {
      kind = notRegular(statSync(file))
    } catch (e) {
      return Effect.fail(new FileUnreadable({ file, reason: errorText(e), cause: e }))
    }
    if (kind !== undefined) return Effect.fail(new FileUnreadable({ file, reason: `${kind}; give a fact log file` }))
    return Effect.callback<void, FileUnreadable>((resume) => {
      const s = createReadStream(file)
      s.once("open", () => {
        s.destroy()
        resume(Effect.void)
      })
      s.once("error", (e) => resume(Effect.fail(new FileUnreadable({ file, reason: errorText(e), cause: e }))))
    })
  })

/** How much each small input may be, read whole (issue 43: `--outbox /dev/full` read 22 GB and ignored SIGTERM). */
export const readLimits = {
  /** A contributions document, a declaration, an outbox: thousands of consumers or owed words. */
  document: maxLineBytes,
  /** A key or a secret: one line. */
  key: 64 * 1024,
} as const

class Unreadable extends Error {}

/**
 * A small file of this program's own (a key, a lock's process id) read at once, the same way as
 * `readBounded`: opened without waiting, refused unless a regular file of at most `most` bytes.
 */
export const readSmallFile = (file: string, most: number): string => {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK)
  try {
    const stat = fstatSync(fd)
    const kind = notRegular(stat)
    if (kind !== undefined || stat.size > most)
      throw new Error(`${file}: ${kind ?? `${stat.size} bytes, over the ${most} it may be`}`)
    const buffer = Buffer.alloc(most)
    return buffer.subarray(0, readSync(fd, buffer, 0, most, 0)).toString("utf8")
  } finally {
    closeSync(fd)
  }
}

/**
 * A regular file's text, read whole only when it is at most `most` bytes: anything else (a device, a
 * fifo, a socket, a directory, a larger file) is refused before a byte is read. Opened without
 * waiting (O_NONBLOCK: a fifo swapped in for the file is opened at once, then refused by what it is,
 * never left waiting for a writer, which held the process past SIGTERM) and read a piece at a time,
 * stopping when interrupted, so a signal is honoured whatever is being read.
 */
export const readBounded = (file: string, most: number): Effect.Effect<string, FileUnreadable> =>
  Effect.tryPromise({
    try: async (signal) => {
      const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK)
      try {
        const stat = await handle.stat()
        const kind = notRegular(stat)
        if (kind !== undefined) throw new Unreadable(`${kind}; give a regular file`)
        if (stat.size > most) throw new Unreadable(`${stat.size} bytes, over the ${most} it may be`)
        const pieces: Array<Buffer> = []
        let total = 0
        for (;;) {
          if (signal.aborted) throw new Unreadable("interrupted")
          const piece = Buffer.allocUnsafe(Math.min(1 << 20, most + 1 - total))
          const { bytesRead } = await handle.read(piece, 0, piece.length, null)
          if (bytesRead === 0) break
          pieces.push(piece.subarray(0, bytesRead))
          total += bytesRead
          if (total > most) throw new Unreadable(`grew over the ${most} bytes it may be as it was read`)
        }
        return Buffer.concat(pieces, total).toString("utf8")
      } finally {
        await handle.close()
      }
    },
    catch: (e) => new FileUnreadable({ file, reason: e instanceof Unreadable ? e.message : errorText(e), cause: e }),
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

const tooLong = (line: number, limit: number) =>
  new Refusal(line, `longer than ${limit} bytes, the most a fact log's line may be`)

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
 * How much is read at a time. A plain file is read into one buffer reused for every read. A gzipped
 * one is read 64 KiB at a time and gunzip hands its output on in 64 KiB pieces, pausing (its own
 * backpressure, even within one read) while a piece is waiting: what is held at once is bounded by
 * the pieces, not by the read, however far a log expands (20 to 35 times).
 */
const readBytes = { plain: 1 << 20, gzipped: 1 << 16 }

/**
 * A full GC every 64 MiB of lines read, when Node was started with --expose-gc (`npm run simulate`
 * is). Lines a young-generation GC finds still held are promoted, and V8 let the old generation's
 * garbage grow before collecting it on some runs and not on others: 121-162 MiB peak for the same
 * provider's week (issue 11). Every 256 MiB still left a provider's day at 119-150 MiB once gunzip ran
 * beside the replay (the garbage pieces' memory is given back only by a full GC); every 64 MiB keeps
 * it at 119-120 for ~2% of the CPU time, each collection ~10 ms with the ~15 MiB a replay keeps.
 */
const collectEvery = 64 * (1 << 20)

/** Arrays of whole lines, in order; the last line need not end in a newline. */
export const lineChunks = (
  file: string,
  limit = maxLineBytes,
  reads = readBytes,
): Stream.Stream<ReadonlyArray<string>, FileUnreadable | LineRefused> =>
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
    // Gunzip runs on libuv's thread pool while this thread splits and replays the piece before:
    // one piece is inflated ahead of the one being read, never more (the stream's backpressure).
    // Waiting on each read to be inflated before splitting it left this thread idle for the whole
    // of gunzip's time, a sixth of a controller's day (issue 11, eighth pass in docs/simulate.md).
    async function* gzipped(handle: FileHandle): AsyncGenerator<ReadonlyArray<string>> {
      const source = handle.createReadStream({ start: 0, highWaterMark: reads.gzipped, autoClose: false })
      // gunzip's default 16 KiB output chunk made inflating cost four times what it does in bigger ones.
      const gunzip = createGunzip({ chunkSize: 1 << 16 })
      // A read's error or gunzip's ends the loop below with it; the callback only has to be there.
      pipeline(source, gunzip, () => {})
      try {
        for await (const out of gunzip as AsyncIterable<Uint8Array>) {
          const lines = splitter.push(out)
          if (lines.length > 0) yield lines
        }
        const last = splitter.end()
        if (last.length > 0) yield last
      } finally {
        gunzip.destroy()
        source.destroy()
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
      e instanceof Refusal
        ? new LineRefused({ file, line: e.line, problem: e.problem })
        : new FileUnreadable({ file, reason: errorText(e), cause: e }),
    )
  })
