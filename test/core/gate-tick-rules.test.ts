// The tick's own rules, each stated from what the gate must do and held by what it asks, saves and
// says (issue 26: a fresh mutation run of core/src/gate/tick/tick.ts left these unheld): which plans a wake
// moves, which are judged and which sent, what a judging too soon or a dry run counts, the questions
// a judging reads, and the words a person reads when a tier, the rest or a rollback names machines.
import { describe, expect, it } from "vitest"
import { runPure } from "@mesh-core/core/program"
import { gateOfPlan } from "@mesh-core/core/gate/tick/moves"
import { gateTick } from "@mesh-core/core/gate/tick/tick"
import type { GateWake } from "@mesh-core/core/gate/plan/wake"
import type { Question } from "@mesh-core/core/controller/catalogue"
import type { PlanRecord } from "@mesh-core/core/gate/plan/records"
import { openGate } from "@mesh-core/core/gate/judging/judge"
import { basePlan, keptAnswer, ok, run, settings, type Step, worldFacts } from "./gate-world.ts"

const now = 100_000
/** One tick over these plans, every send reaching every machine; what it asked, in order, and returned. */
const tickOver = (
  plans: ReadonlyArray<PlanRecord>,
  wakes?: ReadonlyArray<GateWake>,
  own: (q: Question) => unknown = () => undefined,
) => {
  const asked: Array<Question> = []
  const r = runPure(gateTick(settings, wakes), (q: Question) => {
    asked.push(q)
    const mine = own(q)
    if (mine !== undefined) return mine
    switch (q.q) {
      case "plans-in-flight":
        return { ok: true, value: plans }
      case "gate-facts":
        return worldFacts(now)
      case "now":
        return now
      case "send-plan":
        return { told: q.machines }
      default:
        return keptAnswer(q, []) ?? { ok: true }
    }
  })
  const of = <K extends Question["q"]>(k: K) =>
    asked.filter((q) => q.q === k).map((q) => q as Extract<Question, { q: K }>)
  return { result: r.result, said: r.said, asked, of }
}

/** A plan whose tier 1 (hq-1) was sent and opened at `since`, judged never. */
const judging = (id: string, module: string, since = now - 500): PlanRecord => ({
  ...basePlan,
  id,
  module,
  build: id,
  sent: ["hq-1"],
  gate: openGate(module, ["hq-1"], basePlan.previous, basePlan.commit, since),
})
/** A plan whose tier 1 is not sent yet, its last try long ago. */
const unsent = (id: string): PlanRecord => ({ ...basePlan, id, build: id, sent: [], triedAt: 0, tries: 1 })
/** A plan whose gate passed, sending the rest, its last try long ago. */
const sendingRest: PlanRecord = {
  ...basePlan,
  id: "letta-sending",
  state: "sending",
  tier: 2,
  sent: ["hq-1", "hq-2", "hq-3", "hq-4"],
  triedAt: 0,
  tries: 1,
}

describe("a row kept before gates were opened with their tier", () => {
  it("is judged from when its tier was last sent (tier 2 on), or from the release (tier 1, or never tried)", () => {
    const old = { ...basePlan, sent: ["hq-1"], sentAt: 1_000 }
    expect(gateOfPlan({ ...old, tier: 1, triedAt: 5_000 }).since).toBe(5_000)
    expect(gateOfPlan({ ...old, tier: 0, triedAt: 5_000 }).since).toBe(1_000)
    const { tier: _t, ...noTier } = old
    expect(gateOfPlan({ ...noTier, triedAt: 5_000 }).since).toBe(1_000)
    const { triedAt: _n, ...never } = { ...old, tier: 1, triedAt: 0 }
    expect(gateOfPlan(never).since).toBe(1_000)
  })
})

