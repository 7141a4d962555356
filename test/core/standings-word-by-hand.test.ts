// The follower reads a word's body by hand before the Schema (issue 11). The Schemas (FailingBody,
// RecoveredBody) stay the definition: on any body, what the hand reading accepts the Schema accepts
// as the same value, and every body a provider writes is read by hand (not left to the Schema).
import fc from "fast-check"
import * as Exit from "effect/Exit"
import { describe, expect, it } from "vitest"
import { bySchema, failingByHand, recoveredByHand, wordLimits } from "@mesh-core/core/standings/word"

// Values at and past each limit, of every JSON type, and texts with a NUL, a lone surrogate or a pair.
const edgyText = fc.oneof(
  fc.string({ maxLength: 3 }),
  fc.string({ unit: "grapheme", maxLength: 3 }),
  fc.string({ unit: "binary", maxLength: 3 }),
  fc.constantFrom("", "a\u0000b", "\uD800", "x\uDC00", "😀", "\uD83D\uDE00z"),
  fc.constantFrom(63, 64, 65, 127, 128, 129, 199, 200, 201, 999, 1_000, 1_001).map((n) => "n".repeat(n)),
  fc.constantFrom(127, 128).map((n) => `${"n".repeat(n - 1)}😀`),
)
const edgyTime = fc.constantFrom(
  "2026-10-05T06:10:00Z",
  "2026-10-05T06:10:00.123Z",
  "2026-10-05T06:10:00.123456789+02:00",
  "1970-01-01T00:00:00Z",
  "1969-12-31T23:59:59Z",
  "9999-12-31T23:59:59Z",
  "2026-02-29T00:00:00Z",
  "2024-02-29T00:00:00Z",
  "2026-10-05 06:10:00Z",
  "2026-10-05T24:00:00Z",
  "not a time",
)
const edgyNumber = fc.oneof(
  fc.constantFrom(
    0,
    -0,
    1,
    -1,
    1.5,
    wordLimits.attemptsMax,
    wordLimits.attemptsMax + 1,
    Number.MAX_SAFE_INTEGER + 2,
    1e300,
  ),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
)
const anyValue = fc.oneof(
  { weight: 4, arbitrary: edgyText },
  { weight: 2, arbitrary: edgyTime },
  { weight: 3, arbitrary: edgyNumber },
  fc.constantFrom(null, true, false, [], {}, ["a"], { a: 1 }),
)
const keys = ["attempts", "class", "consumer", "error", "node", "provider", "provider-node", "since", "why"] as const
// Any object over the bodies' keys (each present or not, with any value), sometimes with other keys;
// or not an object at all.
const anyBody = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record(Object.fromEntries([...keys.map((k) => [k, anyValue]), ["other", anyValue]]), {
      requiredKeys: [],
    }),
  },
  fc.constantFrom(null, 1, "body", [], [{ consumer: "c" }]),
)
// Bodies a provider writes: each field within its limits (names of 1 to 128 characters, no NUL or
// lone surrogate), through JSON as on the bus.
const name = fc
  .string({ unit: "grapheme", minLength: 1, maxLength: 32 })
  .filter((s) => !s.includes("\u0000") && s.length <= wordLimits.nameChars)
const text = (max: number) =>
  fc.string({ unit: "grapheme", maxLength: 40 }).filter((s) => !s.includes("\u0000") && s.length <= max)
const time = fc.integer({ min: 0, max: Date.UTC(9999, 11, 31) }).map((ms) => new Date(ms).toISOString())
const attempts = fc.integer({ min: 0, max: wordLimits.attemptsMax })
const writtenFailing = fc.record({
  attempts,
  class: text(wordLimits.classChars),
  consumer: name,
  error: text(wordLimits.errorChars),
  node: name,
  provider: name,
  "provider-node": name,
  since: fc.oneof(time, fc.constantFrom("2026-10-05T06:10:00Z", "2026-10-05T06:10:00+02:00")),
})
const writtenRecovered = fc.record(
  {
    attempts,
    consumer: name,
    node: name,
    provider: name,
    "provider-node": name,
    since: time,
    why: text(wordLimits.whyChars),
  },
  { requiredKeys: ["consumer", "provider", "provider-node"] },
)
const viaJson = (b: unknown): unknown => JSON.parse(JSON.stringify(b))
const sameWhereAccepted = <A>(hand: A | undefined, schema: Exit.Exit<A, unknown>) => {
  if (hand === undefined) return
  expect(Exit.isSuccess(schema)).toBe(true)
  if (Exit.isSuccess(schema)) expect(hand).toStrictEqual(schema.value)
}

describe("a word's body read by hand, held to its Schema", () => {
  it("accepts only what the Schema accepts, as the same value (failing and recovered, any body)", () => {
    fc.assert(
      fc.property(anyBody, (raw) => {
        const json = viaJson(raw)
        sameWhereAccepted(failingByHand(json), bySchema.failing(json))
        sameWhereAccepted(recoveredByHand(json), bySchema.recovered(json))
      }),
      { numRuns: 4_000 },
    )
  })

  it("reads by hand every body the Schema accepts among the edges (it declines none a provider could write)", () => {
    fc.assert(
      fc.property(anyBody, (raw) => {
        const json = viaJson(raw)
        expect(failingByHand(json) !== undefined).toBe(Exit.isSuccess(bySchema.failing(json)))
        expect(recoveredByHand(json) !== undefined).toBe(Exit.isSuccess(bySchema.recovered(json)))
      }),
      { numRuns: 4_000 },
    )
  })

  it("reads by hand every body a provider writes, as the Schema reads it", () => {
    fc.assert(
      fc.property(writtenFailing, writtenRecovered, (f, r) => {
        const failing = failingByHand(viaJson(f))
        const recovered = recoveredByHand(viaJson(r))
        expect(failing).toStrictEqual(viaJson(f))
        expect(recovered).toStrictEqual(viaJson(r))
        const s = bySchema.failing(viaJson(f))
        expect(Exit.isSuccess(s) && s.value).toStrictEqual(viaJson(f))
      }),
    )
  })

  it("declines what the Schema refuses, at each limit", () => {
    const good = {
      attempts: 1,
      class: "c",
      consumer: "c",
      error: "e",
      node: "n",
      provider: "p",
      "provider-node": "pn",
      since: "2026-10-05T06:10:00Z",
    }
    expect(failingByHand(good)).toStrictEqual(good)
    for (const bad of [
      { attempts: -1 },
      { attempts: 1.5 },
      { attempts: wordLimits.attemptsMax + 1 },
      { attempts: "1" },
      { class: "c".repeat(65) },
      { error: "e".repeat(1_001) },
      { consumer: "" },
      { node: "n".repeat(129) },
      { provider: "a\u0000" },
      { "provider-node": "\uD800" },
      { since: "2026-10-05" },
      { since: "1969-12-31T23:59:59Z" },
    ])
      expect(failingByHand({ ...good, ...bad }), JSON.stringify(bad)).toBeUndefined()
    const { attempts: _, ...noAttempts } = good
    expect(failingByHand(noAttempts)).toBeUndefined()
    expect(failingByHand([good])).toBeUndefined()
    expect(
      recoveredByHand({ consumer: "c", provider: "p", "provider-node": "pn", why: "w".repeat(201) }),
    ).toBeUndefined()
    expect(recoveredByHand({ consumer: "c", provider: "p", "provider-node": "pn", node: null })).toBeUndefined()
    expect(recoveredByHand({ consumer: "c", provider: "p", "provider-node": "pn", other: 1 })).toStrictEqual({
      consumer: "c",
      provider: "p",
      "provider-node": "pn",
    })
  })
})
