// Reading a recorded value by hand (issue 11: decoding each line and each answer through the Schema
// was most of a controller log's replay). Each reader builds exactly the value its Schema's decoding
// gives, and declines (undefined) anything it does not recognise as valid, which then goes to the
// Schema: the Schemas stay the rule. The controller log's hand readers (controller/log-fast.ts) read
// its common answers with these; a property test (test/core/controller-log-fast-path.test.ts) holds
// the two together.
import type { Outcome, Readable } from "./outcome.ts"

export type Json = Record<string, unknown>
/** What a reader declines. */
export const no = undefined

export const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v)
export const isString = (v: unknown): v is string => typeof v === "string"
export const isNumber = (v: unknown): v is number => typeof v === "number"

/** A Record of numbers (a statement's streaks). `__proto__` is the Schema's to answer. */
export const numbers = (r: unknown): Record<string, number> | undefined => {
  if (!isObject(r)) return no
  const out: Record<string, number> = {}
  for (const k in r) {
    if (!Object.hasOwn(r, k)) continue
    const v = r[k]
    if (!isNumber(v) || k === "__proto__") return no
    out[k] = v
  }
  return out
}

/** Outcome: done, or why not. */
export const outcome = (a: unknown): Outcome | undefined => {
  if (!isObject(a)) return no
  if (a["ok"] === true) return { ok: true }
  return a["ok"] === false && isString(a["why"]) ? { ok: false, why: a["why"] } : no
}

/** The empty values `readableEmpty` reads, by name. */
interface Empty {
  readonly list: []
  readonly map: Record<string, never>
}

/** `readable(X)` when the value is empty (`[]` or `{}`, as `empty` says), or why it was not read. */
export const readableEmpty = <E extends keyof Empty>(a: unknown, empty: E): Readable<Empty[E]> | undefined => {
  if (!isObject(a)) return no
  if (a["ok"] === true) {
    const v = a["value"]
    const isEmpty = empty === "list" ? Array.isArray(v) && v.length === 0 : isObject(v) && Object.keys(v).length === 0
    return isEmpty ? { ok: true, value: ({ list: [], map: {} } satisfies Empty)[empty] } : no
  }
  return a["ok"] === false && isString(a["why"]) ? { ok: false, why: a["why"] } : no
}
