// The controller log's reader reads its common lines by hand before the Schemas (issue 11: their
// decoding was most of a controller log's replay). The Schemas stay the definition: on any line,
// valid, near-valid or not, the reader answers exactly what decoding by the Schemas alone answers,
// key order included (a replay compares what it decides with what was recorded as JSON text). The
// same for the times the controller reads by hand in the recorder's shape.
import fc from "fast-check"
import { nearValidText, rfc3339Texts } from "../support/near-valid.ts"
import { describe, expect, it } from "vitest"
import { readControllerLine } from "@mesh-core/core/controller/log"
import { Exit, Schema } from "effect"
import { StatementMessage, statementMessageFast, timeOf, timeOfChecked } from "@mesh-core/core/gate/messages/messages"
import { parseRfc3339, parseRfc3339Checked } from "@mesh-core/core/standings/word"
import { canonicalJson, sameJson } from "@mesh-core/core/json"

const at = "2026-10-05T10:50:10.000Z"
const statement = {
  machine: "hq-4",
  at: 1791197350000,
  resources: [
    { resource: "app", module: "m4", state: "unhealthy", reason: "exited" },
    { resource: "db", module: "m5", state: "healthy" },
  ],
}
const message = { subject: "mesh.health.hq-4", event: "mesh.health.hq-4", body: "{}", seq: 3 }
const fullMessage = { ...message, saidAt: at, stream: "S", receivedAt: 17 }
/** Every line the fast path reads, as a recorder writes it, and a few it leaves to the Schemas. */
const shapes: ReadonlyArray<Record<string, unknown>> = [
  { at, fact: "tick" },
  { at, fact: "statement", message },
  { at, fact: "witness", message },
  { at, fact: "report", message: fullMessage },
  { at, fact: "words", messages: [message, fullMessage] },
  { at, fact: "answer", q: { q: "kept-statement", machine: "hq-4" }, a: null },
  { at, fact: "answer", q: { q: "kept-statement", machine: "hq-4" }, a: { statement, streaks: { m4: 2, m5: 0 } } },
  { at, fact: "answer", q: { q: "write-statement", statement, streaks: {} }, a: { ok: true } },
  { at, fact: "answer", q: { q: "write-statement", statement, streaks: { m4: 1 } }, a: { ok: false, why: "gone" } },
  { at, fact: "answer", q: { q: "clear-condition", key: "DH-1", by: "DH" }, a: { ok: true } },
  { at, fact: "answer", q: { q: "plans-in-flight" }, a: { ok: true, value: [] } },
  { at, fact: "answer", q: { q: "plans-in-flight" }, a: { ok: false, why: "store away" } },
  { at, fact: "answer", q: { q: "latest-verdicts" }, a: { ok: true, value: [] } },
  { at, fact: "answer", q: { q: "probe-conditions", source: "DG" }, a: { ok: true, value: [] } },
  { at, fact: "answer", q: { q: "witness-verdicts" }, a: { ok: true, value: {} } },
  { at, fact: "answer", q: { q: "now" }, a: 1791197350000 },
  { at, fact: "answer", q: { q: "write-standings", writes: [] }, a: { ok: true } },
  { at, fact: "store-failed", during: "tick", messages: 0, why: "x" },
]
const keys = [
  "at",
  "fact",
  "message",
  "messages",
  "q",
  "a",
  "machine",
  "statement",
  "streaks",
  "ok",
  "why",
  "value",
  "key",
  "by",
  "source",
  "subject",
  "event",
  "body",
  "seq",
  "saidAt",
  "stream",
  "receivedAt",
  "resources",
  "resource",
  "module",
  "state",
  "reason",
  "m4",
  "__proto__",
  "extra",
]
const anyValue = fc.oneof(
  fc.constantFrom<unknown>(
    null,
    true,
    false,
    0,
    1.5,
    -1,
    "",
    "ok",
    "healthy",
    "sleepy",
    "kept-statement",
    "now",
    at,
    "2026-10-05T10:50:10Z",
    "2026-02-30T10:50:10.000Z",
    "2026-10-05T24:00:00.000Z",
    [],
    {},
    [{}],
    { ok: true },
    { ok: true, value: [1] },
    { ok: true, value: { a: [] } },
    message,
    statement,
    [message],
  ),
  fc.string({ maxLength: 4 }),
)

