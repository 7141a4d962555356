// The fact log: JSON Lines, one timestamped fact a line, the inputs a shell fed the core. Its first
// line names the format, its version, the area and who recorded it; every later line is a fact.
// A live provider records it (`--record`), `simulate` replays it. The format is defined here only.
//
// A consumer's password is never in a log: a secret read is recorded as a fingerprint of what was
// read, which the replay hands the core in the password's place. The core only compares passwords
// and scrubs them from errors, and both come out the same for a fingerprint (errors are recorded
// already scrubbed). The fingerprint is keyed (HMAC-SHA-256 with a key kept beside the log, never in
// it, issue 14) so a log cannot be used to check guesses offline, and it is taken of the password the
// core compares, not of the file's text (issue 8: a secret file that gained a trailing newline made
// the replay ask what the day never answered).
//
// A recording appends: a provider restarted with the same file writes a `started` line, and the
// core's memory is empty from there, as the restarted process's was (issue 8).
import * as Schema from "effect/Schema"
import { firstIssue } from "../decoding.ts"
import { type AnswerFact, type DocumentRead, type Fact, type Provider, settingNames, type Settings } from "./model.ts"
import { settingValue } from "./settings.ts"
import { withRecorderShape } from "../recorder-time.ts"
import { jsonOf, NotJson } from "../json.ts"

export const formatName = "mesh-core.facts"
export const formatVersion = 1

/** Each of the loop's settings as a duration's text, any of them left out (the default then). */
const SettingsLine = Schema.Struct(
  Object.fromEntries(settingNames.map((n) => [n, Schema.optionalKey(Schema.String)])) as {
    readonly [K in keyof Settings]: Schema.optionalKey<Schema.String>
  },
)

export const HeaderLine = Schema.Struct({
  format: Schema.Literal(formatName),
  version: Schema.Literal(formatVersion),
  area: Schema.Literal("provisioner"),
  provider: Schema.Struct({ resource: Schema.String, receives: Schema.String, node: Schema.String }),
  settings: Schema.optionalKey(SettingsLine),
  recorded: Schema.optionalKey(Schema.String),
})
export type HeaderLine = typeof HeaderLine.Type

const at = Schema.String
const as = Schema.String
const adapterClass = Schema.optionalKey(Schema.String)
/** A call that failed: for whom, and the error as the backend gave it (scrubbed of the password). */
const failedCall = { as, outcome: Schema.Literal("error"), error: Schema.String }
/** A fact line of `fact`: its time and kind, then its own fields, in the order a recorder writes them. */
const factLine = <K extends string, F extends Schema.Struct.Fields>(fact: K, fields: F) =>
  Schema.Struct({ at, fact: Schema.Literal(fact), ...fields })
const doc = <F extends Schema.Struct.Fields>(fields: F) => ({ document: Schema.Struct(fields) })
/** A call that succeeded or failed, told apart by its outcome: create's and remove's. */
const okOrFailed = <K extends string, F extends Schema.Struct.Fields>(fact: K, failed: F) => ({
  field: "outcome" as const,
  variants: { ok: factLine(fact, { as, outcome: Schema.Literal("ok") }), error: factLine(fact, failed) },
})

/** Each fact line's shape, by `fact` and then by the field that tells its variants apart (its path). */
export const FactLines = {
  pass: {
    field: "document.read",
    variants: {
      ok: factLine("pass", doc({ read: Schema.Literal("ok"), text: Schema.String })),
      failed: factLine("pass", doc({ read: Schema.Literal("failed"), error: Schema.String })),
      unchanged: factLine("pass", doc({ read: Schema.Literal("unchanged") })),
    },
  },
  secret: {
    field: "read",
    variants: {
      ok: factLine("secret", { as, read: Schema.Literal("ok"), fingerprint: Schema.String }),
      failed: factLine("secret", { as, read: Schema.Literal("failed"), error: Schema.String }),
    },
  },
  holds: {
    field: "outcome",
    variants: {
      held: factLine("holds", { as, outcome: Schema.Literal("held") }),
      "not-held": factLine("holds", { as, outcome: Schema.Literal("not-held") }),
      error: factLine("holds", { ...failedCall, class: adapterClass, timedOut: Schema.optionalKey(Schema.Boolean) }),
    },
  },
  create: okOrFailed("create", { ...failedCall, class: adapterClass }),
  remove: okOrFailed("remove", failedCall),
} as const

