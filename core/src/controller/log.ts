// The controller's fact log (area "controller", version 1): everything `serve` fed its core, so a
// controller's day can be replayed through the same programs (docs/fact-log.md). Line 1 names the
// format and the settings; every later line is a fact: a program's input (a gate tick, a batch of
// words, a report, a statement, a witness's verdict), each answer that program got, in order, with the question it
// answered, or `started` (a restarted controller: memory empty from here). A program's lines are
// written together when it ends, so they are consecutive whatever ran beside it.
import { controllerQuestions, isKind, type Question } from "./catalogue.ts"
import { decode, timeOf } from "../gate/messages/messages.ts"
import { parseDuration } from "../duration.ts"
import { defaultGateSettings, type GateSettings } from "../gate/judging/judge.ts"
import { fastControllerFact } from "./log-fast.ts"
import type { Asked } from "../program.ts"
import type { BadLine } from "../provisioner/log.ts"
import {
  type ControllerFact,
  ControllerFactLines,
  ControllerHeader,
  type FactKind,
  type GateSettingsLine,
} from "./log-lines.ts"
import { jsonOf, NotJson } from "../json.ts"

export * from "./log-lines.ts"

export type ControllerLine =
  | { readonly ok: true; readonly header: ControllerHeader | undefined; readonly fact: ControllerFact | undefined }
  | { readonly ok: false; readonly bad: BadLine }

export const gateSettingsProblem = (s: GateSettingsLine): { field: string; problem: string } | undefined => {
  for (const name of ["settle", "bound", "every"] as const) {
    const v = s[name]
    if (v === undefined) continue
    const ms = parseDuration(v)
    if (ms === undefined) return { field: `settings.gate.${name}`, problem: `${JSON.stringify(v)} is not a duration` }
    if (ms <= 0) return { field: `settings.gate.${name}`, problem: `${name} must be longer than 0s` }
  }
  // Bounded as serve bounds MESH_GATE_PASSES and _ERROR_LIMIT (issue 43: passes=1e20 was replayed).
  for (const name of ["passes", "errorLimit"] as const) {
    const n = s[name]
    if (n !== undefined && !(Number.isInteger(n) && n >= 1 && n <= 999_999))
      return { field: `settings.gate.${name}`, problem: `${name} is a whole number from 1 to 999999` }
  }
  return undefined
}

/** The kinds of fact a line may be, as a refusal lists them. */
const factKinds = Object.keys(ControllerFactLines)
  .map((k) => JSON.stringify(k))
  .join(", ")

const badLine = (line: number, field: string, problem: string): ControllerLine => ({
  ok: false,
  bad: { line, field, problem },
})
const factLine = (fact: ControllerFact): ControllerLine => ({ ok: true, header: undefined, fact })

/** A fact's time, or why it is refused: never before the previous fact's. */
const timed = (line: number, at: string, lastAt: number): number | ControllerLine => {
  const atMs = timeOf(at)
  if (atMs === undefined) return badLine(line, "at", `${JSON.stringify(at)} is not an RFC 3339 time`)
  return atMs < lastAt ? badLine(line, "at", `${at} is before the previous fact's time`) : atMs
}

/**
 * Reads one line of a controller's fact log; `first` for line 1, `lastAt` the previous fact's time.
 * The common lines are read by hand first (log-fast.ts); `fast` false reads every line by the Schemas
 * alone: the definition the fast path is held to.
 */
export const readControllerLine = (
  line: number,
  text: string,
  first: boolean,
  lastAt: number,
  fast = true,
): ControllerLine => {
  // A line that opens an object is not blank: most lines are not trimmed (issue 45).
  if (text.charCodeAt(0) !== 123 /* { */ && text.trim() === "") return { ok: true, header: undefined, fact: undefined }
  const json = jsonOf(text)
  if (json instanceof NotJson) return badLine(line, "(line)", `not JSON: ${json.why}`)
  if (first) {
    const h = decode(ControllerHeader, json)
    if (!h.ok) return badLine(line, h.field, h.problem)
    const p = gateSettingsProblem(h.value.settings.gate)
    if (p !== undefined) return badLine(line, p.field, p.problem)
    return { ok: true, header: h.value, fact: undefined }
  }
  const kind = typeof json === "object" && json !== null && "fact" in json ? json.fact : undefined
  if (typeof kind !== "string" || !Object.hasOwn(ControllerFactLines, kind))
    return badLine(line, "fact", `must be one of ${factKinds}, not ${JSON.stringify(kind)}`)
  const quick = fast ? fastControllerFact(kind, json as Record<string, unknown>) : undefined
  if (quick !== undefined) {
    const atMs = timed(line, quick.at, lastAt)
    // The fact just read by hand is this reading's own: its time is added to it, not to a copy (issue 45).
    return typeof atMs === "number" ? factLine(Object.assign(quick, { atMs })) : atMs
  }
  const f = decode(ControllerFactLines[kind as FactKind], json)
  if (!f.ok) return badLine(line, f.field, f.problem)
  const atMs = timed(line, f.value.at, lastAt)
  if (typeof atMs !== "number") return atMs
  if (f.value.fact === "started") {
    const p = gateSettingsProblem(f.value.settings.gate)
    if (p !== undefined) return badLine(line, p.field, p.problem)
  }
  if (f.value.fact !== "answer") return factLine({ ...f.value, atMs })
  // An answer is read with the Schema of the question it answers: the same rule the live shell's
  // answer was typed by.
  const q = f.value.q
  const qk = typeof q === "object" && q !== null && "q" in q ? q.q : undefined
  if (!isKind(qk)) return badLine(line, "q.q", `no such question: ${JSON.stringify(qk)}`)
  const question = decode(controllerQuestions[qk].question, q)
  const under = (root: string, field: string) => (field === "(line)" ? root : `${root}.${field}`)
  if (!question.ok) return badLine(line, under("q", question.field), question.problem)
  const answer = decode(controllerQuestions[qk].answer, f.value.a)
  if (!answer.ok) return badLine(line, under("a", answer.field), answer.problem)
  return factLine({ at: f.value.at, fact: "answer", q: question.value as Question, a: answer.value, atMs })
}

