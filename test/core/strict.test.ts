// `simulate --strict` (issue 27): a replay that does not reproduce its day is named, count by count.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { strictWithWhatIf, unreproduced } from "@mesh-core/core/strict"

describe("--strict", () => {
  it("refuses a replay exactly when any count tells it from the day", () => {
    const n = fc.nat({ max: 3 })
    fc.assert(
      fc.property(n, n, fc.option(n, { nil: undefined }), (inferred, unasked, differed) => {
        const why = unreproduced({ inferred, unasked, ...(differed === undefined ? {} : { differed }) })
        expect(why === undefined).toBe(inferred === 0 && unasked === 0 && (differed ?? 0) === 0)
      }),
    )
  })

  it("says each count in words", () => {
    expect(unreproduced({ inferred: 0, unasked: 0, differed: 0 })).toBeUndefined()
    expect(unreproduced({ inferred: 1, unasked: 2, differed: 1 })).toBe(
      "--strict: the replay does not reproduce the day: 1 act differs from the one recorded; " +
        "1 answer was not recorded and was inferred; 2 recorded answers were never asked for",
    )
    expect(unreproduced({ inferred: 2, unasked: 1, differed: 3 })).toBe(
      "--strict: the replay does not reproduce the day: 3 acts differ from the ones recorded; " +
        "2 answers were not recorded and were inferred; 1 recorded answer was never asked for",
    )
  })

  it("is no question for a what-if", () => {
    expect(strictWithWhatIf([], [])).toBeUndefined()
    expect(strictWithWhatIf(["passes=5"], [])).toContain("give one or the other")
    expect(strictWithWhatIf([], ["passes=3,5"])).toContain("give one or the other")
  })
})