/** A provider restarted on the same log: memory is empty from here, under the settings it names. */
export const StartedLine = Schema.Struct({
  at,
  fact: Schema.Literal("started"),
  settings: Schema.optionalKey(SettingsLine),
  recorded: Schema.optionalKey(Schema.String),
})
export type StartedLine = typeof StartedLine.Type

type Kind = keyof typeof FactLines

/** A run of the provider beginning: the header for the first, a `started` line for each restart. */
export interface Started {
  readonly fact: "started"
  readonly at: number
  readonly provider: Provider
  readonly settings: Settings
}

/** What a line of the log gives the replay: a run starting, or a fact the core was fed. */
export type LogFact = Fact | Started

/** A line that cannot be used: which field, and what is wrong with it. */
export interface BadLine {
  readonly line: number
  readonly field: string
  readonly problem: string
}

export interface ReaderState {
  readonly line: number
  readonly provider: Provider | undefined
  readonly settings: Settings | undefined
  readonly lastAt: number
  readonly lastDocument: string | undefined
  readonly passBegun: boolean
}

export const freshReader: ReaderState = {
  line: 0,
  provider: undefined,
  settings: undefined,
  lastAt: Number.NEGATIVE_INFINITY,
  lastDocument: undefined,
  passBegun: false,
}

export type ReadResult =
  | { readonly ok: true; readonly state: ReaderState; readonly fact: LogFact | undefined }
  | { readonly ok: false; readonly bad: BadLine }

const bad = (line: number, field: string, problem: string): ReadResult => ({ ok: false, bad: { line, field, problem } })

const choices = (names: ReadonlyArray<string>): string => names.map((n) => JSON.stringify(n)).join(", ")

const settingsOf = (line: number, given: HeaderLine["settings"], base: Settings): Settings | BadLine => {
  let out: Settings = base
  for (const name of settingNames) {
    const text = given?.[name]
    if (text === undefined) continue
    // The same rule as --set: a header that says `every: 0s` is refused, not replayed as a busy loop.
    const r = settingValue(name, text, `${JSON.stringify(text)} is not a duration (say 5s, 2m, 1h30m)`)
    if ("problem" in r) return { line, field: `settings.${name}`, problem: r.problem }
    out = { ...out, [name]: r.value }
  }
  return out
}

// RFC 3339's date-time, strictly: Date.parse alone reads "1" as 2001-01-01 (issue 14).
const rfc3339Pattern = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/

const monthDays = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

/** The definition: the pattern, the calendar, then Date.parse. */
export const parseRfc3339Checked = (text: string): number | undefined => {
  // Read once per fact line: no Date is made to check the calendar (it was 12% of simulate's time).
  const m = rfc3339Pattern.exec(text)
  if (m === null) return undefined
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])]
  if (month < 1 || month > 12 || day < 1 || Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6]) > 60)
    return undefined
  const leap = month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
  if (day > monthDays[month - 1]! + (leap ? 1 : 0)) return undefined
  const ms = Date.parse(text.toUpperCase())
  return Number.isFinite(ms) ? ms : undefined
}

/** An RFC 3339 date-time as epoch milliseconds; undefined for anything else, or a day the calendar has not. */
export const parseRfc3339 = withRecorderShape(parseRfc3339Checked)