/** The line a recorder writes for an answer. */
export const answerLine = (atIso: string, q: Asked, a: unknown): string =>
  JSON.stringify({ at: atIso, fact: "answer", q, a })

/** The gate's settings a log line or `--set` names, over the seed's defaults (validated first). */
export const gateSettingsOf = (line: GateSettingsLine, base: GateSettings = defaultGateSettings): GateSettings => ({
  settle: line.settle === undefined ? base.settle : parseDuration(line.settle)!,
  bound: line.bound === undefined ? base.bound : parseDuration(line.bound)!,
  every: line.every === undefined ? base.every : parseDuration(line.every)!,
  passes: line.passes ?? base.passes,
  ...((line.errorLimit ?? base.errorLimit) === undefined ? {} : { errorLimit: line.errorLimit ?? base.errorLimit }),
})

export const gateSettingNames = ["settle", "bound", "every", "passes"] as const

/** Why `name` is not a gate setting `--set` or `--sweep` may change, or undefined when it is one. */
export const notGateSetting = (name: string): string | undefined =>
  (gateSettingNames as ReadonlyArray<string>).includes(name)
    ? undefined
    : `no gate setting ${JSON.stringify(name)}; the gate's settings are ${gateSettingNames.join(", ")}`

/**
 * `--set name=value` items as the gate settings they change, or the first that cannot be used. The
 * rule is `gateSettingsProblem`'s, the one a header and a `started` line are read by.
 */
export const gateSettingOverrides = (
  said: ReadonlyArray<string>,
): { readonly overrides: GateSettingsLine } | { readonly problem: string } => {
  let overrides: GateSettingsLine = {}
  for (const item of said) {
    const eq = item.indexOf("=")
    const name = eq < 0 ? item : item.slice(0, eq)
    const value = eq < 0 ? "" : item.slice(eq + 1)
    const unknown = notGateSetting(name)
    if (unknown !== undefined) return { problem: `--set ${item}: ${unknown}` }
    const one: GateSettingsLine =
      name === "passes" ? { passes: /^\d+$/.test(value) ? Number(value) : Number.NaN } : { [name]: value }
    const p = gateSettingsProblem(one)
    if (p !== undefined)
      return {
        problem: `--set ${item}: ${name === "passes" ? p.problem : parseDuration(value) === undefined ? `give a duration of at most 596h, as in ${name}=2m` : p.problem}`,
      }
    overrides = { ...overrides, ...one }
  }
  return { overrides }
}

/** A log with nothing on its first line, or no line at all. */
export const emptyLog = (line: number): BadLine => ({
  line,
  field: "format",
  problem: "the log is empty: its first line must name the format",
})

/** Where a reader of a whole log is: the line it is on, the header, the last time, and whether a program is open. */
export interface ControllerReader {
  readonly line: number
  readonly header: ControllerHeader | undefined
  readonly lastAt: number
  /** An input has been read since the header or the last `started`: answers may follow. */
  readonly inProgram: boolean
}

export const freshControllerReader: ControllerReader = {
  line: 0,
  header: undefined,
  lastAt: Number.NEGATIVE_INFINITY,
  inProgram: false,
}

export type ControllerRead =
  | { readonly ok: true; readonly state: ControllerReader; readonly fact: ControllerFact | undefined }
  | { readonly ok: false; readonly bad: BadLine }

/**
 * Reads the next line of a log: line 1 is the header, every later one a fact. An answer belongs to
 * the program whose input came before it, so one with none before it (right after the header or a
 * `started`) is refused: a recorder never writes one.
 */
export const readControllerNext = (r: ControllerReader, text: string): ControllerRead => {
  const line = r.line + 1
  const first = r.header === undefined
  if (first && text.trim() === "") return { ok: false, bad: emptyLog(line) }
  const read = readControllerLine(line, text, first, r.lastAt)
  if (!read.ok) return read
  if (read.header !== undefined) return { ok: true, state: { ...r, line, header: read.header }, fact: undefined }
  const f = read.fact
  if (f === undefined) return { ok: true, state: { ...r, line }, fact: undefined }
  if (f.fact === "answer" && !r.inProgram) {
    const problem =
      "an answer with no program before it: an input (tick, words, report, statement, witness, store-failed) comes first"
    return { ok: false, bad: { line, field: "fact", problem } }
  }
  return { ok: true, state: { ...r, line, lastAt: f.atMs, inProgram: f.fact !== "started" }, fact: f }
}