describe("which plans a wake moves", () => {
  it("a machine's wake moves only the judging plans of that machine: a plan being sent elsewhere is not sent", () => {
    const t = tickOver([unsent("letta-205")], [{ kind: "machine", machine: "hq-9" }])
    expect(t.of("send-plan")).toEqual([])
    expect(t.of("save-plan")).toEqual([])
    // Nothing moved, so the clock was not read either.
    expect(t.of("now")).toEqual([])
  })

  it("a due wake among others moves the plans due by now", () => {
    const t = tickOver([unsent("letta-205")], [{ kind: "machine", machine: "hq-9" }, { kind: "due" }])
    expect(t.of("send-plan").map((q) => q.plan)).toEqual(["letta-205"])
  })

  it("without a wake (a log from before wakes were recorded), every plan is moved", () => {
    expect(
      tickOver([unsent("letta-205")])
        .of("send-plan")
        .map((q) => q.plan),
    ).toEqual(["letta-205"])
  })

  it("the next wake-up is worked out from the plans as this tick left them", () => {
    const t = tickOver([judging("letta-205", "letta")])
    const saved = t.of("save-plan").at(-1)!.plan
    expect(saved.gate?.lastPass).toBe(now)
    // Its first pass at `now`, one short of the passes: the verdict falls due at the settle, after the
    // next pass could be counted.
    expect(t.result.wakeAt).toBe(Math.max(now + settings.every, saved.gate!.since + settings.settle))
    expect(t.result.wakeAt).toBe(now + 1_500)
  })

  it("with nothing in flight there is no wake-up at all, not one at an undefined time", () => {
    const t = tickOver([])
    expect(Object.keys(t.result)).not.toContain("wakeAt")
  })
})

describe("which plans are judged, and which sent", () => {
  it("a plan sending its rest reads no judging's facts", () => {
    const t = tickOver([sendingRest])
    expect(t.of("send-plan").map((q) => q.why)).toEqual(["rest"])
    for (const k of ["gate-facts", "engine-builds", "manifests"] as const) expect(t.of(k)).toEqual([])
  })

  it("an open plan whose tier is not fully sent is sent again, even while another plan is judged in the same tick", () => {
    const t = tickOver([judging("grafana-12", "grafana"), unsent("letta-205")])
    expect(t.of("send-plan").map((q) => [q.plan, q.why])).toEqual([["letta-205", "tier"]])
    expect(t.result.judgings.map((j) => j.plan)).toEqual(["grafana-12"])
  })

  it("a plan read in flight that has ended (a stale read) is neither sent, judged nor saved", () => {
    const t = tickOver([{ ...judging("letta-205", "letta"), state: "failed" }])
    expect(t.of("send-plan")).toEqual([])
    expect(t.of("save-plan")).toEqual([])
    expect(t.result.judged).toBe(0)
  })

  it("the manifests asked are those of the plans judged, each once, in order", () => {
    const t = tickOver([judging("zeta-1", "zeta"), judging("alpha-1", "alpha"), judging("zeta-2", "zeta")])
    expect(t.of("manifests").map((q) => q.modules)).toEqual([["alpha", "zeta"]])
  })
})

describe("what a judging counts", () => {
  it("one that comes too soon after the last pass is no judging: not counted, not kept, nothing saved", () => {
    const p = judging("letta-205", "letta")
    const soon = { ...p, gate: { ...p.gate!, passes: 1, lastPass: now - settings.every + 1 } }
    const t = tickOver([soon])
    expect(t.result.judged).toBe(0)
    expect(t.result.judgings).toEqual([])
    expect(t.of("save-plan")).toEqual([])
  })

  it("a real plan's judging is never flagged a dry run; a dry run's always is", () => {
    expect(tickOver([judging("letta-205", "letta")]).result.judgings).toEqual([
      { plan: "letta-205", word: "healthy", dryRun: false },
    ])
    expect(tickOver([{ ...judging("letta-205", "letta"), dryRun: true }]).result.judgings).toEqual([
      { plan: "letta-205", word: "healthy", dryRun: true },
    ])
  })
})

describe("a plan saved once for each change", () => {
  it("a next tier that could not be kept is not saved again as it was", () => {
    let saves = 0
    const r = run([ok, ok, ok], basePlan, {
      answer: (q: Question, step) => {
        if (q.q !== "save-plan") return undefined
        saves += 1
        return step === 2 ? { ok: false, why: "the store is away" } : undefined
      },
    })
    expect(r.said).toContain(
      "[gate] letta-205: the plan could not be kept, so tier 2 is not sent yet: the store is away",
    )
    // Saved at the send (step 0) and the first pass (step 1); at step 2 the next tier's save, refused,
    // and nothing after it: a passed tier saved without its next tier sent would never be moved on.
    expect(saves).toBe(3)
    expect(r.plan.gate?.verdict).toBe("")
    expect(r.plan.tier ?? 0).toBe(0)
  })
})

