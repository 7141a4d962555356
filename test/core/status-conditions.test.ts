// One way to see what is wrong (issue 28): every failing standing is an urgent condition, listed
// before the store's, and status is well exactly when nothing urgent is open and everything was read.
// Stated over random standings and stored conditions, apart from the code.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { statusOf } from "@mesh-core/core/standings/status"
import type { Kept } from "@mesh-core/core/standings/standings"
import { conditionLine, type OpenCondition, openConditions } from "@mesh-core/core/status/conditions"
import { wholeStatus } from "@mesh-core/core/status/whole"

const at = Date.parse("2026-12-05T09:00:00Z")
const kept: fc.Arbitrary<Kept> = fc.record(
  {
    provider: fc.constantFrom("postgres", "identity"),
    providerNode: fc.constantFrom("hq-1", "hq-2"),
    consumer: fc.constantFrom("letta", "grafana", "outline"),
    state: fc.constantFrom("failing", "recovered", "forgotten"),
    at: fc.integer({ min: at - 7_200_000, max: at }),
    consumerNode: fc.constantFrom("hq-3", "hq-4"),
    class: fc.constant("unreachable"),
    error: fc.constant("timeout"),
    since: fc.constant("2026-12-05T08:00:00Z"),
    attempts: fc.nat(50),
  },
  // consumerNode said, or not
  { requiredKeys: ["provider", "providerNode", "consumer", "state", "at", "class", "error", "since", "attempts"] },
)
const stored = fc.array(
  fc.record({
    key: fc.string({ minLength: 1, maxLength: 8 }),
    severity: fc.constantFrom("urgent", "warning"),
    kind: fc.constantFrom("rolled-back", "schema-reach"),
    summary: fc.constant("said"),
    raised: fc.constant(at),
    source: fc.constant("DG"),
  }),
  { maxLength: 4 },
) as fc.Arbitrary<ReadonlyArray<OpenCondition>>

describe("failing standings as conditions", () => {
  it("each failing standing once, urgent, by standings, before the store's, which are kept as they are", () => {
    fc.assert(
      fc.property(fc.array(kept, { maxLength: 8 }), stored, (ks, cs) => {
        const status = statusOf(ks, at, 30 * 60_000)
        const open = openConditions(status, cs)
        const failing = ks.filter((k) => k.state === "failing")
        const standing = open.slice(0, open.length - cs.length)
        expect(open.slice(standing.length)).toEqual(cs)
        expect(standing.length).toBe(failing.length)
        for (const c of standing) {
          expect(c).toMatchObject({ severity: "urgent", kind: "failing-standing", source: "standings" })
          expect(conditionLine(c)).toMatch(/^standing\.\S+\.failing \(urgent\) raised \S+ by standings: /)
        }
        for (const f of failing)
          expect(
            standing.some((c) => c.summary.startsWith(`${f.provider} on ${f.providerNode} is failing ${f.consumer}`)),
          ).toBe(true)
      }),
    )
  })

  it("status is well exactly when every part was read and no condition open is urgent, the failing standings among them", () => {
    fc.assert(
      fc.property(fc.array(kept, { maxLength: 6 }), stored, (ks, cs) => {
        const status = statusOf(ks, at, 30 * 60_000)
        const w = wholeStatus({
          standings: { ok: true, value: status },
          conditions: { ok: true, value: cs },
          plans: { ok: true, value: [] },
          held: { ok: true, value: [] },
        })
        const urgent = openConditions(status, cs).filter((c) => c.severity === "urgent")
        expect(w.well).toBe(urgent.length === 0)
        expect(w.code).toBe(urgent.length === 0 ? 0 : 1)
      }),
    )
  })
})

describe("one open condition as `conditions` lists it", () => {
  it("its key, severity, whether a person resolves it, when and by whom it was raised, and its summary", () => {
    const c = {
      key: "rolled-back.letta.hq-3",
      severity: "urgent",
      summary: "letta-205 put back",
      raised: at,
      source: "DG",
    }
    expect(conditionLine(c)).toBe(
      "rolled-back.letta.hq-3 (urgent) raised 2026-12-05T09:00:00.000Z by DG: letta-205 put back",
    )
    expect(conditionLine({ ...c, resolver: "operator" })).toBe(
      "rolled-back.letta.hq-3 (urgent, for a person) raised 2026-12-05T09:00:00.000Z by DG: letta-205 put back",
    )
  })
})
