// The standings' times as the store is sent them (shells/src/store/iso-time.ts): written by hand for
// speed (issue 30), the very text Date's toISOString writes, for any time a Date holds, in any order
// (the day it remembers changes as it goes).
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { isoTime } from "../../shells/src/store/iso-time.ts"

const dateMax = 8_640_000_000_000_000
const lastMs = 253_402_300_800_000

describe("a time as the store is sent it", () => {
  it("is what toISOString writes, for any whole millisecond a Date holds, one after another", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.integer({ min: 0, max: lastMs + 86_400_000 }),
            fc.integer({ min: -dateMax, max: dateMax }),
            fc.integer({ min: 1_790_000_000_000, max: 1_790_000_000_000 + 3 * 86_400_000 }),
          ),
          { minLength: 1, maxLength: 50 },
        ),
        (times) => {
          for (const ms of times) expect(isoTime(ms)).toBe(new Date(ms).toISOString())
        },
      ),
      { numRuns: 500 },
    )
  })

  it("is what toISOString writes at the edges: the epoch, the ends of a day, of a leap day, of the year 9999, and past them", () => {
    const edges = [
      0,
      1,
      86_399_999,
      86_400_000,
      Date.UTC(2024, 1, 29, 23, 59, 59, 999),
      Date.UTC(2024, 2, 1),
      Date.UTC(2026, 9, 5, 6, 0, 0, 10),
      lastMs - 1,
      lastMs,
      -1,
      -86_400_001,
      1.5,
      dateMax,
      -dateMax,
    ]
    for (const ms of [...edges, ...edges.toReversed()]) expect(isoTime(ms)).toBe(new Date(ms).toISOString())
  })
})
