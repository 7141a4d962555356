// Writing the facts fed to the core in the fact-log format. A password never reaches the file: a
// secret read is written as a keyed fingerprint of the password the core compares (see
// core/src/facts/log.ts). The key is kept beside the log (FILE.key, mode 0600), never in it, so a
// log that leaks cannot be used to check guesses offline (issue 14).
import { randomBytes } from "node:crypto"
import { appendingTo, fingerprintWith, headerLine, lineOf, startedLine } from "@mesh-core/core/facts/log"
import { type Fact, passwordIn, type Provider, type Settings } from "@mesh-core/core/provisioner/model"
import { passwordForms } from "@mesh-core/core/provisioner/scrub"
import {
  closeSync, constants, fstatSync, ftruncateSync, openSync, readFileSync, readSync, writeFileSync, writeSync,
} from "node:fs"
import { Data } from "effect"

/** Turns facts into log lines, one at a time; remembers the document last written in full. */
export const makeRecorder = (provider: Provider, settings: Settings, recorded: Date, key: Uint8Array) => {
  let lastDocument: string | undefined
  const forms = new Map<string, ReadonlyArray<string>>()
  const fingerprint = fingerprintWith(key)
  return {
    header: (): string => JSON.stringify(headerLine(provider, settings, recorded.toISOString())),
    /** The first line of a run appended to a log another run began. */
    started: (): string => JSON.stringify(startedLine(recorded.getTime(), settings, recorded.toISOString())),
    line: (fact: Fact): string => {
      if (fact.fact === "secret" && fact.read === "ok") forms.set(fact.as, passwordForms(passwordIn(fact.password)))
      const known = fact.fact === "pass" ? [] : forms.get(fact.as) ?? []
      const line = JSON.stringify(lineOf(fact, fingerprint, lastDocument, known))
      if (fact.fact === "pass" && fact.document.read === "ok") lastDocument = fact.document.text
      return line
    },
  }
}

export class RecordingUnusable extends Data.TaggedError("RecordingUnusable")<{ readonly file: string; readonly reason: string }> {
  override get message(): string {
    return `--record ${this.file}: ${this.reason}`
  }
}

const keyBytes = 32

/** The log's key: made at the first recording, read again when appending. */
const keyFor = (file: string): Uint8Array => {
  const keyFile = `${file}.key`
  try {
    // wx: never replaces a key another run made, so appended fingerprints stay comparable.
    const key = randomBytes(keyBytes)
    writeFileSync(keyFile, `${key.toString("hex")}\n`, { mode: 0o600, flag: "wx" })
    return key
  } catch (e) {
    if (!(e instanceof Error && "code" in e && e.code === "EEXIST")) throw e
  }
  const text = readFileSync(keyFile, "utf8").trim()
  if (!/^[0-9a-f]{64}$/.test(text)) throw new Error(`${keyFile} is not a key this recorder wrote (64 hex digits)`)
  return Buffer.from(text, "hex")
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

export interface OpenRecording {
  readonly fd: number
  readonly write: (fact: Fact) => void
  /** What the shell should say about the file it found, if anything. */
  readonly note: string | undefined
}

/**
 * Opens a log to record in: a new one gets the header, an existing one of the same provider gets a
 * `started` line after its last whole line (a torn last line, left by a kill, is cut off and said).
 * Never truncates what was recorded before (issue 8).
 */
export const openRecording = (file: string, provider: Provider, settings: Settings, now: Date): OpenRecording => {
  let fd: number
  try {
    fd = openSync(file, constants.O_RDWR | constants.O_CREAT | constants.O_APPEND, 0o600)
  } catch (e) {
    throw new RecordingUnusable({ file, reason: e instanceof Error ? e.message : String(e) })
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
      const can = appendingTo(firstLineOf(fd, size), provider)
      if (!can.ok) throw new RecordingUnusable({ file, reason: can.problem })
    }
    const key = (() => {
      try {
        return keyFor(file)
      } catch (e) {
        throw new RecordingUnusable({ file, reason: e instanceof Error ? e.message : String(e) })
      }
    })()
    const recorder = makeRecorder(provider, settings, now, key)
    writeSync(fd, `${size === 0 ? recorder.header() : recorder.started()}\n`)
    if (size > 0) note = `${note === undefined ? "" : `${note}; `}recording: appending to ${file} after its ${whole} bytes`
    return { fd, write: (fact: Fact) => void writeSync(fd, `${recorder.line(fact)}\n`), note }
  } catch (e) {
    closeSync(fd)
    throw e
  }
}