const wide: PlanRecord = {
  ...basePlan,
  machines: ["hq-1", "hq-2"],
  tiers: [
    ["hq-1", "hq-2"],
    ["hq-3", "hq-4"],
  ],
  rest: ["hq-5"],
}
const tick = (reaches: ReadonlyArray<string>, refuse: ReadonlyArray<string> = []): Step => ({
  kind: "tick",
  reaches,
  refuse,
})
const all = ["hq-1", "hq-2", "hq-3", "hq-4", "hq-5"]

describe("the words that name machines, as a person reads them", () => {
  it("a tier not sent, a tier passed, the last tier passed and the rest not sent name every machine", () => {
    const r = run([tick([]), tick(all), ok, ok, ok, ok, tick([]), tick(all)], wide)
    expect(r.said).toContain(
      "[gate] letta-205: tier 1: hq-1, hq-2 not sent yet (the memberships could not be issued); sent again in 1s, 1 try so far",
    )
    expect(r.said.some((l) => l.includes("passed its gate in tier 1 on hq-1, hq-2 ("))).toBe(true)
    expect(r.saves.some((s) => s.plan.note.includes("passed its gate in tier 2 on hq-3, hq-4 ("))).toBe(true)
  })

  it("a failure and its rollback name every machine, and a rest the bus did not say it refused is 'not told'", () => {
    const r = run([tick(all), tick([], ["hq-2"]), tick(all)], wide)
    expect(r.said.some((l) => l.includes("letta failed its gate in tier 1 on hq-1, hq-2: hq-2 refused"))).toBe(true)
    expect(r.said).toContain(
      "[gate] letta-205: putting back a71c3d0 (letta-204): hq-1, hq-2 not sent yet (the memberships could not be issued); sent again in 1s, 1 try so far",
    )
    expect(
      r.said.some((l) => l.endsWith("put back to a71c3d0 (letta-204) on hq-1, hq-2, in one send per machine")),
    ).toBe(true)
    const last = { ...wide, tiers: [["hq-1", "hq-2"]], rest: ["hq-3", "hq-4"] }
    const rest = run([tick(all), ok, ok], last, {
      answer: (q: Question, step) => (q.q === "send-plan" && q.why === "rest" && step === 2 ? { told: [] } : undefined),
    })
    expect(rest.saves.some((s) => s.plan.note.includes("passed its gate on hq-1, hq-2 ("))).toBe(true)
    expect(rest.said).toContain(
      "[gate] letta-205: passed; sending the rest: hq-3, hq-4 not sent yet (not told); sent again in 1s, 1 try so far",
    )
  })
})

describe("the build to put back", () => {
  const refused = tick(all, ["hq-1"])
  const builds = (value: ReadonlyArray<object>) => (q: Question) => (q.q === "builds" ? { ok: true, value } : undefined)

  it("not known to the build records: not put back, said", () => {
    const r = run([ok, refused], basePlan, {
      answer: builds([{ build: "letta-205", module: "letta", commit: "5e1f0c2a9b" }]),
    })
    expect(r.plan.gate?.rollback).toBe("not-rolled-back")
    expect(r.acts.some((a) => a.q.q === "among-kept" || a.q.q === "set-build")).toBe(false)
  })

  it("whether it is among the builds kept cannot be read, or it is not: not put back", () => {
    for (const among of [
      { ok: false, why: "the store is away" },
      { ok: true, value: false },
    ]) {
      const r = run([ok, refused], basePlan, { answer: (q) => (q.q === "among-kept" ? among : undefined) })
      expect(r.plan.gate?.rollback, JSON.stringify(among)).toBe("not-rolled-back")
      expect(r.acts.some((a) => a.q.q === "set-build")).toBe(false)
    }
  })

  it("the failed verdict could not be kept: nothing is put back, and why is said", () => {
    const r = run([ok, refused], basePlan, {
      answer: (q) => (q.q === "record-verdict" ? { ok: false, why: "the store is away" } : undefined),
    })
    expect(r.plan.gate?.rollback).toBe("not-rolled-back")
    expect(r.plan.note).toContain("the store is away")
    expect(r.acts.some((a) => a.q.q === "set-build")).toBe(false)
  })
})
