// /readyz and /healthz as rules (issue 10): ready only while holding the lease with the store and the
// bus answering lately, each missing one a reason of its own; alive while no loop has stalled.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  liveness,
  probeAnswer,
  readiness,
  type ReadinessFacts,
  recordingStopped,
} from "@mesh-core/core/controller/readiness"

const now = 1_800_000_000_000
const answered = fc.record({
  at: fc.option(fc.integer({ min: now - 120_000, max: now }), { nil: undefined }),
  why: fc.option(fc.constantFrom("connection refused", "timed out after 1s"), { nil: undefined }),
})
const factsArb: fc.Arbitrary<ReadinessFacts> = fc.record({
  lease: fc.record({
    held: fc.boolean(),
    holder: fc.option(fc.constantFrom("hq-2/4242/ab12", ""), { nil: undefined }),
  }),
  store: answered,
  bus: answered,
  now: fc.constant(now),
  within: fc.integer({ min: 1_000, max: 60_000 }),
})

describe("readiness", () => {
  it("ready exactly when the lease is held and the store and the bus each answered within the bound; one reason per thing missing, naming it", () => {
    fc.assert(
      fc.property(factsArb, (f) => {
        const lately = (at: number | undefined) => at !== undefined && now - at <= f.within
        const missing = [!f.lease.held, !lately(f.store.at), !lately(f.bus.at)]
        const r = readiness(f)
        expect(r.ok).toBe(missing.every((m) => !m))
        expect(r.reasons.length).toBe(missing.filter(Boolean).length)
        expect(r.reasons.some((x) => x.includes("lease"))).toBe(missing[0])
        expect(r.reasons.some((x) => x.includes("store"))).toBe(missing[1])
        expect(r.reasons.some((x) => x.includes("bus"))).toBe(missing[2])
      }),
    )
  })

  it("a controller that does not hold the lease names who does; a probe's failure is said with it", () => {
    const r = readiness({
      lease: { held: false, holder: "hq-2/4242/ab12" },
      store: { at: undefined, why: "connection refused" },
      bus: { at: now - 30_000 },
      now,
      within: 10_000,
    })
    expect(r.reasons).toEqual([
      "this controller does not hold the controller lease (hq-2/4242/ab12 holds it)",
      "the store has not answered: connection refused",
      "the bus last answered 30s ago (more than 10s)",
    ])
  })
})

describe("liveness", () => {
  it("alive exactly when every loop that has turned turned within the bound; each stalled loop named", () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.constantFrom("gate", "standings", "reports", "health"),
          fc.integer({ min: now - 600_000, max: now }),
        ),
        fc.integer({ min: 1_000, max: 300_000 }),
        (beats, stallAfter) => {
          const stalled = Object.entries(beats)
            .filter(([, at]) => now - at > stallAfter)
            .map(([l]) => l)
          const r = liveness({ beats, now, stallAfter })
          expect(r.ok).toBe(stalled.length === 0)
          expect(r.reasons.length).toBe(stalled.length)
          for (const l of stalled) expect(r.reasons.some((x) => x.startsWith(`the ${l} loop`))).toBe(true)
        },
      ),
    )
  })

  it("a process whose loops have not turned yet is alive", () =>
    expect(liveness({ beats: {}, now, stallAfter: 1 }).ok).toBe(true))
})

describe("the probes' answers", () => {
  it("200 and one word when well; 503 and one reason a line when not", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ minLength: 1 }).filter((s) => !s.includes("\n")),
          { maxLength: 4 },
        ),
        (reasons) => {
          const a = probeAnswer({ ok: reasons.length === 0, reasons }, "ready")
          expect(a.status).toBe(reasons.length === 0 ? 200 : 503)
          if (reasons.length === 0) expect(a.body).toBe("ready\n")
          else expect(a.body.split("\n")).toEqual(["not ready:", ...reasons.map((r) => `- ${r}`), ""])
        },
      ),
    )
  })
})

describe("notes (issue 27): what a person should know that does not stop the controller acting", () => {
  it("never change the status, and are said after the reasons, one a line", () => {
    const note = recordingStopped("/var/log/c.jsonl", "ENOSPC: no space left on device, write")
    expect(note).toBe(
      "the recording in /var/log/c.jsonl stopped: ENOSPC: no space left on device, write; it ends at its last whole line, and the controller decides on without recording",
    )
    const at = 1_780_000_000_000
    const facts = { lease: { held: true }, store: { at }, bus: { at }, now: at, within: 30_000 }
    const ready = readiness({ ...facts, notes: [note] })
    expect(probeAnswer(ready, "ready")).toEqual({ status: 200, body: `ready\nnote: ${note}\n` })
    const not = readiness({ ...facts, lease: { held: false }, notes: [note] })
    expect(probeAnswer(not, "ready")).toEqual({
      status: 503,
      body: `not ready:\n- this controller does not hold the controller lease\nnote: ${note}\n`,
    })
    expect(readiness(facts)).toEqual({ ok: true, reasons: [] })
  })
})

describe("the probes' reasons, word for word", () => {
  const at = 1_780_000_000_000
  const facts = { lease: { held: true }, store: { at }, bus: { at }, now: at, within: 30_000 }
  it("who holds the lease, what did not answer and why, and a bound reached exactly is still within it", () => {
    expect(readiness({ ...facts, lease: { held: false, holder: "hq-2/77/cd34" } }).reasons).toEqual([
      "this controller does not hold the controller lease (hq-2/77/cd34 holds it)",
    ])
    expect(readiness({ ...facts, lease: { held: false, holder: "" } }).reasons).toEqual([
      "this controller does not hold the controller lease",
    ])
    expect(readiness({ ...facts, lease: { held: false } }).reasons).toEqual([
      "this controller does not hold the controller lease",
    ])
    expect(readiness({ ...facts, store: { at: undefined, why: "" } }).reasons).toEqual(["the store has not answered"])
    expect(readiness({ ...facts, store: { at: undefined, why: "connection refused" } }).reasons).toEqual([
      "the store has not answered: connection refused",
    ])
    expect(readiness({ ...facts, bus: { at: at - 30_000 } }).ok).toBe(true)
    expect(readiness({ ...facts, bus: { at: at - 30_001, why: "timeout" } }).reasons).toEqual([
      "the bus last answered 30.001s ago (more than 30s): timeout",
    ])
    expect(liveness({ beats: { gate: at - 5_000 }, now: at, stallAfter: 5_000 }).ok).toBe(true)
    expect(liveness({ beats: { gate: at - 5_001 }, now: at, stallAfter: 5_000 }).reasons).toEqual([
      "the gate loop has not finished a pass for 5.001s (more than 5s)",
    ])
  })
})
