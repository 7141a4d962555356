// The gate program's paths a plain release day never takes (seed 003, issues 9 and 10): the store or
// the bus failing in the middle of a move, a rollback decided "unchanged" or "not put back", a dry
// run's words, a verdict left by a controller that stopped. Each is driven through the gate world and
// checked for what it asks, what it leaves saved and what a person reads (`plans`, the journal that
// `simulate` replays), stated from the rule.
import { describe, expect, it } from "vitest"
import type { Question } from "@mesh-core/core/controller/catalogue"
import type { PlanRecord, VerdictRecord } from "@mesh-core/core/gate/plan/records"
import { basePlan, machines, ok, run, type Step, settings } from "./gate-world.ts"
import { gateFacts } from "../support/gate-facts.ts"
import { keptVerdict } from "../support/plan-records.ts"

const tick = (reaches: ReadonlyArray<string>, refuse: ReadonlyArray<string> = []): Step => ({
  kind: "tick",
  reaches,
  refuse,
})
/** hq-1 refuses what it was sent: the first tier's gate fails on the next tick. */
const refused = tick(machines, ["hq-1"])
const q = <K extends Question["q"]>(r: ReturnType<typeof run>, kind: K) =>
  r.acts.filter((a) => a.q.q === kind).map((a) => a.q as Extract<Question, { q: K }>)
const asks = <K extends Question["q"]>(r: ReturnType<typeof run>, kind: K) =>
  r.asked.filter((a) => a.q.q === kind).map((a) => a.q as Extract<Question, { q: K }>)
const failing = (why: string) => ({ ok: false, why })

describe("a send that does not reach every machine of the tier", () => {
  // Run inside each test, never while the file is collected: a mutation run counts per test what each covers.
  const twice = () => run([tick([]), tick([]), ok, ok, ok, tick(["hq-1", "hq-2"])])

  it("asks again only for the machines not sent, and names them, the error and the retry policy (every, doubling: 1s, then 2s)", () => {
    const sends = twice()
      .acts.filter((a) => a.q.q === "send-plan")
      .map((a) => [a.step, (a.q as Extract<Question, { q: "send-plan" }>).machines])
    // Not sent at step 2: 1.1s after the second try is within the 2s the policy waits.
    expect(sends).toEqual([
      [0, ["hq-1"]],
      [1, ["hq-1"]],
      [3, ["hq-1"]],
      [5, ["hq-2", "hq-3"]],
    ])
    expect(twice().said.filter((s) => s.includes("not sent yet"))).toEqual([
      "[gate] letta-205: tier 1: hq-1 not sent yet (the memberships could not be issued); sent again in 1s, 1 try so far",
      "[gate] letta-205: tier 1: hq-1 not sent yet (the memberships could not be issued); sent again in 2s, 2 tries so far",
      "[gate] letta-205: tier 2: hq-3 not sent yet (the memberships could not be issued); sent again in 1s, 1 try so far",
    ])
    // The plan a person reads says the same, and hq-2 reached is kept as sent.
    expect(twice().plan).toMatchObject({
      state: "open",
      tier: 1,
      note: "tier 2: hq-3 not sent yet (the memberships could not be issued); sent again in 1s, 1 try so far",
    })
    expect(twice().plan.sent).toContain("hq-2")
    expect(twice().plan.sent).not.toContain("hq-3")
  })

  it("once every machine of it has the build, says so naming each, and its gate opens then", () => {
    expect(twice().said).toContain("[gate] letta-205: letta letta-205 sent to tier 1 (hq-1); the gate judges it there")
    expect(run([ok, ok, ok]).said).toContain(
      "[gate] letta-205: letta letta-205 sent to tier 2 (hq-2, hq-3); the gate judges it there",
    )
    const opened = twice().saves.find((s) => s.plan.gate !== undefined)!
    expect(opened.step).toBe(3)
    expect(opened.plan.gate!.since).toBe(twice().at[3])
  })

  it("a tier sent again is asked only for its machines still unsent", () => {
    const r = run([ok, ok, tick(["hq-1", "hq-2"]), ok])
    expect(q(r, "send-plan").map((s) => s.machines)).toEqual([["hq-1"], ["hq-2", "hq-3"], ["hq-3"]])
    expect(r.said).toContain(
      "[gate] letta-205: letta passed its gate in tier 1 on hq-1 (healthy 2 times over 2s); tier 2 is sent",
    )
  })

  it("a plan's own build is what the registered records send: a real release's send names no build, a dry run's does", () => {
    expect(q(run([ok]), "send-plan")[0]).not.toHaveProperty("build")
    expect(q(run([ok], { ...basePlan, dryRun: true }), "send-plan")[0]).toMatchObject({ build: "letta-205" })
  })

  it("with no error told, the words say so", () => {
    const r = run([ok], basePlan, { answer: (x) => (x.q === "send-plan" ? { told: [] } : undefined) })
    expect(r.said).toEqual(["[gate] letta-205: tier 1: hq-1 not sent yet (not told); sent again in 1s, 1 try so far"])
  })
})

