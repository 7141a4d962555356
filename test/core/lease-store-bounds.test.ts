// The bounds the controller's store sessions carry, from the lease's settings (issue 26): a transaction
// a paused holder leaves open is ended by the store before any candidate may take the lease over.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { defaultLeaseSettings, leaseSettings, maxDrift } from "@mesh-core/core/lease/settings"
import { leastStatementMs, storeBounds } from "@mesh-core/core/lease/store-bounds"

/** Settings the lease itself accepts, in milliseconds. */
const settingsArb = fc
  .record({
    duration: fc.integer({ min: 200, max: 120_000 }),
    renewDeadline: fc.integer({ min: 100, max: 120_000 }),
    retry: fc.integer({ min: 1, max: 10_000 }),
  })
  .map((s) =>
    leaseSettings({ duration: `${s.duration}ms`, renewDeadline: `${s.renewDeadline}ms`, retry: `${s.retry}ms` }),
  )
  .filter((r) => r.ok)
  .map((r) => (r.ok ? r.settings : defaultLeaseSettings))

describe("the store's bounds from the lease", () => {
  it("client-go's defaults (15 s / 10 s): statements and idle transactions 1.875 s, lock waits 0.937 s", () => {
    expect(storeBounds(defaultLeaseSettings)).toEqual({
      ok: true,
      bounds: { statementMs: 1_875, idleInTransactionMs: 1_875, lockMs: 937 },
    })
  })

  it("a holder paused at its renew deadline, a statement running: its session is ended before the earliest takeover", () => {
    fc.assert(
      fc.property(settingsArb, (s) => {
        const r = storeBounds(s)
        if (!r.ok) return
        const b = r.bounds
        // The latest the paused holder acted (its deadline on a clock 5 % slow), then the statement's
        // bound, then the idle transaction's: before a candidate counting the lease on a clock 5 % fast.
        // (A microsecond allowed for floating point: 16766 × 1.05 + … against 67314 × 0.95 meet exactly.)
        expect(s.renewDeadline * (1 + maxDrift) + b.statementMs + b.idleInTransactionMs).toBeLessThanOrEqual(
          s.duration * (1 - maxDrift) + 1e-3,
        )
        // Every bound is one PostgreSQL keeps (0 would be none), and a lock wait ends before its statement's bound.
        expect(b.statementMs).toBeGreaterThanOrEqual(leastStatementMs)
        expect(b.idleInTransactionMs).toBeGreaterThanOrEqual(leastStatementMs)
        expect(b.lockMs).toBeGreaterThan(0)
        expect(b.lockMs).toBeLessThan(b.statementMs)
        expect(Number.isInteger(b.statementMs) && Number.isInteger(b.idleInTransactionMs)).toBe(true)
      }),
    )
  })

  it("refused exactly when the room between the deadline and the takeover cannot hold a statement's least bound and an idle one", () => {
    fc.assert(
      fc.property(settingsArb, (s) => {
        const room = s.duration * (1 - maxDrift) - s.renewDeadline * (1 + maxDrift)
        const r = storeBounds(s)
        expect(r.ok).toBe(room >= 2 * leastStatementMs)
        if (!r.ok) expect(r.problem).toContain("lengthen the lease or shorten the renew deadline")
      }),
    )
  })

  it("says the lease, the deadline and the bound it would come to", () => {
    const r = storeBounds({ duration: 1_000, renewDeadline: 800, retry: 100 })
    expect(r).toEqual({
      ok: false,
      problem:
        "the lease (1s) leaves 110ms after the renew deadline (800ms) before a takeover: a transaction of the controller's would be bounded to 55ms, under the 100ms a statement needs; lengthen the lease or shorten the renew deadline",
    })
  })
})
