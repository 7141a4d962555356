// `release MODULE --build B --commit C --first hq-3 [--then hq-4,hq-5]…` (seed 003's tiers, issue 9):
// the plan row from the command's inputs or the sentence refusing it, and the release as a program:
// the plan saved before anything is registered, a first send that reaches nobody leaving nothing
// registered.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { runPure } from "@mesh-core/core/controller/program"
import type { Question } from "@mesh-core/core/controller/questions"
import type { PlanRecord } from "@mesh-core/core/controller/records"
import type { MeshRecords } from "@mesh-core/core/delivery/records"
import { releaseProgram, releaseRow } from "@mesh-core/core/gate/release"

const nodes = ["hq-1", "hq-2", "hq-3", "hq-4", "hq-5", "hq-6"]
const records: MeshRecords = {
  mesh: "hq", nodes, modules: [{ name: "letta", build: "letta-204", commit: "a71c3d09e4" }, { name: "grafana", build: "grafana-1" }],
  assignments: nodes.slice(0, 5).map((node) => ({ module: "letta", node })),
}
const inputs = { module: "letta", build: "letta-205", commit: "5e1f0c2a9b", first: ["hq-3"], then: ["hq-4,hq-5"] }

describe("the plan a release opens", () => {
  it("its tiers are the machines given, in order; the rest are the module's other machines; the first tier is `machines`", () => {
    const partition = fc.shuffledSubarray(nodes.slice(0, 5), { minLength: 1 }).chain((ms) =>
      fc.array(fc.integer({ min: 1, max: ms.length }), { minLength: 0, maxLength: 3 }).map((cuts) => {
        const at = [...new Set(cuts)].sort((a, b) => a - b).filter((c) => c < ms.length)
        const tiers: Array<Array<string>> = []
        let from = 0
        for (const c of [...at, ms.length]) {
          tiers.push(ms.slice(from, c))
          from = c
        }
        return tiers
      }))
    fc.assert(fc.property(partition, (tiers) => {
      const r = releaseRow(records, [], { ...inputs, first: tiers[0]!, then: tiers.slice(1).map((t) => t.join(",")) }, 1_000)
      if (!r.ok) throw new Error(r.problem)
      expect(r.plan.tiers).toEqual(tiers)
      expect(r.plan.machines).toEqual(tiers[0])
      expect([...r.plan.rest].sort()).toEqual(nodes.slice(0, 5).filter((n) => !tiers.flat().includes(n)).sort())
      expect(r.plan).toMatchObject({ state: "open", tier: 0, sent: [], previousBuild: "letta-204", previous: "a71c3d09e4", sentAt: 1_000, id: "letta-205" })
      expect(r.records.modules.find((m) => m.name === "letta")).toMatchObject({ build: "letta-205", commit: "5e1f0c2a9b" })
    }))
  })

  it("refuses, with the sentence a person reads", () => {
    const refused = (i: Partial<typeof inputs>, inFlight: ReadonlyArray<PlanRecord> = []) => {
      const r = releaseRow(records, inFlight, { ...inputs, ...i }, 0)
      return r.ok ? "" : r.problem
    }
    expect(refused({ build: " " })).toBe("--build: give the new build's id (it is empty)")
    expect(refused({ then: ["hq-4,hq-3"] })).toBe("hq-3 is named in tier 1 and again in tier 2")
    expect(refused({ then: ["hq-4,hq-4"] })).toBe("--then: hq-4 is named twice")
    expect(refused({ then: ["hq-4,"] })).toContain("--then: \"hq-4,\" names an empty machine")
    expect(refused({ then: ["hq-6"] })).toBe("letta is not assigned to hq-6; it runs on hq-1, hq-2, hq-3, hq-4, hq-5")
    expect(refused({ module: "ghost" })).toBe("no module named ghost is registered")
    expect(refused({ build: "letta-204" })).toBe("letta is at letta-204 already")
    const open = releaseRow(records, [], inputs, 0)
    if (!open.ok) throw new Error(open.problem)
    expect(refused({ build: "letta-206" }, [{ ...open.plan, sent: ["hq-3"] }]))
      .toBe("plan letta-205 of letta is open (gate judging tier 1 on hq-3): a new release of it waits until that plan ends")
  })
})