describe("the store that does not keep what the gate decided", () => {
  it("a judging not kept is said, and the next tick judges from the plan as the store has it", () => {
    const r = run([ok, ok, ok], basePlan, {
      answer: (x, step) => (x.q === "save-plan" && step === 1 ? failing("the store is away") : undefined),
    })
    expect(r.said).toContain("[gate] letta-205: the plan could not be kept: the store is away")
    // The first judging was lost: the tick after counts its pass as the first again.
    expect(r.said.filter((s) => s.includes("judging, a71c3d0 → 5e1f0c2 (1 of 2 passes)"))).toHaveLength(2)
  })

  it("a tier passed but not kept is not followed by the next tier's send that tick", () => {
    const r = run([ok, ok, ok], basePlan, {
      answer: (x, step) =>
        x.q === "save-plan" && step === 2 && x.plan.tier === 1 ? failing("the store is away") : undefined,
    })
    expect(r.said).toContain(
      "[gate] letta-205: the plan could not be kept, so tier 2 is not sent yet: the store is away",
    )
    expect(q(r, "send-plan").map((s) => s.machines)).toEqual([["hq-1"]])
  })

  it("a pass whose verdict cannot be kept acts on nothing: no rest sent, no verdict counted", () => {
    const one: PlanRecord = { ...basePlan, tiers: [["hq-1"]], rest: ["hq-2"] }
    const r = run([ok, ok, ok], one, {
      answer: (x) => (x.q === "record-verdict" ? failing("the store is away") : undefined),
    })
    expect(r.said).toContain(
      "[gate] letta-205: its verdict could not be kept, so nothing is acted on yet: the store is away",
    )
    expect(q(r, "send-plan").map((s) => s.why)).toEqual(["tier"])
    expect(r.ticks.flatMap((t) => t.result.verdicts)).toEqual([])
  })

  it("a pass not kept before the rest are sent is said, and the rest are sent all the same", () => {
    const one: PlanRecord = { ...basePlan, tiers: [["hq-1"]], rest: ["hq-2"] }
    const r = run([ok, ok, ok], one, {
      answer: (x) => (x.q === "save-plan" && x.plan.state === "sending" ? failing("disk full") : undefined),
    })
    expect(r.said).toContain("[gate] letta-205: the plan could not be kept before the rest are sent: disk full")
    expect(q(r, "send-plan").map((s) => [s.why, s.machines])).toEqual([
      ["tier", ["hq-1"]],
      ["rest", ["hq-2"]],
    ])
  })

  it("a failure not kept before its rollback is sent is said, and the rollback is sent all the same", () => {
    const r = run([ok, refused], basePlan, {
      answer: (x) => (x.q === "save-plan" && x.plan.state === "rolling-back" ? failing("disk full") : undefined),
    })
    expect(r.said).toContain("[gate] letta-205: the plan could not be kept before its rollback is sent: disk full")
    expect(q(r, "send-plan").map((s) => s.why)).toEqual(["tier", "rollback"])
  })

  it("the registered build that cannot be put back yet is said, and the machines are sent the rollback", () => {
    const r = run([ok, refused], basePlan, {
      answer: (x) => (x.q === "set-build" ? failing("the store is away") : undefined),
    })
    expect(r.said).toContain(
      "[gate] letta-205: letta's registered build could not be put back to letta-204 yet: the store is away",
    )
    expect(q(r, "send-plan").at(-1)).toMatchObject({ why: "rollback", machines: ["hq-1"] })
  })

  it("manifests that cannot be read end the judging of a module judged by its tools: could not ask, never judged without them (003-3)", () => {
    const r = run([ok, ok], basePlan, { answer: (x) => (x.q === "manifests" ? failing("no such table") : undefined) })
    expect(r.said).toContain(
      "[gate] letta-205: could not ask (1 of 3 in a row before it is paused): the modules' manifests cannot be read: no such table",
    )
    expect(r.ticks[1]!.result.judged).toBe(1)
    expect(r.ticks[1]!.result.judgings).toEqual([{ plan: "letta-205", word: "could-not-ask", dryRun: false }])
  })
})

