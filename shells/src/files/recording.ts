// A fact log opened to record in, the same way for every recorder (the provider's `provide --record`,
// the controller's `serve --record`): it **appends** (issue 8: a restarted run with the same file adds
// to the day, never truncates it), a last line torn by a kill mid-write is cut off and said, and a log
// the caller cannot append to (another provider's, another area's) is refused before anything is
// written. What the first line must be, and the header or `started` line written, are the caller's.
import { closeSync, constants, fstatSync, ftruncateSync, openSync, readSync, writeSync } from "node:fs"
import { Data } from "effect"
import { errorText } from "@mesh-core/core/text/error-text"
import { notAFile } from "./lines.ts"

export class RecordingUnusable extends Data.TaggedError("RecordingUnusable")<{
  readonly file: string
  readonly reason: string
  readonly cause?: unknown
}> {
  override get message(): string {
    return `--record ${this.file}: ${this.reason}`
  }
}

const firstLineOf = (fd: number, size: number): string => {
  const most = Math.min(size, 1 << 20)
  const buffer = Buffer.alloc(most)
  const n = readSync(fd, buffer, 0, most, 0)
  const text = buffer.subarray(0, n).toString("utf8")
  const end = text.indexOf("\n")
  return end < 0 ? text : text.slice(0, end)
}

/** Where the last whole line ends: a line torn by a kill mid-write is everything after it. */
const endOfLastLine = (fd: number, size: number): number => {
  const chunk = Buffer.alloc(64 * 1024)
  let end = size
  while (end > 0) {
    const start = Math.max(0, end - chunk.length)
    const n = readSync(fd, chunk, 0, end - start, start)
    const at = chunk.subarray(0, n).lastIndexOf(0x0a)
    if (at >= 0) return start + at + 1
    end = start
  }
  return 0
}

type Accepts = (firstLine: string) => { readonly ok: true } | { readonly ok: false; readonly problem: string }

/**
 * Whether `file` can be appended to, asked before anything else is opened (issue 27: a recording path
 * that could not be written was refused only after the store and the bus were opened and the
 * migrations run), and, when it has a whole first line, whether `accepts` takes it (issue 43: a file
 * that is not a recording was refused only after the store opened). Creates it (empty, 0600) when it
 * is not there, as the recording would.
 */
export const canAppend = (file: string, accepts?: Accepts): RecordingUnusable | undefined => {
  // issue 43: opening a fifo to write waits for a reader, for ever
  const kind = notAFile(file)
  if (kind !== undefined) return new RecordingUnusable({ file, reason: `${kind}; give a file` })
  try {
    const fd = openSync(file, constants.O_RDONLY | constants.O_CREAT, 0o600)
    try {
      closeSync(openSync(file, constants.O_WRONLY | constants.O_APPEND))
      const stat = fstatSync(fd)
      if (!stat.isFile()) return new RecordingUnusable({ file, reason: "not a regular file" })
      const first = stat.size > 0 && accepts !== undefined ? firstLineOf(fd, stat.size) : undefined
      const can = first === undefined || first.length === Math.min(stat.size, 1 << 20) ? undefined : accepts?.(first)
      return can === undefined || can.ok ? undefined : new RecordingUnusable({ file, reason: can.problem })
    } finally {
      closeSync(fd)
    }
  } catch (e) {
    return new RecordingUnusable({ file, reason: errorText(e), cause: e })
  }
}

export interface AppendingLog {
  readonly fd: number
  /** The bytes kept from before (0: a new log, which needs its header). */
  readonly kept: number
  /** What the shell should say about the file it found, if anything. */
  readonly note: string | undefined
  /**
   * Writes whole lines at the end, in one write, so lines written together stay together. A write
   * that fails (a full disk, an I/O error) cuts the file back to its last whole line and answers why;
   * every write after it answers the same, writing nothing.
   */
  readonly write: (lines: ReadonlyArray<string>) => { readonly ok: true } | { readonly ok: false; readonly why: string }
  readonly close: () => void
}

/**
 * Opens `file` to append to: created (mode 0600) if need be, a torn last line cut off, and a file that
 * is not empty checked by `accepts` on its first line. Throws RecordingUnusable when it cannot be used.
 */
export const openAppendingLog = (file: string, accepts: Accepts): AppendingLog => {
  let fd: number
  try {
    fd = openSync(file, constants.O_RDWR | constants.O_CREAT | constants.O_APPEND, 0o600)
  } catch (e) {
    throw new RecordingUnusable({ file, reason: errorText(e), cause: e })
  }
  try {
    const stat = fstatSync(fd)
    if (!stat.isFile()) throw new RecordingUnusable({ file, reason: "not a regular file" })
    let note: string | undefined
    let size = stat.size
    const whole = endOfLastLine(fd, size)
    if (whole < size) {
      ftruncateSync(fd, whole)
      note = `recording: the last line of ${file} was cut short (${size - whole} bytes, a stop mid-write); dropped`
      size = whole
    }
    if (size > 0) {
      const can = accepts(firstLineOf(fd, size))
      if (!can.ok) throw new RecordingUnusable({ file, reason: can.problem })
      note = `${note === undefined ? "" : `${note}; `}recording: appending to ${file} after its ${whole} bytes`
    }
    const open = fd
    let closed = false
    let end = size
    let failed: string | undefined
    return {
      fd: open,
      kept: size,
      note,
      write: (lines) => {
        if (failed !== undefined) return { ok: false, why: failed }
        if (lines.length === 0) return { ok: true }
        const bytes = Buffer.from(`${lines.join("\n")}\n`, "utf8")
        try {
          // A write may take fewer bytes than asked (a disk filling up): the rest is written after it.
          for (let at = 0; at < bytes.length; ) at += writeSync(open, bytes, at, bytes.length - at)
          end += bytes.length
          return { ok: true }
        } catch (e) {
          failed = errorText(e)
          try {
            ftruncateSync(open, end)
          } catch {
            // Cut back by the next start, which drops a torn last line (endOfLastLine).
          }
          return { ok: false, why: failed }
        }
      },
      close: () => {
        if (!closed) (closed = true), closeSync(open)
      },
    }
  } catch (e) {
    closeSync(fd)
    throw e
  }
}
