// `status` as the one place a person looks (issue 9), as properties: an urgent condition open, or
// anything that could not be read, is not well (exit 1); exit 3 only when nothing could be read;
// every urgent condition, plan in flight, held machine and unread source is named, in the words and
// in the JSON.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { PlanRecord } from "@mesh-core/core/gate/plan/records"
import type { Hold } from "@mesh-core/core/delivery/held"
import type { Readable } from "@mesh-core/core/outcome"
import { statusLines } from "@mesh-core/core/standings/render"
import { statusOf } from "@mesh-core/core/standings/status"
import { type OpenCondition, type StatusInputs, wholeStatus } from "@mesh-core/core/status/whole"

const readable = <A>(value: fc.Arbitrary<A>): fc.Arbitrary<Readable<A>> =>
  fc.oneof(
    { weight: 4, arbitrary: value.map((v) => ({ ok: true as const, value: v })) },
    {
      weight: 1,
      arbitrary: fc.constantFrom("connection refused", "timeout").map((why) => ({ ok: false as const, why })),
    },
  )

const condition: fc.Arbitrary<OpenCondition> = fc
  .record({
    n: fc.nat(50),
    severity: fc.constantFrom("urgent", "warning"),
    kind: fc.constantFrom("rolled-back", "rollback-failed", "unhealthy"),
  })
  .map((c) => ({
    key: `build.m${c.n}.hq-${c.n % 4}.${c.kind}`,
    severity: c.severity,
    kind: c.kind,
    summary: `what is wrong ${c.n}`,
    raised: 1_000 * c.n,
    source: "DG",
  }))

/** Urgent, as issue 9 says: a condition raised urgent, and a module a machine says is unhealthy whatever it was raised as. */
const urgentModel = (c: OpenCondition) => c.severity === "urgent" || c.kind === "unhealthy"

const plan: fc.Arbitrary<PlanRecord> = fc
  .record({ n: fc.nat(20), state: fc.constantFrom("open", "sending", "rolling-back", "passed", "failed" as const) })
  .map((p) => ({
    id: `m${p.n}-${p.n}`,
    module: `m${p.n}`,
    build: `m${p.n}-${p.n}`,
    commit: "c",
    previous: "b",
    previousBuild: "b1",
    machines: ["hq-1"],
    rest: ["hq-2"],
    sentAt: p.n,
    state: p.state,
    note: "",
    sent: ["hq-1"],
    ...(p.state === "rolling-back" ? { putBack: { build: "b1", commit: "b", machines: ["hq-1"], sent: [] } } : {}),
  }))

const hold: fc.Arbitrary<Hold> = fc.record({ m: fc.constantFrom("hq-3", "hq-4"), n: fc.nat(5) }).map((h) => ({
  machine: h.m,
  module: `m${h.n}`,
  plan: `m${h.n}-${h.n}`,
  build: `m${h.n}-1`,
  why: `held by plan m${h.n}-${h.n}, gate judging on hq-1`,
}))

const failing = fc
  .array(fc.record({ c: fc.constantFrom("a", "b", "c"), at: fc.constantFrom(0, 50_000) }), { maxLength: 2 })
  .map((list) =>
    statusOf(
      list.map(({ c, at }) => ({
        provider: "postgres",
        providerNode: "hq-1",
        consumer: c,
        state: "failing" as const,
        at,
        class: "auth",
        error: "rejected",
        since: "2026-01-01T00:00:00Z",
        attempts: 3,
      })),
      60_000,
      30_000,
    ),
  )

const inputs: fc.Arbitrary<StatusInputs> = fc.record({
  standings: readable(failing),
  conditions: readable(fc.uniqueArray(condition, { selector: (c) => c.key, maxLength: 5 })),
  plans: readable(fc.array(plan, { maxLength: 4 })),
  held: readable(fc.array(hold, { maxLength: 3 })),
})