describe("a plan of one tier, or with nothing after it", () => {
  const one: PlanRecord = { ...basePlan, tiers: [["hq-1"]], rest: ["hq-2"] }

  it("a plan of one tier names no tier in its pass or its failure", () => {
    const passed = run([ok, ok, tick(["hq-1"])], one)
    expect(passed.saves.map((s) => s.plan.note)).toContain(
      "letta passed its gate on hq-1 (healthy 2 times over 2s); the rest are sent",
    )
    const failedOne = run([ok, refused], one)
    expect(failedOne.plan.note).toBe(
      "letta failed its gate on hq-1: hq-1 refused what it was sent; put back to a71c3d0 (letta-204) on hq-1, in one send per machine",
    )
  })

  it("a plan of tiers names the tier its last pass was in", () => {
    const r = run([ok, ok, ok, ok, ok, ok, tick(["hq-1", "hq-2", "hq-3", "hq-4"])])
    expect(r.saves.map((s) => s.plan.note)).toContain(
      "letta passed its gate in tier 3 on hq-4 (healthy 2 times over 2s); the rest are sent",
    )
    expect(r.plan).toMatchObject({
      state: "sending",
      note: "passed; sending the rest: hq-5 not sent yet (the memberships could not be issued); sent again in 1s, 1 try so far",
    })
  })

  it("a row left `sending` with every machine sent (another controller's send kept, its state not) is ended passed, nothing sent", () => {
    const r = run([ok], { ...basePlan, state: "sending", sent: machines })
    expect(r.plan.state).toBe("passed")
    expect(q(r, "send-plan")).toEqual([])
  })

  it("with no rest, the last tier's pass ends the plan passed at once, and nothing more is sent", () => {
    const r = run([ok, ok, ok, ok], { ...basePlan, tiers: [["hq-1"]], rest: [] })
    expect(r.plan.state).toBe("passed")
    expect(r.ticks.flatMap((t) => t.result.verdicts)).toEqual([{ plan: "letta-205", verdict: "passed" }])
    expect(q(r, "send-plan").map((s) => s.why)).toEqual(["tier"])
  })
})

