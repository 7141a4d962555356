// Release plans in tiers, ended only when every machine has what they decided (seed 003, issue 9):
// the gate program driven tick after tick by a world whose sends reach some machines and not
// others and whose machines apply or refuse, checked against rules stated on their own.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { gateTick } from "@mesh-core/core/gate/tick/tick"
import { runPure } from "@mesh-core/core/program"
import type { Question } from "@mesh-core/core/controller/catalogue"
import { PlanRecord, type VerdictRecord } from "@mesh-core/core/gate/plan/records"
import type { GateFactsRecord } from "@mesh-core/core/gate/judging/facts"
import { basePlan, keptAnswer } from "./gate-world.ts"
import { keptVerdict } from "../support/plan-records.ts"
import { Schema } from "effect"
import { everyMachine, sentOf, tiersOf, unsentOf } from "@mesh-core/core/gate/plan/plan"

const settings = { settle: 2_000, bound: 10_000, passes: 2, every: 1_000 }
const tiers = basePlan.tiers!

interface Tick {
  /** Machines a send reaches, of those it asks (the rest are not told: a grant refused, the bus away). */
  readonly reaches: ReadonlyArray<string>
  /** Machines that refuse what they were sent, this tick. */
  readonly refuse: ReadonlyArray<string>
}

const machines = ["hq-1", "hq-2", "hq-3", "hq-4", "hq-5"]
const tick: fc.Arbitrary<Tick> = fc.record({
  reaches: fc.oneof({ weight: 3, arbitrary: fc.constant(machines) }, { weight: 1, arbitrary: fc.subarray(machines) }),
  refuse: fc.oneof(
    { weight: 6, arbitrary: fc.constant([]) },
    { weight: 1, arbitrary: fc.subarray(machines, { maxLength: 1 }) },
  ),
})

interface Run {
  readonly saves: ReadonlyArray<PlanRecord>
  readonly sends: ReadonlyArray<{
    readonly why: string
    readonly asked: ReadonlyArray<string>
    readonly told: ReadonlyArray<string>
    readonly tierAt: number
    readonly at: number
  }>
  readonly verdicts: ReadonlyArray<VerdictRecord>
  readonly final: PlanRecord
  readonly said: ReadonlyArray<string>
}

/** Drives the gate over a plan tick after tick; what is saved is what the next tick reads. */
const drive = (
  ticks: ReadonlyArray<Tick>,
  start: PlanRecord = basePlan,
  extra: (q: Question, now: number) => unknown = () => undefined,
): Run => {
  let plan = start
  const saves: Array<PlanRecord> = []
  const sends: Array<Run["sends"][number]> = []
  const verdicts: Array<VerdictRecord> = []
  const said: Array<string> = []
  let now = 0
  for (const t of ticks) {
    now += 1_100
    const inFlight = ["open", "sending", "rolling-back"].includes(plan.state)
    const facts: GateFactsRecord = {
      now,
      engines: {},
      served: { ok: true, value: {} },
      open: { ok: true, value: [] },
      rolledBack: {},
      holder: { ok: true, value: null },
      health: { ok: true, value: {} },
      reports: Object.fromEntries(
        machines.map((m) => [
          m,
          { at: now - 10, current: true, outcome: t.refuse.includes(m) ? "refused" : "applied" },
        ]),
      ),
    }
    const r = runPure(gateTick(settings), (q) => {
      const given = extra(q, now)
      if (given !== undefined) return given
      switch (q.q) {
        case "plans-in-flight":
          return { ok: true, value: inFlight ? [plan] : [] }
        case "gate-facts":
          return facts
        case "now":
          return now
        case "send-plan": {
          const told = q.machines.filter((m) => t.reaches.includes(m))
          sends.push({ why: q.why, asked: q.machines, told, tierAt: plan.tier ?? 0, at: now })
          return told.length === q.machines.length
            ? { told }
            : {
                told,
                error: `${q.machines.filter((m) => !told.includes(m)).join(", ")}: the memberships could not be issued`,
              }
        }
        case "save-plan":
          plan = q.plan
          saves.push(q.plan)
          return { ok: true }
        default:
          return keptAnswer(q, verdicts) ?? { ok: true }
      }
    })
    said.push(...r.said)
  }
  return { saves, sends, verdicts, final: plan, said }
}