/** `readLine` with every line decoded by the Schema alone: the definition the fast path is held to. */
export const readLineBySchema = (state: ReaderState, text: string, defaults: Settings): ReadResult =>
  readLine(state, text, defaults, false)

const isString = (v: unknown): v is string => typeof v === "string"
const absentOr = (v: unknown, is: (v: unknown) => boolean): boolean => v === undefined || is(v)
const isBoolean = (v: unknown): boolean => typeof v === "boolean"

/**
 * Whether a fact line of `kind` and variant `tag` has every field its Schema asks for, of the right
 * type: true only when the Schema would decode it too, and true for every line `lineOf` writes (a
 * day read through the Schema misses issue 11's replay rate; property tests hold both).
 */
export const fastValid = (kind: Kind, tag: string, r: Record<string, unknown>): boolean => {
  if (!isString(r["at"])) return false
  if (kind === "pass") {
    const d = r["document"] as Record<string, unknown>
    return tag === "ok" ? isString(d["text"]) : tag === "failed" ? isString(d["error"]) : true
  }
  if (!isString(r["as"])) return false
  if (kind === "secret") return isString(r[tag === "ok" ? "fingerprint" : "error"])
  // Holds, create, remove: an outcome alone, or an error with what the adapter said of it (a class,
  // whether it timed out), each absent or of its type even where that call's Schema ignores it.
  return (
    tag !== "error" || (isString(r["error"]) && absentOr(r["class"], isString) && absentOr(r["timedOut"], isBoolean))
  )
}

/** A fact's time, never before the previous fact's. */
const timeOf = (line: number, at: string, lastAt: number): number | ReadResult => {
  const when = parseRfc3339(at)
  if (when === undefined) return bad(line, "at", `${JSON.stringify(at)} is not an RFC 3339 time`)
  return when < lastAt ? bad(line, "at", `${at} is before the previous fact's time`) : when
}

/**
 * Reads one line of a fact log. Pure: the state carries what a line may refer back to (the header,
 * the time of the previous fact, the document last read in full). `fast` false: readLineBySchema.
 */