describe("a failure's rollback, decided in the seed's order", () => {
  const same = (x: Question) =>
    x.q === "builds"
      ? {
          ok: true,
          value: [
            { build: "letta-204", module: "letta", commit: "a71c3d09e4", source: "src-1" },
            { build: "letta-205", module: "letta", commit: "5e1f0c2a9b", source: "src-1" },
          ],
        }
      : undefined

  it("the builds asked for are the failed one and the one it replaced", () => {
    expect(asks(run([ok, refused]), "builds").map((b) => b.builds)).toEqual([["letta-205", "letta-204"]])
    const { previousBuild: _, ...first } = basePlan
    expect(asks(run([ok, refused], first), "builds").map((b) => b.builds)).toEqual([["letta-205"]])
  })

  it("a build made from the same source as the one before moved nothing: failed, nothing put back or sent, the plan says why", () => {
    const r = run([ok, refused], basePlan, { answer: same })
    const said =
      "the send to hq-1 failed its gate: hq-1 refused what it was sent; letta was left as it was — hq-1 already ran letta 5e1f0c2, or a build identical to it, before the send, so nothing of it moved and nothing is put back"
    expect(r.said).toContain(`[gate] letta-205: ${said}`)
    expect(r.plan).toMatchObject({
      state: "failed",
      gate: { rollback: "unchanged" },
      note: `letta failed its gate in tier 1 on hq-1: hq-1 refused what it was sent; ${said}`,
    })
    expect(q(r, "set-build")).toEqual([])
    expect(q(r, "send-plan").map((s) => s.why)).toEqual(["tier"])
  })

  it("only the sources the store knows count: an unknown source is not the same source", () => {
    const r = run([ok, refused], basePlan, {
      answer: (x) =>
        x.q === "builds"
          ? {
              ok: true,
              value: [
                { build: "letta-205", module: "letta", commit: "5e1f0c2a9b", source: "src-1" },
                { build: "letta-204", module: "letta", commit: "a71c3d09e4" },
              ],
            }
          : undefined,
    })
    expect(r.plan.gate?.rollback).toBe("rolled-back")
  })

  it("no previous build among those kept: NOT put back, marked so, an urgent condition raised with who resolves it, said on the bus", () => {
    const r = run([ok, refused], basePlan, {
      answer: (x) => (x.q === "among-kept" ? { ok: true, value: false } : undefined),
    })
    const why =
      "NOT put back: no build of letta from a71c3d0, asked before the failed one, is among the 10 newest kept to put back"
    // Marked, and why kept with the verdict: the gate's reason, then why not (seed 003's notBack).
    expect(q(r, "set-rollback")).toEqual([
      {
        q: "set-rollback",
        build: "letta-205",
        rollback: "not-rolled-back",
        why: `hq-1 refused what it was sent; ${why}`,
      },
    ])
    expect(r.plan).toMatchObject({
      state: "failed",
      gate: { rollback: "not-rolled-back" },
      note: `letta failed its gate in tier 1 on hq-1: hq-1 refused what it was sent; ${why}`,
    })
    expect(r.said).toContain(
      `[gate] letta-205: letta failed its gate in tier 1 on hq-1: hq-1 refused what it was sent; ${why}`,
    )
    const raised = q(r, "raise-condition").find((c) => c.observation.kind === "rollback-failed")!
    expect(raised.observation).toMatchObject({ severity: "urgent", key: "build.letta.hq-1.rollback-failed" })
    expect(raised.observation.resolver).toEqual(expect.any(String))
    expect(q(r, "publish").map((p) => p.event)).toEqual(["verdict", "rolled-back"])
    // The event says it was not put back, and why: never an empty rollback.
    expect(q(r, "publish")[1]!.body).toMatchObject({ rollback: "not-rolled-back", not_why: why })
    expect(q(r, "send-plan").map((s) => s.why)).toEqual(["tier"])
  })

  it("builds that cannot be read leave nothing known to put back: NOT put back", () => {
    const r = run([ok, refused], basePlan, {
      answer: (x) => (x.q === "builds" ? failing("the store is away") : undefined),
    })
    expect(r.plan.gate?.rollback).toBe("not-rolled-back")
    expect(q(r, "set-build")).toEqual([])
  })

  it("a verdict the store did not keep, or a build the plan does not know, is not put back and marks no build's verdict (seed 003: only notBack calls SetRollback)", () => {
    const refusedVerdict = run([ok, refused], basePlan, {
      answer: (x) => (x.q === "record-verdict" ? failing("the store is away") : undefined),
    })
    expect(refusedVerdict.plan.gate?.rollback).toBe("not-rolled-back")
    expect(q(refusedVerdict, "set-rollback")).toEqual([])
    const unknownBuild = run([ok, refused], { ...basePlan, build: "" })
    expect(unknownBuild.plan.gate?.rollback).toBe("not-rolled-back")
    expect(q(unknownBuild, "set-rollback")).toEqual([])
    // Beside them, a first build there is marked, its verdict kept first.
    const { previous: _, previousBuild: __, ...first } = basePlan
    expect(q(run([ok, refused], { ...first, previous: "" }), "set-rollback").map((s) => s.rollback)).toEqual([
      "not-rolled-back",
    ])
  })

  it("a rollback the bus cannot be told of is said, and stands", () => {
    const r = run([ok, refused], basePlan, {
      answer: (x) => (x.q === "publish" ? failing("the bus is away") : undefined),
    })
    expect(r.said).toContain("[gate] letta's rollback could NOT be said on the bus: the bus is away")
    expect(r.plan).toMatchObject({ state: "failed", gate: { rollback: "rolled-back" } })
  })

  it("a row rolling back with nothing to put back (kept before rollbacks were saved) is ended failed, nothing sent", () => {
    const r = run([ok], { ...basePlan, state: "rolling-back", sent: ["hq-1"] })
    expect(r.plan.state).toBe("failed")
    expect(q(r, "send-plan")).toEqual([])
  })
})

