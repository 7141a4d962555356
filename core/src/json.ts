// The JSON values the mesh delivers, and one stable spelling of them.
import { errorText } from "./text/error-text.ts"

export type Json = null | boolean | number | string | ReadonlyArray<Json> | JsonObject
export interface JsonObject {
  readonly [key: string]: Json
}

export const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * JSON with every object's keys sorted, as Go's json.Marshal writes maps: two values that mean the
 * same give the same text, so a text can stand for a value in a comparison.
 */
export const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`
  if (isJsonObject(value)) {
    const keys = Object.keys(value).sort()
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(",")}}`
  }
  return JSON.stringify(value ?? null)
}

/**
 * Whether two values are the same JSON, key order aside, compared in place: when true their
 * canonical spellings are equal, with no text made (issue 11: spelling both of every act recorded
 * was a tenth of a controller log's replay). False may still be the same value (NaN, an undefined
 * field): then compare the spellings.
 */
export const sameJson = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false
  // Loops, not `every`: an act of every statement heard is compared (issue 45).
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false
    return true
  }
  if (Array.isArray(b)) return false
  const [ra, rb] = [a as Record<string, unknown>, b as Record<string, unknown>]
  const ka = Object.keys(a)
  if (ka.length !== Object.keys(b).length) return false
  for (const k of ka) if (!Object.hasOwn(b, k) || !sameJson(ra[k], rb[k])) return false
  return true
}

/** A text JSON.parse refused, and its words for why. */
export class NotJson {
  readonly why: string
  constructor(why: string) {
    this.why = why
  }
}

/**
 * A text's JSON value, or `NotJson`: one spelling of the parse every reader of a message, a line or a
 * file makes, with nothing wrapped around a value parsed (a replay parses a line per fact).
 */
export const jsonOf = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch (e) {
    return new NotJson(errorText(e))
  }
}

/** How deep a JSON document given from outside may nest (issue 43: 100,000 deep overflowed the stack). */
export const jsonMaxDepth = 64

/**
 * A JSON text's value, or why not: a text nesting deeper than `jsonMaxDepth` is refused before it
 * is parsed, by one scan that keeps no stack, so nothing that walks the value can overflow.
 */
export const parseJson = (text: string): { readonly value: unknown } | { readonly problem: string } => {
  // One pass, linear whatever the text (a pattern over strings backtracks on unclosed ones).
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (inString) {
      if (c === "\\") i++
      else if (c === '"') inString = false
    } else if (c === '"') inString = true
    else if ((c === "[" || c === "{") && ++depth > jsonMaxDepth)
      return { problem: `nested deeper than ${jsonMaxDepth} levels` }
    else if (c === "]" || c === "}") depth--
  }
  const value = jsonOf(text)
  return value instanceof NotJson ? { problem: `not JSON: ${value.why}` } : { value }
}
