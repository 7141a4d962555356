// The controller log's common lines read by hand (issue 11: decoding each line and each answer
// through the Schema was most of a controller log's replay). The Schemas in controller/log-lines.ts
// and the catalogues' (controller/catalogue.ts) stay the rule: this builds exactly the value their
// decoding gives, and declines (undefined) anything it does not recognise as valid, which then goes
// to them. An answer is read by hand only for the kinds a day's log is mostly made of (`npm run bench`:
// without them a controller's replay falls from ~40% of the anchor's parsing rate to ~28%). A property
// test (test/core/controller-log-fast-path.test.ts) holds the two together on valid, near-valid and
// invalid lines.
import { isNumber, isObject, isString, type Json, no, numbers, outcome, readableEmpty } from "../by-hand.ts"
import type { StatementRecord } from "../gate/judging/facts.ts"
import { resourcesByHand } from "../gate/messages/messages.ts"
import type { Question } from "./catalogue.ts"
import type { AnswerFact, HeardRecord, InputFact } from "./log-lines.ts"

/** A Heard message (HeardLine): its fields in the Schema's order, the optional ones only when present. */
const heard = (m: unknown): HeardRecord | undefined => {
  if (!isObject(m)) return no
  const { subject, event, body, saidAt, seq, stream, receivedAt } = m
  if (!isString(subject) || !isString(event) || !isString(body) || !isNumber(seq)) return no
  if (saidAt === undefined && stream === undefined && receivedAt === undefined) return { subject, event, body, seq }
  if (
    (saidAt !== undefined && !isString(saidAt)) ||
    (stream !== undefined && !isString(stream)) ||
    (receivedAt !== undefined && !isNumber(receivedAt))
  )
    return no
  return {
    subject,
    event,
    body,
    ...(saidAt === undefined ? {} : { saidAt }),
    seq,
    ...(stream === undefined ? {} : { stream }),
    ...(receivedAt === undefined ? {} : { receivedAt }),
  }
}

/** A StatementRecord read by hand: a kept statement's texts, any length. */
const statementByHand = (s: unknown): StatementRecord | undefined => {
  if (!isObject(s)) return no
  const { machine, at, resources } = s
  if (!isString(machine) || !isNumber(at) || !Array.isArray(resources)) return no
  const out = resourcesByHand(resources, isString, isString)
  return out === undefined ? no : { machine, at, resources: out }
}

type ReadByHand = (q: Json, a: unknown) => { readonly q: Question; readonly a: unknown } | undefined

/** An empty read (`[]` or `{}`), or why it was not read, of a question with no arguments. */
const emptyRead =
  (kind: "plans-in-flight" | "latest-verdicts" | "witness-verdicts", empty: "list" | "map"): ReadByHand =>
  (_q, a) => {
    const r = readableEmpty(a, empty)
    return r === undefined ? no : { q: { q: kind }, a: r }
  }

/** The answers a day's log is mostly made of, read by hand by their kind (a Map: one look-up an answer). */
const byHand: ReadonlyMap<string, ReadByHand> = new Map(
  Object.entries({
    "plans-in-flight": emptyRead("plans-in-flight", "list"),
    "latest-verdicts": emptyRead("latest-verdicts", "list"),
    "witness-verdicts": emptyRead("witness-verdicts", "map"),
    now: (_q, a) => (isNumber(a) ? { q: { q: "now" }, a } : no),
    "probe-conditions": (q, a) => {
      const r = readableEmpty(a, "list")
      return r === undefined || !isString(q["source"])
        ? no
        : { q: { q: "probe-conditions", source: q["source"] }, a: r }
    },
    "clear-condition": (q, a) => {
      const o = outcome(a)
      return !isString(q["key"]) || !isString(q["by"]) || o === undefined
        ? no
        : { q: { q: "clear-condition", key: q["key"], by: q["by"] }, a: o }
    },
    "kept-statement": (q, a) => {
      const machine = q["machine"]
      if (!isString(machine)) return no
      if (a === null) return { q: { q: "kept-statement", machine }, a: null }
      if (!isObject(a)) return no
      const statement = statementByHand(a["statement"])
      const streaks = numbers(a["streaks"])
      return statement === undefined || streaks === undefined
        ? no
        : { q: { q: "kept-statement", machine }, a: { statement, streaks } }
    },
    "write-statement": (q, a) => {
      const statement = statementByHand(q["statement"])
      const streaks = numbers(q["streaks"])
      const o = outcome(a)
      return statement === undefined || streaks === undefined || o === undefined
        ? no
        : { q: { q: "write-statement", statement, streaks }, a: o }
    },
  } satisfies Record<string, ReadByHand>),
)

/** A question and its answer, as the catalogue decodes them, when its kind is read by hand; else undefined. */
const exchange = (q: Json, a: unknown): { readonly q: Question; readonly a: unknown } | undefined => {
  const kind = q["q"]
  const read = isString(kind) ? byHand.get(kind) : no
  return read === undefined ? no : read(q, a)
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
      // What woke it is read by the Schemas.
      return line["wakes"] === undefined ? { at, fact: "tick" } : no
    case "statement":
    case "witness":
    case "report": {
      const message = heard(line["message"])
      return message === undefined ? no : { at, fact: kind, message }
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