describe("a dry run's verdict: said, kept in the plan, nothing of it done", () => {
  const dry: PlanRecord = { ...basePlan, dryRun: true, machines: ["hq-1", "hq-2"], tiers: [["hq-1", "hq-2"]], rest: [] }

  it("names what it would have decided and the machines that keep the build (one keeps, two keep)", () => {
    const two = run([ok, ok, ok], dry)
    expect(two.plan).toMatchObject({
      state: "passed",
      note: "dry run: letta letta-205 would have passed its gate on hq-1, hq-2 (healthy 2 times over 2s); nothing else is sent, held or put back, and hq-1, hq-2 keep it until the next push",
    })
    const one = run([ok, ok, ok], { ...dry, machines: ["hq-1"], tiers: [["hq-1"]] })
    expect(one.plan.note).toBe(
      "dry run: letta letta-205 would have passed its gate on hq-1 (healthy 2 times over 2s); nothing else is sent, held or put back, and hq-1 keeps it until the next push",
    )
    expect(q(two, "record-verdict")).toEqual([])
  })

  it("a judging that could not ask is counted as the dry run's, and a real plan's as its own", () => {
    const unreadable: Step = { kind: "tick", reaches: machines, refuse: [], unreadable: true }
    const words = (p: PlanRecord) => run([ok, unreadable], p).ticks[1]!.result.judgings
    expect(words(dry)).toEqual([{ plan: "letta-205", word: "could-not-ask", dryRun: true }])
    expect(words(basePlan)).toEqual([{ plan: "letta-205", word: "could-not-ask", dryRun: false }])
  })
})

describe("judgings that could not ask, until the plan is paused", () => {
  it("a pause the bus cannot be told of is said; the plan is paused all the same", () => {
    const unreadable: Step = { kind: "tick", reaches: machines, refuse: [], unreadable: true }
    const r = run([ok, unreadable, unreadable, unreadable], basePlan, {
      answer: (x) => (x.q === "publish" ? failing("the bus is away") : undefined),
    })
    expect(r.said.at(-1)).toBe("[gate] letta-205: its pause could NOT be said on the bus: the bus is away")
    expect(r.plan.paused).toBeDefined()
  })
})

describe("the time a person paused a plan is not held against its bound", () => {
  // hq-1 never reports on what it was sent: the gate is not yet healthy until its bound fails it.
  const silent = (x: Question, _step: number, now: number): unknown =>
    x.q === "gate-facts" ? gateFacts(now, { "hq-1": { at: now - 10, current: false, outcome: "applied" } }) : undefined
  const failedAt = (r: ReturnType<typeof run>) => r.saves.find((s) => s.plan.gate?.verdict === "failed")!.step

  it("a plan paused for 5.5s fails at the first judging past 15.5s after its gate opened, one never paused past 10s", () => {
    const opened = run([ok]).plan
    const since = opened.gate!.since
    for (const pausedFor of [0, 5_500]) {
      const r = run(Array(18).fill(ok), pausedFor === 0 ? opened : { ...opened, pausedFor }, { answer: silent })
      const due = since + settings.bound + pausedFor
      const at = failedAt(r)
      expect(r.at[at]!, `paused ${pausedFor}`).toBeGreaterThan(due)
      expect(r.at[at - 1]!, `paused ${pausedFor}`).toBeLessThanOrEqual(due)
    }
    const paused = run(Array(18).fill(ok), { ...opened, pausedFor: 5_500 }, { answer: silent })
    expect(paused.plan.note).toContain(
      "not healthy within 15.5s of its apply: hq-1 has not reported on what it was sent",
    )
  })

  it("time paused before its tier was sent is not its gate's: it fails as one never paused", () => {
    const never = run(Array(14).fill(ok), basePlan, { answer: silent })
    const paused = run(Array(14).fill(ok), { ...basePlan, pausedFor: 5_500 }, { answer: silent })
    expect(failedAt(paused)).toBe(failedAt(never))
  })
})

