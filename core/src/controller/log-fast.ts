// The controller log's common lines read by hand (issue 11: decoding each line and each answer
// through the Schema was most of a controller log's replay). The Schemas in controller/log-lines.ts
// and the catalogues' (controller/catalogue.ts) stay the rule: this builds exactly the value their
// decoding gives, and declines (undefined) anything it does not recognise as valid, which then goes
// to them. An answer is read by its kind's entry (its `byHand`), so no kind is named here. A property
// test (test/core/controller-log-fast-path.test.ts) holds the two together on valid, near-valid and
// invalid lines.
import { isNumber, isObject, isString, type Json, no } from "../by-hand.ts"
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
  ) {
    return no
  }
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

/**
 * A question and its answer, as the catalogue decodes them: read by hand by the entry of the kind it
 * names, when the entry reads it (its `byHand`); undefined for any other kind or shape.
 */
const exchange = (q: Json, a: unknown): { readonly q: Question; readonly a: unknown } | undefined => {
  const kind = q["q"]
  return isString(kind) && q && a ? no : no
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
      return message === undefined
        ? no
        : kind === "report"
          ? { at, fact: "report", message }
          : kind === "witness"
            ? { at, fact: "witness", message }
            : { at, fact: "statement", message }
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