/** The objects a line holds, outermost first, so an edit can land at any depth. */
const within = (line: Record<string, unknown>): Array<Record<string, unknown>> => {
  const out: Array<Record<string, unknown>> = []
  const walk = (v: unknown) => {
    if (typeof v !== "object" || v === null) return
    if (!Array.isArray(v)) out.push(v as Record<string, unknown>)
    for (const x of Object.values(v)) walk(x)
  }
  walk(line)
  return out
}

/** A recorder's line with a few fields dropped, retyped or added at any depth: what a broken writer might write. */
const nearValidObject = fc
  .tuple(
    fc.constantFrom(...shapes),
    fc.array(fc.tuple(fc.constantFrom("drop", "set"), fc.constantFrom(...keys), anyValue, fc.nat()), { maxLength: 3 }),
  )
  .map(([shape, edits]) => {
    const line = structuredClone(shape)
    for (const [edit, key, value, where] of edits) {
      const objects = within(line)
      const target = objects[where % objects.length]!
      if (edit === "drop") delete target[key]
      else
        Object.defineProperty(target, key, {
          value: structuredClone(value),
          enumerable: true,
          writable: true,
          configurable: true,
        })
    }
    return JSON.stringify(line)
  })

const nearValidLine = nearValidText(shapes.map((s) => JSON.stringify(s)))

const sameReading = (text: string, lastAt: number) => {
  const fast = readControllerLine(2, text, false, lastAt)
  const bySchema = readControllerLine(2, text, false, lastAt, false)
  expect(fast).toEqual(bySchema)
  expect(JSON.stringify(fast)).toBe(JSON.stringify(bySchema))
  return fast
}

/** A machine's statement, near its limits: names of 0, 1, 128 and 129 characters, NULs and lone surrogates. */
const name = fc.oneof(
  fc.constantFrom(
    "",
    "a",
    "m4",
    "a".repeat(128),
    "a".repeat(129),
    "a\u0000b",
    "\uD800",
    "\uD83D\uDE00",
    "x".repeat(1000),
    "x".repeat(1001),
  ),
  fc.string({ maxLength: 6 }),
)
const resourceOf = fc.record(
  {
    resource: name,
    module: name,
    state: fc.constantFrom<unknown>("healthy", "starting", "unhealthy", "sick", 1),
    reason: fc.option(fc.oneof(name, fc.constant<unknown>(3)), { nil: undefined }),
  },
  { requiredKeys: ["resource", "module", "state"] },
)
const statementBody = fc.record(
  {
    machine: fc.oneof(name, fc.constant<unknown>(null)),
    at: fc.constantFrom<unknown>(
      at,
      "2026-10-05T10:50:10Z",
      "1969-12-31T23:59:59.000Z",
      "2026-02-30T00:00:00.000Z",
      "x",
      0,
    ),
    resources: fc.oneof(
      fc.array(resourceOf, { maxLength: 3 }),
      fc.constant<unknown>({}),
      fc.constant(Array.from({ length: 1001 }, () => ({ resource: "r", module: "m", state: "healthy" }))),
    ),
    extra: fc.option(fc.string(), { nil: undefined }),
  },
  { requiredKeys: [] },
)

describe("a machine's statement read by hand", () => {
  it("is read exactly as StatementMessage decodes it, or left to it", () => {
    const decode = Schema.decodeUnknownExit(StatementMessage)
    fc.assert(
      fc.property(statementBody, (body) => {
        const json: unknown = JSON.parse(JSON.stringify(body))
        const fast = statementMessageFast(json)
        const exit = decode(json)
        if (fast === undefined) return
        expect(Exit.isSuccess(exit)).toBe(true)
        if (Exit.isSuccess(exit)) expect(JSON.stringify(fast)).toBe(JSON.stringify(exit.value))
      }),
      { numRuns: 5_000 },
    )
  })

  it("reads a recorder's statement by hand", () => {
    expect(
      statementMessageFast({
        machine: "hq-4",
        at,
        resources: [{ resource: "app", module: "m4", state: "unhealthy", reason: "exited" }],
      }),
    ).toBeDefined()
  })
})