describe("a verdict kept by a controller that stopped before it moved the plan on", () => {
  const byAnother = (v: VerdictRecord, keptAt: (now: number) => number) =>
    run([ok, refused], basePlan, {
      answer: (x, _step, now) =>
        x.q === "record-verdict"
          ? { ok: true, mine: false }
          : x.q === "verdict-of"
            ? { ok: true, value: { verdict: v, keptAt: keptAt(now) } }
            : undefined,
    })

  it("kept with its rollback made: the plan is ended failed, said, and the rollback not made again", () => {
    const r = byAnother(keptVerdict(), () => 0)
    expect(r.said).toContain(
      "[gate] letta-205: its verdict (failed) was kept and the plan left open; it is moved on from here",
    )
    expect(r.plan).toMatchObject({
      state: "failed",
      note: "letta failed its gate on hq-1: hq-1 refused what it was sent; its rollback was already made once and is not made again",
    })
    expect(q(r, "set-build")).toEqual([])
  })

  it("kept exactly `every` ago is left, so it is moved on from here; kept within `every`, whoever kept it is moving it", () => {
    expect(byAnother(keptVerdict(), (now) => now - settings.every).plan.state).toBe("failed")
    const recent = byAnother(keptVerdict(), (now) => now - settings.every + 1)
    expect(recent.plan.state).toBe("open")
    expect(recent.said.some((s) => s.includes("was kept and the plan left open"))).toBe(false)
  })

  it("a verdict of another plan, or another verdict, is another's to act on", () => {
    for (const v of [keptVerdict({ plan: "letta-205-again" }), keptVerdict({ verdict: "passed" })]) {
      const r = byAnother(v, () => 0)
      expect(r.plan.state).toBe("open")
      expect(q(r, "send-plan").map((s) => s.why)).toEqual(["tier"])
    }
  })
})

describe("a new controller's user list carried to the bus's machine", () => {
  const controller: PlanRecord = {
    ...basePlan,
    id: "controller-7",
    module: "controller",
    build: "controller-7",
    tiers: [["hq-1"]],
    rest: ["hq-2"],
  }
  const world =
    (list: unknown, userListSend?: unknown) =>
    (x: Question, _step: number, now: number): unknown => {
      if (x.q === "holder-list") return list
      if (x.q === "send-plan" && x.why === "user-list") return userListSend
      if (x.q === "gate-facts") {
        return {
          now,
          engines: {},
          served: { ok: true, value: {} },
          open: { ok: true, value: [] },
          rolledBack: {},
          health: { ok: true, value: {} },
          holder: { ok: true, value: { taken: now, ready: true } },
          reports: { "hq-1": { at: now - 10, current: true, outcome: "applied" } },
        }
      }
      return undefined
    }

  it("whether the list is behind that cannot be read is said, and nothing is sent to the holder", () => {
    const r = run(Array(4).fill(ok), controller, { answer: world(failing("the bucket is away")) })
    expect(r.plan.state).toBe("passed")
    expect(r.said).toContain(
      "[gate] controller-7: whether the bus's user list is behind the new controller cannot be read: the bucket is away",
    )
    expect(q(r, "send-plan").some((s) => s.why === "user-list")).toBe(false)
  })

  it("with no machine holding the bus, nothing is carried", () => {
    const r = run(Array(4).fill(ok), controller, { answer: world({ ok: true, value: { holder: null, behind: true } }) })
    expect(r.plan.state).toBe("passed")
    expect(q(r, "send-plan").some((s) => s.why === "user-list")).toBe(false)
  })

  it("a list that could not be carried is said with the push that carries it", () => {
    const r = run(Array(4).fill(ok), controller, {
      answer: world({ ok: true, value: { holder: "hq-5", behind: true } }, { told: [], error: "hq-5 is away" }),
    })
    expect(r.said).toContain(
      "[gate] controller-7: the new controller's user list could not be carried to hq-5: hq-5 is away — `push hq-5` carries it",
    )
    const quiet = run(Array(4).fill(ok), controller, {
      answer: world({ ok: true, value: { holder: "hq-5", behind: true } }, { told: [] }),
    })
    expect(quiet.said).toContain(
      "[gate] controller-7: the new controller's user list could not be carried to hq-5: not told — `push hq-5` carries it",
    )
  })
})