describe("status tells the whole truth", () => {
  it("well exactly when everything was read, no provider is failing a consumer and no urgent condition is open; 3 only when nothing could be read, 1 otherwise", () => {
    fc.assert(
      fc.property(inputs, (i) => {
        const s = wholeStatus(i)
        const all = [i.standings, i.conditions, i.plans, i.held]
        const urgent = i.conditions.ok && i.conditions.value.some(urgentModel)
        const wellModel = all.every((r) => r.ok) && i.standings.ok && i.standings.value.failing.length === 0 && !urgent
        expect(s.well).toBe(wellModel)
        expect(s.code).toBe(all.every((r) => !r.ok) ? 3 : wellModel ? 0 : 1)
        expect(s.json["well"]).toBe(s.well)
        expect(s.json["code"]).toBe(s.code)
      }),
      { numRuns: 500 },
    )
  })

  it("names every urgent condition, every plan in flight, every held machine and everything that could not be read, in the words and in the JSON", () => {
    fc.assert(
      fc.property(inputs, (i) => {
        const s = wholeStatus(i)
        const text = s.lines.join("\n")
        const json = s.json as {
          conditions: { urgent: Array<{ key: string }> } | null
          plans: Array<{ id: string }> | null
          held: Array<{ machine: string; plan: string }> | null
          unread: Array<{ why: string }>
        }
        if (i.conditions.ok) {
          for (const c of i.conditions.value.filter(urgentModel)) {
            expect(text).toContain(`URGENT ${c.key}`)
            expect(json.conditions!.urgent.map((x) => x.key)).toContain(c.key)
          }
        } else expect(json.conditions).toBeNull()
        if (i.plans.ok) {
          const flying = i.plans.value.filter((p) => ["open", "sending", "rolling-back"].includes(p.state))
          for (const p of flying) expect(text).toContain(`plan ${p.id}: `)
          expect(json.plans!.map((p) => p.id)).toEqual(flying.map((p) => p.id))
        }
        if (i.held.ok) {
          for (const h of i.held.value)
            expect(text).toContain(`  ${h.machine}: ${h.module} stays at ${h.build}, ${h.why}`)
          expect(json.held).toHaveLength(i.held.value.length)
        }
        for (const r of [i.standings, i.conditions, i.plans, i.held]) {
          if (!r.ok) {
            expect(text).toContain(r.why)
            expect(json.unread.map((u) => u.why)).toContain(r.why)
          }
        }
      }),
      { numRuns: 300 },
    )
  })

  it("an urgent condition open says NOT WELL and names it; the conditions unreadable say so and are not well", () => {
    const ok = <A>(value: A) => ({ ok: true as const, value })
    const quiet = { standings: ok(statusOf([], 0)), plans: ok([]), held: ok([]) }
    const s = wholeStatus({
      ...quiet,
      conditions: ok([
        {
          key: "build.letta.hq-3.rollback-failed",
          severity: "urgent",
          summary: "letta's build 5e1f0c2 failed its gate on hq-3 and was NOT put back",
          raised: 0,
          source: "DG",
          resolver: "operator",
        },
      ]),
    })
    expect(s.code).toBe(1)
    expect(s.lines[0]).toBe("mesh: NOT WELL — 1 urgent condition open")
    expect(s.lines[1]).toBe(
      "URGENT build.letta.hq-3.rollback-failed (for a person), raised 1970-01-01T00:00:00Z by DG: letta's build 5e1f0c2 failed its gate on hq-3 and was NOT put back",
    )
    const unread = wholeStatus({ ...quiet, conditions: { ok: false, why: "relation conditions does not exist" } })
    expect(unread.code).toBe(1)
    expect(unread.lines.slice(0, 2)).toEqual([
      "mesh: NOT WELL — the conditions cannot be read",
      "the conditions cannot be read: relation conditions does not exist",
    ])
    expect(wholeStatus({ ...quiet, conditions: ok([]) }).lines).toEqual([
      "mesh: well — no provider is failing any consumer, no urgent condition is open",
    ])
    const sick = wholeStatus({
      ...quiet,
      conditions: ok([
        {
          key: "module.letta.hq-4.unhealthy",
          severity: "warning",
          kind: "unhealthy",
          summary: "letta on hq-4: oom",
          raised: 0,
          source: "DH",
        },
      ]),
    })
    expect(sick.code).toBe(1)
    expect(sick.lines[1]).toBe(
      "URGENT module.letta.hq-4.unhealthy, raised 1970-01-01T00:00:00Z by DH: letta on hq-4: oom",
    )
  })

  it("says the failing standings as they say themselves: the headline's count and how many are stale", () => {
    fc.assert(
      fc.property(inputs, (i) => {
        if (!i.standings.ok || i.standings.value.failing.length === 0) return
        const own = statusLines(i.standings.value)[0]!.replace("mesh: NOT WELL — ", "")
        expect(wholeStatus(i).lines[0]).toContain(own)
      }),
      { numRuns: 200 },
    )
  })

  it("says on standard error what stopped it only when nothing could be read: every reason, once", () => {
    fc.assert(
      fc.property(inputs, (i) => {
        const s = wholeStatus(i)
        const whys = [i.standings, i.conditions, i.plans, i.held].flatMap((r) => (r.ok ? [] : [r.why]))
        if (s.code !== 3) expect(s.stopped).toBe("")
        else expect(s.stopped.split("\n").sort()).toEqual([...new Set(whys)].sort())
      }),
      { numRuns: 300 },
    )
  })
})
