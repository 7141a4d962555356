// The store's refusal of a write under an older epoch, as the core reads it (issue 13; migration 0006).
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { fencedOf, fencedSaid, fencedSqlState } from "@mesh-core/core/lease/fence"
import { lostSentence } from "@mesh-core/core/lease/lease"

describe("a fenced write", () => {
  it("is read from its SQLSTATE alone, its epochs from the detail; any other failure is no refusal", () => {
    fc.assert(
      fc.property(
        fc.option(fc.constantFrom(fencedSqlState, "23505", "40P01", "MF408", "57014"), { nil: undefined }),
        fc.integer({ min: 1, max: 1e9 }),
        fc.integer({ min: 1, max: 1e9 }),
        (code, acting, newest) => {
          const f = fencedOf(code, JSON.stringify({ acting, newest }))
          if (code !== "MF409") expect(f).toBeUndefined()
          else expect(f).toEqual({ acting, newest })
        },
      ),
    )
    // A refusal whose detail cannot be read is still a refusal.
    fc.assert(
      fc.property(fc.option(fc.string(), { nil: undefined }), (detail) => {
        const f = fencedOf(fencedSqlState, detail)
        expect(f).toBeDefined()
      }),
    )
  })

  it("ends in the seed's sentence, with the epochs when known", () => {
    expect(fencedSaid({ acting: 2, newest: 3 })).toBe(
      `the store refused a write under epoch 2: epoch 3 is newer, so another controller holds the lease; ${lostSentence}`,
    )
    expect(fencedSaid({ acting: undefined, newest: undefined })).toBe(
      `the store refused a write under an epoch older than the newest it has seen, so another controller holds the lease; ${lostSentence}`,
    )
  })
})
