// The fact log's reader checks the common line shapes by hand before the Schema (issue 11: the
// Schema's decoding was most of the time of reading a line). The Schema stays the definition: on
// any line, near-valid or not, the reader answers exactly what decoding by the Schema alone answers.
// The same for RFC 3339 times: the hand-read recorder's shape agrees with the pattern + Date.parse.
import fc from "fast-check"
import { nearValidText, rfc3339Texts } from "../support/near-valid.ts"
import { describe, expect, it } from "vitest"
import {
  FactLines,
  fastValid,
  freshReader,
  parseRfc3339,
  parseRfc3339Checked,
  readLine,
  readLineBySchema,
  type ReaderState,
} from "@mesh-core/core/provisioner/log"
import { fingerprintWith, lineOf } from "@mesh-core/core/provisioner/log-writing"
import { defaultSettings, type Fact } from "@mesh-core/core/provisioner/model"

const header = `{"format":"mesh-core.facts","version":1,"area":"provisioner","provider":{"resource":"postgres","receives":"/c.json","node":"hq-1"}}`
const at = "2026-11-20T09:00:00.010Z"
/** Every variant of every fact line, as a recorder writes it. */
const shapes: ReadonlyArray<Record<string, unknown>> = [
  { at, fact: "pass", document: { read: "ok", text: "{}" } },
  { at, fact: "pass", document: { read: "failed", error: "gone" } },
  { at, fact: "pass", document: { read: "unchanged" } },
  { at, fact: "secret", as: "letta", read: "ok", fingerprint: "hmac-sha256:00" },
  { at, fact: "secret", as: "letta", read: "failed", error: "EACCES" },
  { at, fact: "holds", as: "letta", outcome: "held" },
  { at, fact: "holds", as: "letta", outcome: "not-held" },
  { at, fact: "holds", as: "letta", outcome: "error", error: "x", class: "unreachable", timedOut: true },
  { at, fact: "holds", as: "letta", outcome: "error", error: "x" },
  { at, fact: "create", as: "letta", outcome: "ok" },
  { at, fact: "create", as: "letta", outcome: "error", error: "x", class: "refused" },
  { at, fact: "create", as: "letta", outcome: "error", error: "x" },
  { at, fact: "remove", as: "letta", outcome: "ok" },
  { at, fact: "remove", as: "letta", outcome: "error", error: "x" },
]
// "" too: a field read under an empty name must not stand in for the one the Schema asks for.
const keys = [
  "at",
  "fact",
  "as",
  "read",
  "outcome",
  "error",
  "class",
  "timedOut",
  "fingerprint",
  "document",
  "text",
  "extra",
  "",
]
const anyValue = fc.oneof(
  fc.constantFrom<unknown>(
    null,
    true,
    false,
    0,
    1.5,
    "",
    "ok",
    "error",
    "unchanged",
    "held",
    at,
    "2026-11-20T09:00:00Z",
    [],
    {},
    { read: "ok" },
    { read: "ok", text: 3 },
  ),
  fc.string({ maxLength: 4 }),
)

/** A recorder's line with a few of its fields dropped, retyped or added: what a broken writer might write. */
const nearValidObject = fc
  .tuple(
    fc.constantFrom(...shapes),
    fc.array(fc.tuple(fc.constantFrom("drop", "set"), fc.constantFrom(...keys), anyValue), { maxLength: 3 }),
    fc.boolean(),
  )
  .map(([shape, edits, inDocument]) => {
    const line: Record<string, unknown> = { ...shape }
    if (inDocument && typeof line["document"] === "object") line["document"] = { ...(line["document"] as object) }
    const target =
      inDocument && typeof line["document"] === "object" ? (line["document"] as Record<string, unknown>) : line
    for (const [edit, key, value] of edits) {
      if (edit === "drop") delete target[key]
      else target[key] = value
    }
    return JSON.stringify(line)
  })

const nearValidLine = nearValidText(shapes.map((s) => JSON.stringify(s)))

const after = (state: ReaderState, line: string): ReaderState => {
  const r = readLine(state, line, defaultSettings)
  if (!r.ok) throw new Error(r.bad.problem)
  return r.state
}
const afterHeader = after(freshReader, header)
const inPass = after(afterHeader, JSON.stringify(shapes[0]))

