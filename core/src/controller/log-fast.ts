// The controller log's common lines read by hand (issue 11: decoding each line and each answer
// through the Schema was most of a controller log's replay). The Schemas in controller/log-lines.ts and
// the catalogues' (controller/catalogue.ts) stay the rule: this builds exactly the value their decoding gives, and
// declines (undefined) anything it does not recognise as valid, which then goes to them. A property
// test (test/core/controller-log-fast-path.test.ts) holds the two together on valid, near-valid and
// invalid lines.
import type { Outcome } from "../outcome.ts"
import type { Question } from "./catalogue.ts"
import type { StatementRecord } from "../gate/records.ts"
import type { AnswerFact, HeardRecord, InputFact } from "./log-lines.ts"

type Json = Record<string, unknown>
/** What the fast path declines. */
const no = undefined

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v)
const isString = (v: unknown): v is string => typeof v === "string"
const isNumber = (v: unknown): v is number => typeof v === "number"

/** A Heard message (HeardLine): its fields in the Schema's order, the optional ones only when present. */
const heard = (m: unknown): HeardRecord | undefined => {
  if (!isObject(m)) return no
  const { subject, event, body, saidAt, seq, stream, receivedAt } = m
  if (!isString(subject) || !isString(event) || !isString(body) || !isNumber(seq)) return no
  if (saidAt === undefined && stream === undefined && receivedAt === undefined) return { subject, event, body, seq }
  if ((saidAt !== undefined && !isString(saidAt)) || (stream !== undefined && !isString(stream)) || (receivedAt !== undefined && !isNumber(receivedAt))) {
    return no
  }
  return {
    subject, event, body, ...(saidAt === undefined ? {} : { saidAt }), seq, ...(stream === undefined ? {} : { stream }),
    ...(receivedAt === undefined ? {} : { receivedAt }),
  }
}

type HealthState = StatementRecord["resources"][number]["state"]
const healthStates: ReadonlySet<unknown> = new Set<HealthState>(["healthy", "starting", "unhealthy"])
const isHealthState = (v: unknown): v is HealthState => healthStates.has(v)

/** A StatementRecord. */
const statement = (s: unknown): StatementRecord | undefined => {
  if (!isObject(s)) return no
  const { machine, at, resources } = s
  if (!isString(machine) || !isNumber(at) || !Array.isArray(resources)) return no
  const out: Array<StatementRecord["resources"][number]> = []
  for (const r of resources as Array<unknown>) {
    if (!isObject(r)) return no
    const { resource, module, state, reason } = r
    if (!isString(resource) || !isString(module) || !isHealthState(state)) return no
    if (reason === undefined) out.push({ resource, module, state })
    else if (isString(reason)) out.push({ resource, module, state, reason })
    else return no
  }
  return { machine, at, resources: out }
}

/** A Record of numbers (a statement's streaks). `__proto__` is the Schema's to answer. */
const numbers = (r: unknown): Record<string, number> | undefined => {
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
const outcome = (a: unknown): Outcome | undefined => {
  if (!isObject(a)) return no
  if (a["ok"] === true) return { ok: true }
  return a["ok"] === false && isString(a["why"]) ? { ok: false, why: a["why"] } : no
}

/** `readable(X)` when the value is empty (`[]` or `{}`, as `empty` says), or why it was not read. */
const readableEmpty = (a: unknown, empty: "list" | "map"): { readonly ok: true; readonly value: [] | {} } | { readonly ok: false; readonly why: string } | undefined => {
  if (!isObject(a)) return no
  if (a["ok"] === true) {
    const v = a["value"]
    if (empty === "list") return Array.isArray(v) && v.length === 0 ? { ok: true, value: [] } : no
    return isObject(v) && Object.keys(v).length === 0 ? { ok: true, value: {} } : no
  }
  return a["ok"] === false && isString(a["why"]) ? { ok: false, why: a["why"] } : no
}

/** A question and its answer, as the Catalogue decodes them; undefined for any other kind or shape. */
const exchange = (q: Json, a: unknown): { readonly q: Question; readonly a: unknown } | undefined => {
  const kind = q["q"]
  switch (kind) {
    case "kept-statement": {
      if (!isString(q["machine"])) return no
      if (a === null) return { q: { q: kind, machine: q["machine"] }, a: null }
      if (!isObject(a)) return no
      const s = statement(a["statement"])
      const streaks = numbers(a["streaks"])
      return s === undefined || streaks === undefined ? no : { q: { q: kind, machine: q["machine"] }, a: { statement: s, streaks } }
    }
    case "write-statement": {
      const s = statement(q["statement"])
      const streaks = numbers(q["streaks"])
      const o = outcome(a)
      return s === undefined || streaks === undefined || o === undefined ? no : { q: { q: kind, statement: s, streaks }, a: o }
    }
    case "clear-condition": {
      const o = outcome(a)
      return !isString(q["key"]) || !isString(q["by"]) || o === undefined ? no : { q: { q: kind, key: q["key"], by: q["by"] }, a: o }
    }
    case "open-plans":
    case "plans-in-flight":
    case "latest-verdicts": {
      const r = readableEmpty(a, "list")
      return r === undefined ? no : { q: { q: kind }, a: r }
    }
    case "probe-conditions": {
      const r = readableEmpty(a, "list")
      return r === undefined || !isString(q["source"]) ? no : { q: { q: kind, source: q["source"] }, a: r }
    }
    case "witness-verdicts": {
      const r = readableEmpty(a, "map")
      return r === undefined ? no : { q: { q: kind }, a: r }
    }
    case "now":
      return isNumber(a) ? { q: { q: kind }, a } : no
    default:
      return no
  }
}

/**
 * A fact line of `kind` as its Schema decodes it (for an answer, its question and answer decoded by
 * the Catalogue's), or undefined when this does not recognise it: then the Schemas read it.
 */
export const fastControllerFact = (kind: string, line: Json): InputFact | AnswerFact | undefined => {
  const at = line["at"]
  if (!isString(at)) return no
  switch (kind) {
    case "tick":
      return { at, fact: "tick" }
    case "statement":
    case "report": {
      const message = heard(line["message"])
      return message === undefined ? no : kind === "report" ? { at, fact: "report", message } : { at, fact: "statement", message }
    }
    case "words": {
      const given = line["messages"]
      if (!Array.isArray(given)) return no
      const messages: Array<HeardRecord> = []
      for (const m of given as Array<unknown>) {
        const h = heard(m)
        if (h === undefined) return no
        messages.push(h)
      }
      return { at, fact: "words", messages }
    }
    case "answer": {
      const q = line["q"]
      if (!isObject(q) || !("a" in line)) return no
      const e = exchange(q, line["a"])
      return e === undefined ? no : { at, fact: "answer", q: e.q, a: e.a }
    }
    default:
      return no
  }
}
