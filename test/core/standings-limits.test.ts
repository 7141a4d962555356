// Each of a word's limits (issue 14, docs/bus.md) at its edge: the last value the store can keep is
// heard, the first it cannot is refused naming the field; and RFC 3339 read field by field.
import { describe, expect, it } from "vitest"
import { hear, parseRfc3339, wordLimits } from "@mesh-core/core/standings/word"
import { lettaFailing, lettaFailingSaidAt } from "../support/standing-words.ts"

const good = lettaFailing
const saidAt = lettaFailingSaidAt
const failing = (body: Record<string, unknown>) => hear("provisioner.failing", JSON.stringify(body), saidAt, undefined)
const recovered = (body: Record<string, unknown>) =>
  hear("provisioner.recovered", JSON.stringify(body), saidAt, undefined)
const why = (h: ReturnType<typeof hear>) => (h.ok ? "heard" : h.why)

describe("a word's limits, at their edges", () => {
  it("are the store's", () => {
    expect(wordLimits).toEqual({
      attemptsMax: 2_147_483_647,
      nameChars: 128,
      classChars: 64,
      errorChars: 1_000,
      whyChars: 200,
      bodyChars: 16_384,
      firstYear: 1970,
      lastYear: 9999,
      aheadOfStreamMs: 3_600_000,
      sinceAheadMs: 1_000,
    })
  })

  it("each name: 1 to 128 characters", () => {
    for (const field of ["consumer", "node", "provider", "provider-node"]) {
      expect(why(failing({ ...good, [field]: "n".repeat(128) }))).toBe("heard")
      expect(why(failing({ ...good, [field]: "n".repeat(129) }))).toContain("longer than 128 characters")
      expect(why(failing({ ...good, [field]: "" }))).toContain("empty")
    }
  })

  it("class 64, error 1,000 and why 200 characters; no NUL and no lone surrogate in any text; a surrogate pair is a character", () => {
    expect(why(failing({ ...good, class: "c".repeat(64) }))).toBe("heard")
    expect(why(failing({ ...good, class: "c".repeat(65) }))).toContain("longer than 64 characters")
    expect(why(failing({ ...good, error: "e".repeat(1_000) }))).toBe("heard")
    expect(why(failing({ ...good, error: "e".repeat(1_001) }))).toContain("longer than 1000 characters")
    const base = { consumer: "letta", provider: "identity", "provider-node": "hq-2" }
    expect(why(recovered({ ...base, why: "w".repeat(200) }))).toBe("heard")
    expect(why(recovered({ ...base, why: "w".repeat(201) }))).toContain("longer than 200 characters")
    expect(why(failing({ ...good, error: "a\u0000b" }))).toContain(
      "holds a NUL or a lone surrogate, which the store cannot keep",
    )
    expect(why(failing({ ...good, class: "\uDC00" }))).toContain(
      "holds a NUL or a lone surrogate, which the store cannot keep",
    )
    expect(why(failing({ ...good, error: "ok 😀" }))).toBe("heard")
  })

  it("attempts: a whole number from 0 to a PostgreSQL integer", () => {
    expect(why(failing({ ...good, attempts: 0 }))).toBe("heard")
    expect(why(failing({ ...good, attempts: 1.5 }))).toContain("not a whole number")
    expect(why(failing({ ...good, attempts: -1 }))).toContain("not between 0 and 2147483647 (a PostgreSQL integer)")
    expect(
      why(recovered({ consumer: "letta", provider: "identity", "provider-node": "hq-2", attempts: 2_147_483_648 })),
    ).toContain("not between 0 and 2147483647")
  })

  it("times: RFC 3339 with a year from 1970 to 9999", () => {
    expect(why(failing({ ...good, since: "2026-13-01T00:00:00Z" }))).toContain(
      "not an RFC 3339 time with a year from 1970 to 9999",
    )
    expect(
      why(
        hear("provisioner.failing", JSON.stringify(good), "2026-10-05T06:15:00Z", Date.parse("2026-10-05T05:15:00Z")),
      ),
    ).toBe("heard") // an hour ahead of the stream at most
  })
})

describe("RFC 3339, field by field", () => {
  it("reads the edges of every field and refuses one past them", () => {
    expect(parseRfc3339("1970-01-01T00:00:00Z")).toBe(0)
    expect(parseRfc3339("9999-12-31T23:59:59Z")).toBe(Date.UTC(9999, 11, 31, 23, 59, 59))
    expect(parseRfc3339("10000-01-01T00:00:00Z")).toBeUndefined()
    for (const bad of [
      "2026-00-01T00:00:00Z",
      "2026-01-00T00:00:00Z",
      "2026-01-32T00:00:00Z",
      "2026-04-31T00:00:00Z",
      "2026-10-05T00:60:00Z",
      "2026-10-05T00:00:60Z",
      "2026-10-05T00:00:00+24:00",
      "2026-10-05T00:00:00+00:60",
      "2026-10-05T00:00:00",
    ]) {
      expect(parseRfc3339(bad), bad).toBeUndefined()
    }
    expect(parseRfc3339("2026-12-31T00:00:00Z")).toBe(Date.UTC(2026, 11, 31))
    expect(parseRfc3339("2026-06-30T23:00:00z")).toBe(Date.UTC(2026, 5, 30, 23))
    expect(parseRfc3339("2026-10-05t06:00:00.5Z")).toBe(Date.UTC(2026, 9, 5, 6, 0, 0, 500))
    expect(parseRfc3339("2026-10-05T06:00:00.123456789Z")).toBe(Date.UTC(2026, 9, 5, 6, 0, 0, 123))
    expect(parseRfc3339("2026-10-05T06:00:00-01:30")).toBe(Date.UTC(2026, 9, 5, 7, 30))
    expect(parseRfc3339("2026-10-05T06:00:00+23:59")).toBe(Date.UTC(2026, 9, 5, 6) - (23 * 60 + 59) * 60_000)
  })

  it("February has 29 days in a leap year: every fourth, not every hundredth, every four hundredth", () => {
    expect(
      ["2024-02-29", "2000-02-29", "2100-02-29", "2026-02-29", "2026-02-28"].map(
        (d) => parseRfc3339(`${d}T00:00:00Z`) !== undefined,
      ),
    ).toEqual([true, true, false, false, true])
  })
})