describe("the fact log's fast path", () => {
  it("reads every line exactly as decoding by the Schema alone does", () => {
    fc.assert(
      fc.property(fc.oneof(nearValidObject, nearValidLine), fc.constantFrom(afterHeader, inPass), (line, state) => {
        expect(readLine(state, line, defaultSettings)).toEqual(readLineBySchema(state, line, defaultSettings))
      }),
      { numRuns: 5000 },
    )
  })

  it("takes the hand-checked path for what a recorder writes, so the day is not read through the Schema", () => {
    // Not a timing: the lines a recorder writes are read and give the facts a Schema-only reading gives.
    for (const shape of shapes.slice(1)) {
      const line = JSON.stringify(shape)
      const r = readLine(inPass, line, defaultSettings)
      expect(r.ok, line).toBe(true)
      expect(r).toEqual(readLineBySchema(inPass, line, defaultSettings))
    }
  })

  it("reads RFC 3339 times as the pattern and Date.parse do, whatever the text", () => {
    fc.assert(
      fc.property(rfc3339Texts(0, 9999), (text) => {
        expect(parseRfc3339(text)).toBe(parseRfc3339Checked(text))
      }),
      { numRuns: 20_000 },
    )
  })
})

// A line the hand check declines still reads right, through the Schema, but a day of them read that
// way misses issue 11's replay rate: so every line a recorder writes (`lineOf`, what
// shells/src/provisioner/recorder.ts writes) is taken by the hand check, whatever the fact.
describe("the lines a provider's recorder writes", () => {
  const text = fc.oneof(fc.constantFrom("", "x", "{}", "\u0000", "\uD83D\uDE00"), fc.string({ maxLength: 6 }))
  const when = fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2099, 11, 31) })
  const adapterClass = fc.option(fc.constantFrom("unreachable", "refused", ""), { nil: undefined })
  const fact: fc.Arbitrary<Fact> = fc.oneof<Array<fc.Arbitrary<Fact>>>(
    fc
      .tuple(
        when,
        fc.oneof(
          text.map((t) => ({ read: "ok" as const, text: t })),
          text.map((error) => ({ read: "failed" as const, error })),
        ),
      )
      .map(([at, document]): Fact => ({ fact: "pass", at, document })),
    fc.tuple(when, text, text).map(([at, as, password]): Fact => ({ fact: "secret", at, as, read: "ok", password })),
    fc.tuple(when, text, text).map(([at, as, error]): Fact => ({ fact: "secret", at, as, read: "failed", error })),
    fc
      .tuple(when, text, fc.constantFrom("held" as const, "not-held" as const))
      .map(([at, as, outcome]): Fact => ({ fact: "holds", at, as, outcome })),
    fc.tuple(when, text, text, adapterClass, fc.boolean()).map(
      ([at, as, error, c, timedOut]): Fact => ({
        fact: "holds",
        at,
        as,
        outcome: "error",
        error,
        class: c,
        timedOut,
      }),
    ),
    fc
      .tuple(when, text, fc.constantFrom("create" as const, "remove" as const))
      .map(([at, as, f]): Fact => ({ fact: f, at, as, outcome: "ok" })),
    fc
      .tuple(when, text, text, adapterClass)
      .map(([at, as, error, c]): Fact => ({ fact: "create", at, as, outcome: "error", error, class: c })),
    fc.tuple(when, text, text).map(([at, as, error]): Fact => ({ fact: "remove", at, as, outcome: "error", error })),
  )
  const fingerprint = fingerprintWith(new Uint8Array(32).fill(7))

  it("are each taken by the hand check, and read as the Schema alone reads them", () => {
    fc.assert(
      fc.property(
        fact,
        fc.option(text, { nil: undefined }),
        fc.array(text, { maxLength: 2 }),
        (f, lastDocument, forms) => {
          const line = JSON.stringify(lineOf(f, fingerprint, lastDocument, forms))
          const record = JSON.parse(line) as Record<string, unknown>
          const kind = record["fact"] as keyof typeof FactLines
          const tag =
            kind === "pass" ? (record["document"] as Record<string, unknown>)["read"] : record[FactLines[kind].field]
          expect(fastValid(kind, tag as string, record), line).toBe(true)
          const state: ReaderState = { ...inPass, lastAt: Number.NEGATIVE_INFINITY, lastDocument }
          const r = readLine(state, line, defaultSettings)
          expect(r.ok, line).toBe(true)
          expect(r).toEqual(readLineBySchema(state, line, defaultSettings))
        },
      ),
      { numRuns: 3_000 },
    )
  })
})
