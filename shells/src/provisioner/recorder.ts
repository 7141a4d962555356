// Writing the facts fed to the core in the fact-log format. A password never reaches the file: a
// secret read is written as a keyed fingerprint of the password the core compares (see
// core/src/provisioner/log.ts). The key is kept beside the log (FILE.key, mode 0600), never in it, so a
// log that leaks cannot be used to check guesses offline (issue 14).
import { randomBytes } from "node:crypto"
import { appendingTo, fingerprintWith, headerLine, lineOf, startedLine } from "@mesh-core/core/provisioner/log-writing"
import { type Fact, passwordIn, type Provider, type Settings } from "@mesh-core/core/provisioner/model"
import { factOf } from "@mesh-core/core/provisioner/questions"
import { passwordForms } from "@mesh-core/core/provisioner/scrub"
import { writeFileSync } from "node:fs"
import { readSmallFile } from "../files/lines.ts"
import { openAppendingLog, RecordingUnusable } from "../files/recording.ts"
import { errorText } from "@mesh-core/core/text/error-text"
import type { Answered } from "../program/drive.ts"

export { RecordingUnusable }

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
      const known = fact.fact === "pass" ? [] : (forms.get(fact.as) ?? [])
      const line = JSON.stringify(lineOf(fact, fingerprint, lastDocument, known))
      if (fact.fact === "pass" && fact.document.read === "ok") lastDocument = fact.document.text
      return line
    },
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
  const text = readSmallFile(keyFile, 1024).trim()
  if (!/^[0-9a-f]{64}$/.test(text)) throw new Error(`${keyFile} is not a key this recorder wrote (64 hex digits)`)
  return Buffer.from(text, "hex")
}

export interface OpenRecording {
  readonly fd: number
  readonly write: (fact: Fact) => void
  /** Writes what the driver answered the pass, when it is a fact of the log (an announcement is not). */
  readonly answered: (answered: Answered) => void
  readonly close: () => void
  /** What the shell should say about the file it found, if anything. */
  readonly note: string | undefined
  /** Why the recording stopped (a write that failed: issue 27), or undefined while it records. */
  readonly stopped: () => string | undefined
}

/**
 * Opens a log to record in (files/recording.ts: appending, a torn last line cut): a new one gets the
 * header, an existing one of the same provider a `started` line. Never truncates what was recorded
 * before (issue 8).
 */
export const openRecording = (file: string, provider: Provider, settings: Settings, now: Date): OpenRecording => {
  const log = openAppendingLog(file, (first) => appendingTo(first, provider))
  try {
    const key = (() => {
      try {
        return keyFor(file)
      } catch (e) {
        throw new RecordingUnusable({ file, reason: errorText(e), cause: e })
      }
    })()
    const recorder = makeRecorder(provider, settings, now, key)
    let stopped: string | undefined
    const kept = (lines: ReadonlyArray<string>) => {
      const written = log.write(lines)
      if (!written.ok) stopped ??= written.why
    }
    kept([log.kept === 0 ? recorder.header() : recorder.started()])
    const write = (fact: Fact) => kept([recorder.line(fact)])
    const answered = ({ a }: Answered) => {
      const fact = factOf(a)
      if (fact !== undefined) write(fact)
    }
    return { fd: log.fd, write, answered, close: log.close, note: log.note, stopped: () => stopped }
  } catch (e) {
    log.close()
    throw e
  }
}
