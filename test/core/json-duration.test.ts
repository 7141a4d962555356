// The core's two spellings every other area leans on: canonical JSON (two values that mean the same
// give the same text, as Go's json.Marshal writes maps) and Go's durations, stated as relations
// and against the standard library, not against themselves.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { formatDuration, parseDuration, rfc3339, roundToSecond } from "@mesh-core/core/duration"
import { canonicalJson, isJsonObject } from "@mesh-core/core/json"

const json = fc.jsonValue({ maxDepth: 3 })

/** The same value with every object's keys in another order. */
const shuffled = (v: unknown, flip: boolean): unknown => {
  if (Array.isArray(v)) return v.map((x) => shuffled(x, flip))
  if (v !== null && typeof v === "object") {
    const entries = Object.entries(v).map(([k, x]) => [k, shuffled(x, !flip)] as const)
    return Object.fromEntries(flip ? entries.reverse() : entries)
  }
  return v
}

describe("canonical JSON", () => {
  it("reads back as the value it spells, and does not depend on the order keys were given in", () => {
    fc.assert(
      fc.property(json, fc.boolean(), (v, flip) => {
        const text = canonicalJson(v)
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(v)))
        expect(canonicalJson(shuffled(v, flip))).toBe(text)
      }),
    )
  })

  it("writes every object's keys sorted, at every depth, arrays in their order", () => {
    expect(canonicalJson({ b: [3, { z: 1, a: null }], a: "x", é: true })).toBe(
      '{"a":"x","b":[3,{"a":null,"z":1}],"é":true}',
    )
    expect(canonicalJson([{ b: 1, a: 2 }, []])).toBe('[{"a":2,"b":1},[]]')
    expect(canonicalJson(undefined)).toBe("null")
    expect([isJsonObject({}), isJsonObject([]), isJsonObject(null), isJsonObject("x")]).toEqual([
      true,
      false,
      false,
      false,
    ])
  })
})

describe("Go's durations", () => {
  it("format as Go's Duration.String: hours, minutes and seconds, the units below the largest always written", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100 }),
        fc.integer({ min: 0, max: 59 }),
        fc.integer({ min: 0, max: 59 }),
        (h, m, s) => {
          const ms = ((h * 60 + m) * 60 + s) * 1_000
          const want = ms === 0 ? "0s" : h > 0 ? `${h}h${m}m${s}s` : m > 0 ? `${m}m${s}s` : `${s}s`
          expect(formatDuration(ms)).toBe(want)
          expect(formatDuration(-ms)).toBe(ms === 0 ? "0s" : `-${want}`)
          // and what is formatted parses back
          expect(parseDuration(want)).toBe(ms)
        },
      ),
    )
    expect([1, 999, 1_001, 61_250].map(formatDuration)).toEqual(["1ms", "999ms", "1.001s", "1m1.25s"])
  })

  it("parse Go's spelling and nothing else", () => {
    expect(["1h", "1m", "1s", "1ms", "1.5s", "2h3m4s5ms", "0", "1.25s", "0.125s"].map(parseDuration)).toEqual([
      3_600_000, 60_000, 1_000, 1, 1_500, 7_384_005, 0, 1_250, 125,
    ])
    expect(["", "1", "1d", "s", "1s ", " 1s", "1s1", "1.s", "-1s", "00"].map(parseDuration)).toEqual(
      Array(10).fill(undefined),
    )
    // At most 596h, just under the longest a timer waits (2^31 − 1 ms): issue 27.
    expect(parseDuration("596h")).toBe(596 * 3_600_000)
    expect(596 * 3_600_000).toBeLessThan(2 ** 31 - 1)
    expect(["596h1ms", "597h", "35761m", "99999999999h", "99999999999999999999h"].map(parseDuration)).toEqual(
      Array(5).fill(undefined),
    )
  })

  it("round to the second half away from zero, and write RFC 3339 to the second as Date does", () => {
    expect([499, 500, 1_499, 1_500, -499, -500, -1_500].map(roundToSecond)).toEqual([
      0, 1_000, 1_000, 2_000, -0, -1_000, -2_000,
    ])
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_102_444_800_000 }), (ms) => {
        const whole = ms - (ms % 1_000)
        expect(rfc3339(ms)).toBe(new Date(whole).toISOString().slice(0, 19) + "Z")
      }),
    )
  })
})