describe("the controller log's fast path", () => {
  it("reads every line exactly as decoding by the Schemas alone does", () => {
    fc.assert(
      fc.property(
        fc.oneof(nearValidObject, nearValidLine, fc.string({ maxLength: 40 })),
        fc.constantFrom(0, Date.parse(at), Date.parse(at) + 1),
        (line, lastAt) => {
          sameReading(line, lastAt)
        },
      ),
      { numRuns: 10_000 },
    )
  })

  it("reads a recorder's line with any one value retyped or dropped as the Schemas do", () => {
    // Every place, not a random few: a null where an object is must be refused, not thrown on, and
    // a reason, a streak or a why of another type refused wherever it sits.
    const places = (v: unknown): Array<[Record<string, unknown> | Array<unknown>, string | number]> =>
      typeof v !== "object" || v === null
        ? []
        : Object.keys(v).flatMap((k) => {
            const key = Array.isArray(v) ? Number(k) : k
            return [
              [v as Record<string, unknown>, key] as [Record<string, unknown>, string | number],
              ...places((v as Record<string, unknown>)[k]),
            ]
          })
    for (const shape of shapes) {
      for (let i = 0; i < places(shape).length; i++) {
        for (const value of [null, 3, "x", true, {}, [], undefined]) {
          const line = structuredClone(shape)
          const [parent, key] = places(line)[i]!
          if (value === undefined && !Array.isArray(parent)) delete (parent as Record<string, unknown>)[key]
          else (parent as Record<string | number, unknown>)[key] = value
          sameReading(JSON.stringify(line), 0)
        }
      }
    }
    // A module named `__proto__` is an own key of the parsed line: the Schemas' to read.
    sameReading(
      `{"at":"${at}","fact":"answer","q":{"q":"kept-statement","machine":"hq-4"},"a":{"statement":${JSON.stringify(statement)},"streaks":{"__proto__":1,"m4":2}}}`,
      0,
    )
    sameReading(
      `{"at":"${at}","fact":"answer","q":{"q":"write-statement","statement":${JSON.stringify(statement)},"streaks":{"__proto__":1}},"a":{"ok":true}}`,
      0,
    )
  })

  it("reads what a recorder writes, giving the facts a Schema-only reading gives", () => {
    for (const shape of shapes) expect(sameReading(JSON.stringify(shape), 0).ok, JSON.stringify(shape)).toBe(true)
  })

  it("reads the recorder's times as each reader's definition does, whatever the text", () => {
    fc.assert(
      fc.property(rfc3339Texts(1960, 2100), (text) => {
        expect(timeOf(text)).toBe(timeOfChecked(text))
        expect(parseRfc3339(text)).toBe(parseRfc3339Checked(text))
      }),
      { numRuns: 20_000 },
    )
  })
})

describe("an act compared with the one recorded, in place", () => {
  // Read from JSON, as recorded acts are: the same value key order aside exactly when the sorted spellings agree.
  const reordered = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(reordered)
      : typeof v === "object" && v !== null
        ? Object.fromEntries(
            Object.entries(v)
              .reverse()
              .map(([k, x]) => [k, reordered(x)]),
          )
        : v
  const json = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown)
  it("says two values are the same exactly when their canonical spellings are", () => {
    fc.assert(
      fc.property(json, json, fc.constantFrom("other", "reordered", "copy"), (a, other, how) => {
        const b = how === "other" ? other : how === "reordered" ? reordered(a) : structuredClone(a)
        expect(sameJson(a, b)).toBe(canonicalJson(a) === canonicalJson(b))
      }),
      { numRuns: 5_000 },
    )
  })
})