describe("a node-engine release: the build its engine must report", () => {
  const engine: PlanRecord = {
    ...basePlan,
    id: "node-engine-12",
    module: "node-engine",
    build: "node-engine-12",
    tiers: [["hq-1"]],
    rest: [],
  }
  const reporting =
    (have: string, delivered: ReadonlyArray<string>) =>
    (x: Question): unknown =>
      x.q === "engine-builds"
        ? { ok: true, value: { "hq-1": have } }
        : x.q === "manifests"
          ? {
              ok: true,
              value: delivered.length === 0 ? {} : { "node-engine": { tools: [], deliveredVersions: delivered } },
            }
          : undefined

  it("is the one its manifest says it delivers, when it names one; else the plan's own build", () => {
    expect(run([ok, ok, ok], engine, { answer: reporting("engine-9.1", ["engine-9.1"]) }).plan.state).toBe("passed")
    expect(run([ok, ok, ok], engine, { answer: reporting("node-engine-12", []) }).plan.state).toBe("passed")
    const other = run([ok, ok, ok], engine, { answer: reporting("node-engine-12", ["engine-9.1"]) })
    expect(other.plan.state).toBe("open")
    expect(other.said).toContain(
      "[gate] node-engine-12: node-engine: gate on hq-1: judging (core: node-engine), a71c3d0 → 5e1f0c2 (0 of 2 passes; wanting: hq-1's node-engine reports build node-engine-12, not the new engine-9.1)",
    )
  })
})

describe("what is said while a plan cannot be judged, or its rollback sent", () => {
  const unreadable: Step = { kind: "tick", reaches: machines, refuse: [], unreadable: true }

  it("each judging that could not ask is said with how many in a row are left before the pause; a pause told on the bus is not said as failed", () => {
    const r = run([ok, unreadable, unreadable, unreadable])
    expect(r.said).toContain(
      "[gate] letta-205: could not ask (1 of 3 in a row before it is paused): what is wrong cannot be read: connect ECONNREFUSED 127.0.0.1:5432",
    )
    expect(r.said.some((x) => x.includes("could NOT be said"))).toBe(false)
    expect(r.plan.paused).toBeDefined()
  })

  it("a dry run's verdict is said as its plan says it", () => {
    const dry: PlanRecord = { ...basePlan, dryRun: true, tiers: [["hq-1"]], rest: [] }
    const r = run([ok, ok, ok], dry)
    expect(r.said).toContain(`[gate] letta-205: ${r.plan.note}`)
    expect(r.plan.note).toMatch(/^dry run: letta letta-205 would have passed its gate on hq-1 /)
  })

  it("a rollback not yet sent to every machine names those left, the error and the retry policy", () => {
    const r = run([ok, refused], basePlan, {
      answer: (x) => (x.q === "send-plan" && x.why === "rollback" ? { told: [], error: "hq-1 is away" } : undefined),
    })
    const note = "putting back a71c3d0 (letta-204): hq-1 not sent yet (hq-1 is away); sent again in 1s, 1 try so far"
    expect(r.plan).toMatchObject({ state: "rolling-back", note })
    expect(r.said).toContain(`[gate] letta-205: ${note}`)
    const quiet = run([ok, refused], basePlan, {
      answer: (x) => (x.q === "send-plan" && x.why === "rollback" ? { told: [] } : undefined),
    })
    expect(quiet.plan.note).toBe(
      "putting back a71c3d0 (letta-204): hq-1 not sent yet (not told); sent again in 1s, 1 try so far",
    )
  })

  it("a row rolling back without its gate (kept before gates were saved) ends failed, naming no machine or why of a gate", () => {
    const row: PlanRecord = {
      ...basePlan,
      state: "rolling-back",
      sent: ["hq-1"],
      putBack: { build: "letta-204", commit: "a71c3d09e4", machines: ["hq-1"], sent: [] },
    }
    const r = run([ok], row)
    expect(r.plan).toMatchObject({
      state: "failed",
      note: "letta failed its gate in tier 1 on : ; put back to a71c3d0 (letta-204) on hq-1, in one send per machine",
    })
    expect(r.plan.gate).toBeUndefined()
  })
})

describe("the gate's probe when it cannot read", () => {
  it("says what it could not read, each why, and clears nothing", () => {
    const r = run([ok], basePlan, {
      answer: (x) =>
        x.q === "latest-verdicts"
          ? failing("verdicts: gone")
          : x.q === "probe-conditions"
            ? failing("conditions: gone")
            : undefined,
    })
    expect(r.said).toContain(
      "[gate] the gate's probe could not read everything, so it clears nothing this time: verdicts: gone; conditions: gone",
    )
    expect(q(r, "clear-condition")).toEqual([])
    expect(q(r, "raise-condition")).toEqual([])
  })
})