const every = (p: PlanRecord) => [...new Set([...(p.tiers ?? [p.machines]).flat(), ...p.rest])]

describe("a plan ends only when every machine has what it decided", () => {
  it("never passed with a machine of its tiers unsent; never failed with a machine it put back unsent; a tier is sent only after the one before it passed; the rest only after the last; a rollback only to machines the plan reached", () => {
    fc.assert(
      fc.property(fc.array(tick, { minLength: 1, maxLength: 40 }), (ticks) => {
        const run = drive(ticks)
        for (const p of run.saves) {
          if (p.state === "passed") expect(every(p).filter((m) => !p.sent!.includes(m))).toEqual([])
          if (p.state === "failed" && p.putBack !== undefined)
            expect(p.putBack.machines.filter((m) => !p.putBack!.sent.includes(m))).toEqual([])
        }
        const reached = new Set<string>()
        let restSent = false
        for (const s of run.sends) {
          if (s.why === "tier") {
            // Only the machines of the tier the plan stands at, and never after the rest began.
            expect(s.asked.every((m) => tiers[s.tierAt]!.includes(m))).toBe(true)
            expect(restSent).toBe(false)
            for (const m of s.told) reached.add(m)
          }
          if (s.why === "rest") {
            restSent = true
            expect(run.verdicts.some((v) => v.verdict === "passed")).toBe(true)
          }
          if (s.why === "rollback") {
            expect(s.asked.every((m) => reached.has(m))).toBe(true)
            expect(run.verdicts.some((v) => v.verdict === "failed")).toBe(true)
          }
        }
        // A verdict is kept once per build, whatever the ticks.
        expect(run.verdicts.length).toBeLessThanOrEqual(1)
      }),
      { numRuns: 300 },
    )
  })

  it("a rest that cannot be sent is sent again under the retry policy (every, doubling), the plan `sending` meanwhile, and passed once it lands", () => {
    const ok: Tick = { reaches: machines, refuse: [] }
    const refusing: Tick = { reaches: machines.filter((m) => m !== "hq-5"), refuse: [] }
    // every tier judged healthy; the rest (hq-5) cannot be sent for a while
    const run = drive(Array.from({ length: 50 }, (_, i) => (i < 26 ? refusing : ok)))
    const rest = run.sends.filter((s) => s.why === "rest")
    expect(rest.length).toBeGreaterThan(3)
    expect(rest.slice(0, -1).every((s) => s.told.length === 0 && s.asked.join() === "hq-5")).toBe(true)
    const gaps = rest.slice(1).map((s, i) => s.at - rest[i]!.at)
    for (const [i, gap] of gaps.entries())
      expect(gap).toBeGreaterThanOrEqual(Math.min(settings.every * 2 ** i, 600_000))
    const states = run.saves.filter((p) => p.state !== "open").map((p) => p.state)
    expect(states.slice(0, -1).every((s) => s === "sending")).toBe(true)
    expect(run.final.state).toBe("passed")
    expect(run.said).toContain(
      "[gate] letta-205: passed; sending the rest: hq-5 not sent yet (hq-5: the memberships could not be issued); sent again in 2s, 2 tries so far",
    )
  })

  it("a three-tier release that fails at tier 2 stops there, puts back only the machines it reached (tiers 1 and 2), and its note names the tier", () => {
    const ok: Tick = { reaches: machines, refuse: [] }
    const bad: Tick = { reaches: machines, refuse: ["hq-3"] }
    // tier 1 passes (2 passes over 2s), then hq-3 refuses in tier 2
    const run = drive([ok, ok, ok, ok, bad, ok, ok])
    expect(run.final.state).toBe("failed")
    expect(run.final.note).toContain("letta failed its gate in tier 2 on hq-2, hq-3: hq-3 refused what it was sent")
    const rollback = run.sends.filter((s) => s.why === "rollback")
    expect(rollback).toHaveLength(1)
    expect([...rollback[0]!.asked].sort()).toEqual(["hq-1", "hq-2", "hq-3"])
    expect(run.sends.some((s) => s.asked.includes("hq-4") || s.asked.includes("hq-5"))).toBe(false)
    // saved rolling-back, with what it puts back, before the rollback was sent
    const rolling = run.saves.findIndex((p) => p.state === "rolling-back")
    expect(run.saves[rolling]!.putBack).toEqual({
      build: "letta-204",
      commit: "a71c3d09e4",
      machines: ["hq-1", "hq-2", "hq-3"],
      sent: [],
    })
  })

  it("a rollback that cannot be sent is re-sent, under the retry policy, until it lands; the plan stays rolling-back, and the event is said once, when it has", () => {
    const ok: Tick = { reaches: machines, refuse: [] }
    const away: Tick = { reaches: [], refuse: ["hq-1"] }
    const published: Array<unknown> = []
    const run = drive([ok, away, away, away, ok], basePlan, (q) =>
      q.q === "publish" && q.event === "rolled-back" ? (published.push(q.body), { ok: true }) : undefined,
    )
    const rollbacks = run.sends.filter((s) => s.why === "rollback")
    expect(rollbacks.map((s) => s.told.length)).toEqual([0, 0, 1])
    expect(run.saves.filter((p) => p.state === "rolling-back").length).toBeGreaterThanOrEqual(3)
    expect(run.final.state).toBe("failed")
    expect(published).toHaveLength(1)
    expect(published[0]).toMatchObject({ rollback: "rolled-back", machines: ["hq-1"] })
  })
})