export const readLine = (state: ReaderState, text: string, defaults: Settings, fast = true): ReadResult => {
  const line = state.line + 1
  // Blank lines (a trailing newline, a CRLF file) carry nothing and are passed over.
  if (text.trim() === "") return { ok: true, state: { ...state, line }, fact: undefined }
  const json = jsonOf(text)
  if (json instanceof NotJson) return bad(line, "(line)", `not JSON: ${json.why}`)
  if (typeof json !== "object" || json === null || Array.isArray(json)) return bad(line, "(line)", "not a JSON object")
  const record = json as Record<string, unknown>
  const header = state.provider === undefined
  if (header && record["format"] !== formatName)
    return bad(
      line,
      "format",
      `the first line must name the format: {"format":"${formatName}","version":${formatVersion},...}`,
    )
  if (header && record["version"] !== formatVersion)
    return bad(
      line,
      "version",
      `this reader knows version ${formatVersion} of ${formatName}, not ${JSON.stringify(record["version"])}`,
    )
  // The header, or a restarted recorder's line: memory is empty from here, under the settings it names.
  if (header || record["fact"] === "started") {
    const issue = firstIssue(Schema.decodeUnknownExit(header ? HeaderLine : StartedLine)(json))
    if (issue !== undefined) return bad(line, issue.field, issue.problem)
    const run = json as HeaderLine | StartedLine
    const when = "at" in run && !header ? timeOf(line, run.at, state.lastAt) : state.lastAt
    if (typeof when !== "number") return when
    const settings = settingsOf(line, run.settings, defaults)
    if ("problem" in settings) return { ok: false, bad: settings }
    const provider = "provider" in run && header ? run.provider : state.provider!
    // A restarted recorder has written no document yet, so an "unchanged" before its first in full is refused.
    const next: ReaderState = { ...freshReader, line, lastAt: when, provider, settings }
    return { ok: true, state: next, fact: { fact: "started", at: when, provider, settings } }
  }
  const kind = record["fact"]
  // Own keys only: `"fact":"toString"` is no fact, though `in` finds it on the prototype (and threw).
  if (typeof kind !== "string" || !Object.hasOwn(FactLines, kind))
    return bad(
      line,
      "fact",
      `must be one of ${choices([...Object.keys(FactLines), "started"])}, not ${JSON.stringify(kind)}`,
    )
  const shape = FactLines[kind as Kind]
  const tag =
    shape.field === "document.read"
      ? (record["document"] as Record<string, unknown> | undefined)?.["read"]
      : record[shape.field]
  const variants = shape.variants as unknown as Record<string, Schema.Codec<unknown>>
  if (typeof tag !== "string" || !Object.hasOwn(variants, tag))
    return bad(line, shape.field, `must be one of ${choices(Object.keys(variants))}, not ${JSON.stringify(tag)}`)
  // The Schema is the definition; the common shapes are checked by hand first (the Schema's
  // decoding was most of the time of reading a line, issue 11), and anything else goes to it.
  if (!fast || !fastValid(kind as Kind, tag, record)) {
    const issue = firstIssue(Schema.decodeUnknownExit(variants[tag]!)(json))
    if (issue !== undefined) return bad(line, issue.field, issue.problem)
  }
  const when = timeOf(line, record["at"] as string, state.lastAt)
  if (typeof when !== "number") return when
  const next: ReaderState = { ...state, line, lastAt: when }
  if (kind === "pass") {
    const doc = record["document"] as { read: string; text?: string; error?: string }
    if (doc.read === "unchanged" && state.lastDocument === undefined)
      return bad(line, "document.read", `"unchanged" but no document was read in full before`)
    const document: DocumentRead =
      doc.read === "failed"
        ? { read: "failed", error: doc.error! }
        : { read: "ok", text: doc.read === "ok" ? doc.text! : state.lastDocument! }
    const lastDocument = document.read === "ok" ? document.text : state.lastDocument
    return { ok: true, state: { ...next, lastDocument, passBegun: true }, fact: { fact: "pass", at: when, document } }
  }
  if (!state.passBegun) return bad(line, "fact", `a ${kind} answers a call of a pass, but no pass has begun`)
  return { ok: true, state: next, fact: answerOf(record, when) }
}

// The same fingerprint gives the same string, not an equal one: the core compares each pass's
// password with the last, and comparing one string with itself is immediate (issue 11). Bounded, so
// a log of many rotations keeps no more than this many.
const passwords = new Map<string, string>()
const passwordOf = (fingerprint: string): string => {
  let password = passwords.get(fingerprint)
  if (password === undefined) {
    if (passwords.size >= 10_000) passwords.clear()
    password = `fingerprint:${fingerprint}`
    passwords.set(fingerprint, password)
  }
  return password
}

const answerOf = (r: Record<string, unknown>, at: number): AnswerFact => {
  const as = r["as"] as string
  const error = r["error"] as string
  const adapterClass = r["class"] as string | undefined
  if (r["outcome"] === "ok") return { fact: r["fact"] as "create" | "remove", at, as, outcome: "ok" }
  switch (r["fact"]) {
    case "secret":
      return r["read"] === "ok"
        ? { fact: "secret", at, as, read: "ok", password: passwordOf(r["fingerprint"] as string) }
        : { fact: "secret", at, as, read: "failed", error }
    case "holds":
      return r["outcome"] === "error"
        ? { fact: "holds", at, as, outcome: "error", error, class: adapterClass, timedOut: r["timedOut"] === true }
        : { fact: "holds", at, as, outcome: r["outcome"] as "held" | "not-held" }
    case "create":
      return { fact: "create", at, as, outcome: "error", error, class: adapterClass }
    default:
      return { fact: "remove", at, as, outcome: "error", error }
  }
}
