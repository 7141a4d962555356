// A journal line as a JSON object (issue 10: `--log-format json`, so a log shipper reads the
// controller without a parser of its own). The text journal says `[gate] letta-204: …`; the JSON one
// says the same line as {time, level, area, message, fields}: the area is the bracketed prefix, the
// level a warning when the line says something did not happen, and the fields the annotations the
// shell ran under. One object a line, whatever the line holds (JSON escapes every newline).
import * as Schema from "effect/Schema"

export const LogFormat = Schema.Literals(["text", "json"])
export type LogFormat = typeof LogFormat.Type

const FieldValue = Schema.Union([Schema.String, Schema.Number, Schema.Boolean, Schema.Null])
type FieldValue = typeof FieldValue.Type

export const JournalEntry = Schema.Struct({
  time: Schema.String,
  level: Schema.Literals(["info", "warn"]),
  area: Schema.String,
  message: Schema.String,
  fields: Schema.Record(Schema.String, FieldValue),
})
export type JournalEntry = typeof JournalEntry.Type

/** The area of a line without a bracketed prefix: the command's own words. */
export const defaultArea = "mesh"

const prefixed = /^\[([A-Za-z][A-Za-z0-9_-]*)\] ?([\s\S]*)$/

/** `[gate] text` is area `gate` and message `text`; a line without the prefix is the default area's. */
export const areaOf = (line: string): { readonly area: string; readonly message: string } => {
  const m = prefixed.exec(line)
  return m === null ? { area: defaultArea, message: line } : { area: m[1]!.toLowerCase(), message: m[2]! }
}

// biome-ignore format: a list of words, read as one
/**
 * What makes a line a warning: it says something could not be done or was not taken. These are the
 * words the controller's journal uses for it (`cannot be read`, `could NOT be said`, `refused`, `set
 * aside`, `ignored a word`, a lease `lost`, a gate `FAILED`); matched without regard to case.
 */
export const warningWords: ReadonlyArray<string> = ["cannot", "could not", "refused", "failed", "lost", "unreachable", "not answering", "set aside", "ignored"]

export const levelOf = (message: string): "info" | "warn" => {
  const lower = message.toLowerCase()
  return warningWords.some((w) => lower.includes(w)) ? "warn" : "info"
}

/** A field's value as JSON can say it: strings, finite numbers, booleans and null kept; anything else as its text. */
const fieldValue = (v: unknown): FieldValue => {
  if (v === null || typeof v === "string" || typeof v === "boolean") return v
  if (typeof v === "number") return Number.isFinite(v) ? v : String(v)
  if (v === undefined) return null
  return String(v)
}

/** One journal line said at `at` (epoch ms) under `fields`, as the JSON journal writes it. */
export const journalEntry = (line: string, at: number, fields: Readonly<Record<string, unknown>> = {}) => {
  const { area, message } = areaOf(line)
  return {
    time: new Date(at).toISOString(),
    level: levelOf(message),
    area,
    message,
    fields: Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, fieldValue(v)])),
  }
}

/** The entry as one line of JSON, keys in the documented order. */
export const journalJson = (e: JournalEntry): string =>
  JSON.stringify({ time: e.time, level: e.level, area: e.area, message: e.message, fields: e.fields })