describe("every check of judgeHealth runs live", () => {
  it("a node-engine release whose engine never reports the new build fails its gate at the bound", () => {
    const engine: PlanRecord = {
      ...basePlan,
      id: "node-engine-9",
      module: "node-engine",
      build: "node-engine-9",
      tiers: [["hq-1"]],
      rest: [],
      previousBuild: "node-engine-8",
    }
    const ok: Tick = { reaches: machines, refuse: [] }
    const asked: Array<string> = []
    const run = drive(Array(12).fill(ok), engine, (q) => {
      asked.push(q.q)
      return q.q === "engine-builds" ? { ok: true, value: { "hq-1": "node-engine-8" } } : undefined
    })
    expect(asked).toContain("engine-builds")
    expect(run.final.state === "failed" || run.final.state === "rolling-back").toBe(true)
    expect(run.final.gate?.why).toContain("hq-1's node-engine reports build node-engine-8, not the new node-engine-9")
  })

  it("engines that cannot be read are never the new build; tools a manifest names must be served where the node tools run", () => {
    const engine: PlanRecord = {
      ...basePlan,
      id: "node-engine-9",
      module: "node-engine",
      build: "node-engine-9",
      tiers: [["hq-1"]],
      rest: [],
    }
    const ok: Tick = { reaches: machines, refuse: [] }
    const unread = drive([ok, ok, ok], engine, (q) =>
      q.q === "engine-builds" ? { ok: false, why: "the store is away" } : undefined,
    )
    // Never the new build: the judging could not ask (a measurement error, issue 10), so no pass is counted.
    expect(unread.final.gate?.passes).toBe(0)
    expect(unread.final.note).toContain(
      "could not ask (2 of 4 in a row before it is paused): the engines' builds cannot be read: the store is away",
    )
    const tools = drive([ok, ok, ok], { ...basePlan, tiers: [["hq-1"]] }, (q, now) =>
      q.q === "manifests"
        ? { ok: true, value: { letta: { tools: ["letta.ask"], deliveredVersions: [] } } }
        : q.q === "gate-facts"
          ? {
              now,
              engines: {},
              served: { ok: true, value: { "hq-1": { runtime: true, tools: [] } } },
              open: { ok: true, value: [] },
              rolledBack: {},
              holder: { ok: true, value: null },
              health: { ok: true, value: {} },
              reports: { "hq-1": { at: now - 10, current: true, outcome: "applied" } },
            }
          : undefined,
    )
    expect(tools.final.gate?.last).toContain("the node tools on hq-1 do not serve letta's tools")
  })
})