describe("release as a program", () => {
  const run = (told: (machines: ReadonlyArray<string>) => { told: ReadonlyArray<string>; error?: string }, failedBefore = false) => {
    const r = runPure(releaseProgram(inputs, 1_000), (q: Question) => {
      switch (q.q) {
        case "mesh-records": return { ok: true, value: records }
        case "plans-in-flight": return { ok: true, value: [] }
        case "send-plan": return told(q.machines)
        case "now": return 1_500
        case "verdict-of": return { ok: true, value: failedBefore ? { keptAt: 0, verdict: { build: "letta-205", module: "letta", commit: "5e1f0c2a9b", previous: "a71c3d09e4", plan: "letta-205", machines: ["hq-3"], verdict: "failed", rollback: "rolled-back", why: "hq-3 refused what it was sent", component: "", judgingFrom: 0 } } : null }
        default: return { ok: true }
      }
    })
    return { ...r, acts: r.exchanges.map((e) => e.question) }
  }

  it("the plan is saved before the build is registered, and the first tier is sent after; its gate opens when the tier has it", () => {
    const r = run((machines) => ({ told: machines }))
    expect(r.acts.map((q) => q.q)).toEqual(["mesh-records", "plans-in-flight", "verdict-of", "record-build", "record-build", "save-plan", "set-build", "send-plan", "now", "save-plan"])
    expect(r.acts[5]).toMatchObject({ plan: { state: "open", sent: [] } })
    expect(r.acts[7]).toMatchObject({ plan: "letta-205", why: "tier", machines: ["hq-3"] })
    expect(r.acts[9]).toMatchObject({ plan: { state: "open", sent: ["hq-3"], gate: { machines: ["hq-3"], since: 1_500 } } })
    expect(r.result.code).toBe(0)
    expect(r.result.said).toBe("plan letta-205: letta letta-205 sent to tier 1 (hq-3); the gate judges it there; then, each once the gate passes, tier 2 (hq-4, hq-5), then the rest (hq-1, hq-2)")
  })

  it("a build that failed its gate is not released again: refused, nothing recorded, registered or sent", () => {
    const r = run((machines) => ({ told: machines }), true)
    expect(r.result.code).toBe(2)
    expect(r.result.said).toBe("letta-205 failed its gate on hq-3 (plan letta-205): hq-3 refused what it was sent — a build that failed its gate is not sent again; release a newer one")
    expect(r.acts.map((q) => q.q)).toEqual(["mesh-records", "plans-in-flight", "verdict-of"])
  })

  it("a first send that reaches no machine leaves nothing registered: the previous build is put back and the plan ended", () => {
    const r = run(() => ({ told: [], error: "the memberships of hq-3 could not be issued" }))
    const builds = r.acts.filter((q) => q.q === "set-build")
    expect(builds.map((q) => (q as Extract<Question, { q: "set-build" }>).build)).toEqual(["letta-205", "letta-204"])
    expect(r.acts.at(-1)).toMatchObject({ q: "save-plan", plan: { state: "failed" } })
    expect(r.result).toMatchObject({ code: 1 })
    expect(r.result.said).toContain("nothing is registered: letta stays at letta-204")
  })
})

describe("a plan as `plans` says it", () => {
  it("each tier and whether it was sent, the gate, and what a rollback has left to send", async () => {
    const { planLines } = await import("@mesh-core/core/gate/plan-render")
    const row = releaseRow(records, [], inputs, 0)
    if (!row.ok) throw new Error(row.problem)
    const s = { settle: 120_000, bound: 600_000, passes: 3, every: 40_000 }
    expect(planLines({ ...row.plan, tier: 1, sent: ["hq-3", "hq-4"] }, s)).toEqual([
      "letta-205: letta letta-205, open",
      "  tier 1 (hq-3) sent; tier 2 (hq-4, hq-5) sent to hq-4 only, judging; the rest (hq-1, hq-2) not sent",
      "  gate on hq-4, hq-5: not judged yet",
    ])
    const rolling = { ...row.plan, state: "rolling-back" as const, sent: ["hq-3"], putBack: { build: "letta-204", commit: "a71c3d09e4", machines: ["hq-3"], sent: [] }, note: "letta failed its gate on hq-3" }
    expect(planLines(rolling, s).slice(-2)).toEqual(["  putting back letta-204 on hq-3: hq-3 not sent yet", "  letta failed its gate on hq-3"])
  })
})
