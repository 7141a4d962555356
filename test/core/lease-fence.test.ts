// The store's refusal of a write under an older epoch, as the core reads it (issue 13; migration 0006).
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { fencedOf, fencedSaid, fencedSqlState, storeSessionEnded } from "@mesh-core/core/lease/fence"
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

describe("a session the store ended (issue 26)", () => {
  it("is read from the client's closed connection, PostgreSQL's operator-intervention class and the idle-transaction timeout; a statement's own failure is not", () => {
    // Gone: the transaction went with the session, and nothing more may be sent for it.
    for (const code of ["CONNECTION_CLOSED", "CONNECTION_ENDED", "CONNECTION_DESTROYED", "ECONNRESET", "EPIPE"])
      expect(storeSessionEnded(code), code).toBe(true)
    // pg_terminate_backend (a newer epoch's fence), a shutdown, the idle-in-transaction timeout.
    for (const code of ["57P01", "57P02", "57P03", "25P03"]) expect(storeSessionEnded(code), code).toBe(true)
    // The session lives on, its transaction aborted and rolled back by the client as usual: a statement cancelled
    // by its timeout (57014), a lock not had in time (55P03), a refusal of the fence, a conflict, no code at all.
    for (const code of ["57014", "55P03", fencedSqlState, "23505", "40P01", "25P02", undefined])
      expect(storeSessionEnded(code), String(code)).toBe(false)
  })
})