describe("the gate's probe keeps its conditions on every tick (seed 003's probeGates)", () => {
  const failedVerdict = keptVerdict()
  const tickWith = (latest: ReadonlyArray<VerdictRecord>, open: ReadonlyArray<unknown>, readable = true) =>
    runPure(gateTick(settings), (q) => {
      switch (q.q) {
        case "plans-in-flight":
          return { ok: true, value: [] }
        case "now":
          return 5_000
        case "latest-verdicts":
          return readable ? { ok: true, value: latest } : { ok: false, why: "the store is away" }
        case "witness-verdicts":
          return { ok: true, value: {} }
        case "probe-conditions":
          return { ok: true, value: open }
        default:
          return { ok: true }
      }
    })
      .exchanges.map((e) => e.question)
      .filter((q) => q.q === "raise-condition" || q.q === "clear-condition")

  const kept = {
    key: "build.letta.hq-1.rolled-back",
    source: "DG",
    raised: 1,
    scope: "build",
    id: "letta.hq-1",
    machine: "hq-1",
    also: [],
    kind: "rolled-back",
    summary: "letta's build 5e1f0c2 failed its gate on hq-1 and was put back to a71c3d0: hq-1 refused what it was sent",
    severity: "warning",
  }

  it("with no plan in flight, a failed build's condition cleared by hand is raised again; kept as it is, nothing is written", () => {
    expect(tickWith([failedVerdict], [])).toEqual([
      {
        q: "raise-condition",
        at: 5_000,
        observation: expect.objectContaining({ key: kept.key, severity: "warning", source: "DG" }),
      },
    ])
    expect(tickWith([failedVerdict], [kept])).toEqual([])
  })

  it("a newer build that passes clears it; what cannot be read clears nothing", () => {
    expect(tickWith([{ ...failedVerdict, build: "letta-206", verdict: "passed", rollback: "" }], [kept])).toEqual([
      { q: "clear-condition", key: kept.key, by: "DG" },
    ])
    expect(tickWith([], [kept], false)).toEqual([])
  })
})

describe("a new controller's user list carried to the bus's machine (seed 003's carryUserList)", () => {
  const controller: PlanRecord = {
    ...basePlan,
    id: "controller-7",
    module: "controller",
    build: "controller-7",
    tiers: [["hq-1"]],
    rest: ["hq-2"],
  }
  const ok: Tick = { reaches: machines, refuse: [] }
  const holder = (behind: boolean) => (q: Question, now: number) =>
    q.q === "holder-list"
      ? { ok: true, value: { holder: "hq-5", behind } }
      : q.q === "gate-facts"
        ? {
            now,
            engines: {},
            served: { ok: true, value: {} },
            open: { ok: true, value: [] },
            rolledBack: {},
            health: { ok: true, value: {} },
            holder: { ok: true, value: { taken: now, ready: true } },
            reports: { "hq-1": { at: now - 10, current: true, outcome: "applied" } },
          }
        : undefined

  it("once the controller passes, the machine holding the bus is sent its list when it does not run it; not otherwise", () => {
    const carried = drive(Array(6).fill(ok), controller, holder(true))
    expect(carried.final.state).toBe("passed")
    expect(carried.sends.filter((s) => s.why === "user-list").map((s) => s.asked)).toEqual([["hq-5"]])
    expect(carried.said).toContain(
      "[gate] controller-7: carried the new controller's user list to hq-5, which holds the bus",
    )
    const current = drive(Array(6).fill(ok), controller, holder(false))
    expect(current.final.state).toBe("passed")
    expect(current.sends.some((s) => s.why === "user-list")).toBe(false)
  })
})

describe("plan rows kept before tiers", () => {
  it("decode, and read as one tier the release sent; a state the store does not know is refused", async () => {
    const old = {
      id: "letta-letta-204",
      module: "letta",
      build: "letta-204",
      commit: "c",
      previous: "b",
      machines: ["hq-3"],
      rest: ["hq-4"],
      sentAt: 0,
      state: "open",
      note: "",
    }
    const p = Schema.decodeUnknownSync(PlanRecord)(old)
    expect(tiersOf(p)).toEqual([["hq-3"]])
    expect(sentOf(p)).toEqual(["hq-3"])
    expect(unsentOf(p)).toEqual(["hq-4"])
    expect(sentOf({ ...p, state: "passed" })).toEqual(everyMachine(p))
    expect(() => Schema.decodeUnknownSync(PlanRecord)({ ...old, state: "half-done" })).toThrow()
  })
})
