// The recorders' time read by hand (recorder-time.ts, issue 11) against its definition, on the
// recorders' own shape and on every near miss of it: a character changed, something after the `Z`,
// an offset in its place. The fast reading may decline a text; it never answers otherwise than the
// definition, whatever texts came before it.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { withRecorderShape } from "@mesh-core/core/recorder-time"

// The definition, written apart from the code: RFC 3339 with a zone, read by Date.parse.
const rfc3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/
const definition = (text: string): number | undefined => {
  if (!rfc3339.test(text)) return undefined
  const ms = Date.parse(text)
  return Number.isNaN(ms) ? undefined : ms
}

const recorded = fc
  .date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2099-12-31T23:59:59.999Z"), noInvalidDate: true })
  .map((d) => d.toISOString())
const nearMiss = fc.oneof(
  recorded,
  fc
    .tuple(recorded, fc.nat({ max: 23 }), fc.constantFrom("a", ":", "/", " ", "9", "0", "6", "Z", "+", "T"))
    .map(([t, i, c]) => t.slice(0, i) + c + t.slice(i + 1)),
  fc.tuple(recorded, fc.constantFrom("junk", "Z", "0", " ")).map(([t, s]) => t + s),
  fc.tuple(recorded, fc.constantFrom("+02:00", "-05:30", "+00:00")).map(([t, z]) => t.slice(0, 23) + z),
  fc.tuple(recorded, fc.nat({ max: 23 })).map(([t, i]) => t.slice(0, i) + t.slice(i + 1)),
)

describe("the recorders' time, read by hand", () => {
  it("answers as the definition on the recorders' shape and every near miss, whatever was read before", () => {
    fc.assert(
      fc.property(fc.array(nearMiss, { minLength: 1, maxLength: 12 }), (texts) => {
        const read = withRecorderShape(definition)
        for (const t of texts) expect(read(t)).toBe(definition(t))
      }),
      { numRuns: 500 },
    )
  })

  it("the near misses the shape alone does not refuse", () => {
    const read = withRecorderShape(definition)
    const cases = [
      "2026-10-05T06:10:00.001Z",
      "2026-10-05T06:10:00.00aZ",
      "2026-10-05T06:10:00.001Zjunk",
      "2026-10-05T06:10:00.001+02:00",
      "2026-10-05T24:00:00.000Z",
      "2026-10-05T23:60:00.000Z",
      "2026-10-05T23:59:60.000Z",
      "2026-10-06T00:00:00.000Z",
      "2026-10-05T06:1a:00.001Z",
      "2026-10-05T0a:10:00.001Z",
      "2026-10-05T06:10:0a.001Z",
      "2026-13-05T06:10:00.001Z",
    ]
    for (const t of cases) expect([t, read(t)]).toEqual([t, definition(t)])
    expect(read("2026-10-05T06:10:00.001Z")).toBe(Date.UTC(2026, 9, 5, 6, 10, 0, 1))
    expect(read("2026-10-05T23:59:59.999Z")).toBe(Date.UTC(2026, 9, 5, 23, 59, 59, 999))
  })
})

// A recorder's own time declined by the hand reading still reads right (the definition answers),
// but a day of them read through the definition is what issue 11 measured as a tenth of a replay.
// So the rule is stronger on what recorders write: the hand reading takes every such time, and asks
// the definition only for the midnight of a date it has not just read.
describe("the recorders' time, as the recorders write it", () => {
  const field = (min: number, max: number) => fc.oneof(fc.constantFrom(min, max), fc.integer({ min, max }))
  const written = fc
    .tuple(field(1970, 2099), field(0, 11), field(1, 28), field(0, 23), field(0, 59), field(0, 59), field(0, 999))
    .map(([y, mo, d, h, mi, s, ms]) => new Date(Date.UTC(y, mo, d, h, mi, s, ms)).toISOString())

  it("is read by hand, the definition asked only for each new date's midnight", () => {
    fc.assert(
      fc.property(fc.array(written, { minLength: 1, maxLength: 12 }), (texts) => {
        const asked: Array<string> = []
        const read = withRecorderShape((text) => {
          asked.push(text)
          return definition(text)
        })
        // Told apart from the reading: a date changes where a text's first ten characters do.
        const expected: Array<string> = []
        texts.forEach((t, i) => {
          if (i === 0 || texts[i - 1]!.slice(0, 10) !== t.slice(0, 10)) expected.push(`${t.slice(0, 10)}T00:00:00.000Z`)
          expect(read(t)).toBe(Date.parse(t))
        })
        expect(asked).toEqual(expected)
      }),
      { numRuns: 1_000 },
    )
  })

  it("answers a text read again in a row from memory, asking the definition nothing", () => {
    fc.assert(
      fc.property(nearMiss, (text) => {
        const asked: Array<string> = []
        const read = withRecorderShape((t) => {
          asked.push(t)
          return definition(t)
        })
        read(text)
        const before = asked.length
        expect(read(text)).toBe(definition(text))
        expect(asked.length).toBe(before)
      }),
      { numRuns: 300 },
    )
  })

  it("takes each field's first and last value by hand", () => {
    const asked: Array<string> = []
    const read = withRecorderShape((text) => {
      asked.push(text)
      return definition(text)
    })
    for (const t of [
      "2026-10-05T00:00:00.000Z",
      "2026-10-05T23:59:59.999Z",
      "2026-10-05T09:09:09.009Z",
      "2026-10-05T10:10:10.100Z",
    ]) {
      expect([t, read(t)]).toEqual([t, Date.parse(t)])
    }
    expect(asked).toEqual(["2026-10-05T00:00:00.000Z"])
  })
})
