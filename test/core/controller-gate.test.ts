// The gate program's rules after a verdict (seed 003, issue 8): what it asks for, in which order, and
// what it never does, driven by a scripted world through the pure driver.
import { describe, expect, it } from "vitest"
import { gateTick } from "@mesh-core/core/gate/tick/tick"
import { runPure } from "@mesh-core/core/program"
import type { Question } from "@mesh-core/core/controller/catalogue"
import type { PlanRecord } from "@mesh-core/core/gate/plan/records"
import type { GateFactsRecord } from "@mesh-core/core/gate/judging/facts"
import { gateFacts, reportedOn } from "../support/gate-facts.ts"

const settings = { settle: 4_000, bound: 10_000, passes: 2, every: 1_000 }
const plan: PlanRecord = {
  id: "letta-letta-204",
  module: "letta",
  build: "letta-204",
  commit: "5e1f0c2a9b",
  previous: "a71c3d09e4",
  previousBuild: "letta-203",
  machines: ["hq-3"],
  rest: ["hq-4"],
  sentAt: 0,
  state: "open",
  note: "",
}
const facts = (now: number, outcome: string): GateFactsRecord => gateFacts(now, reportedOn(["hq-3"], 1, outcome))

const world =
  (f: GateFactsRecord, mine: boolean) =>
  (q: Question): unknown => {
    switch (q.q) {
      case "plans-in-flight":
        return { ok: true, value: [plan] }
      case "gate-facts":
        return f
      case "now":
        return f.now
      case "engine-builds":
        return { ok: true, value: {} }
      case "manifests":
        return { ok: true, value: {} }
      case "latest-verdicts":
        return { ok: true, value: [] }
      case "witness-verdicts":
        return { ok: true, value: {} }
      case "probe-conditions":
        return { ok: true, value: [] }
      case "builds":
        return {
          ok: true,
          value: [
            { build: "letta-203", module: "letta", commit: "a71c3d09e4" },
            { build: "letta-204", module: "letta", commit: "5e1f0c2a9b" },
          ],
        }
      case "among-kept":
        return { ok: true, value: true }
      case "record-verdict":
        return { ok: true, mine }
      case "send-plan":
        return { told: q.machines }
      default:
        return { ok: true }
    }
  }

const asked = (f: GateFactsRecord, mine: boolean) => runPure(gateTick(settings), world(f, mine))

describe("the gate program", () => {
  // Changed by issue 9: the plan is saved `rolling-back` with what it puts back before anything is
  // sent, the plan's own sends are `send-plan`, and the gate's probe runs at the end of every tick.
  it("a machine that refused the build fails the gate: the verdict kept first and said, the rollback saved, then the build put back, sent to the first machines only, the rollback recorded, the condition raised, the event said, the plan saved failed", () => {
    const r = asked(facts(2_000, "refused"), true)
    const acts = r.exchanges.map((e) => e.question.q)
    expect(acts).toEqual([
      "plans-in-flight",
      "gate-facts",
      "witness-verdicts",
      "engine-builds",
      "manifests",
      "builds",
      "record-verdict",
      "publish",
      "among-kept",
      "save-plan",
      "raise-condition",
      "set-build",
      "send-plan",
      "set-rollback",
      "raise-condition",
      "publish",
      "save-plan",
      "latest-verdicts",
      "probe-conditions",
    ])
    const rolling = r.exchanges.find((e) => e.question.q === "save-plan")!.question
    expect(rolling).toMatchObject({
      plan: { state: "rolling-back", putBack: { build: "letta-203", machines: ["hq-3"], sent: [] } },
    })
    const send = r.exchanges.find((e) => e.question.q === "send-plan")!.question
    expect(send).toMatchObject({ machines: ["hq-3"], why: "rollback" })
    const saved = r.exchanges.filter((e) => e.question.q === "save-plan").at(-1)!.question
    expect(saved).toMatchObject({ q: "save-plan", plan: { state: "failed" } })
    expect(r.said.join("\n")).toContain("put back to a71c3d0 (letta-203) on hq-3, in one send per machine")
    expect(r.result.verdicts).toEqual([{ plan: "letta-letta-204", verdict: "failed" }])
    // The verdict said once it is kept, before the rollback: the gate's, with how long it judged.
    const told = r.exchanges.find((e) => e.question.q === "publish")!.question
    expect(told).toEqual({
      q: "publish",
      event: "verdict",
      body: {
        event: "verdict",
        at: "1970-01-01T00:00:02.000Z",
        plan: "letta-letta-204",
        module: "letta",
        build: "letta-204",
        commit: plan.commit,
        previous: plan.previous,
        verdict: "failed",
        decided: "gate",
        machines: ["hq-3"],
        why: "hq-3 refused what it was sent",
        took: expect.any(String),
        show: "mesh-controller plans show letta-letta-204",
      },
    })
  })

  it("a verdict another controller kept already is acted on by that controller only: nothing put back, nothing sent, the plan not written over", () => {
    const r = asked(facts(2_000, "refused"), false)
    const acts = r.exchanges.map((e) => e.question.q)
    expect(acts).not.toContain("send-plan")
    expect(acts).not.toContain("set-build")
    expect(acts).not.toContain("save-plan")
    // Its verdict event is the other controller's to say: once per build (docs/events.md).
    expect(acts).not.toContain("publish")
    expect(r.result.verdicts).toEqual([])
  })

  it("a pass sends the rest and nothing else, and only once its verdict is this controller's", () => {
    let gate: PlanRecord["gate"]
    let now = 0
    // judged healthy every second until the verdict
    for (let i = 0; i < 10 && gate?.verdict !== "passed"; i++) {
      now += 1_500
      const p = gate === undefined ? plan : { ...plan, gate }
      const r = runPure(gateTick(settings), (q) =>
        q.q === "plans-in-flight" ? { ok: true, value: [p] } : world(facts(now, "applied"), true)(q),
      )
      const saves = r.exchanges
        .filter((e) => e.question.q === "save-plan")
        .map((e) => (e.question as Extract<Question, { q: "save-plan" }>).plan)
      gate = saves.at(-1)?.gate ?? gate
      if (gate?.verdict === "passed") {
        const sends = r.exchanges.filter((e) => e.question.q === "send-plan").map((e) => e.question)
        expect(sends).toEqual([{ q: "send-plan", plan: plan.id, machines: ["hq-4"], why: "rest", module: "letta" }])
        expect(now).toBeGreaterThanOrEqual(settings.settle)
        // sending before the rest is sent, passed once every machine has it
        expect(saves.map((x) => x.state)).toEqual(["sending", "passed"])
        expect(saves.at(-1)!.sent).toEqual(["hq-3", "hq-4"])
      }
    }
    expect(gate?.verdict).toBe("passed")
    const notMine = runPure(gateTick(settings), (q) =>
      q.q === "plans-in-flight"
        ? { ok: true, value: [{ ...plan, gate: { ...gate!, verdict: "" as const, passes: 5 } }] }
        : world(facts(now + 2_000, "applied"), false)(q),
    )
    expect(notMine.exchanges.map((e) => e.question.q)).not.toContain("send-plan")
  })

  // Changed by issue 9: the probe keeps the gate's conditions on every tick, plans or none.
  it("plans that cannot be read: nothing is judged, sent or probed, nothing said by the tick, and why is handed to the shell to say once", () => {
    const r = runPure(gateTick(settings), (q) =>
      q.q === "plans-in-flight" ? { ok: false, why: "connection refused" } : world(facts(0, "applied"), true)(q),
    )
    expect(r.exchanges.map((e) => e.question.q)).toEqual(["plans-in-flight"])
    expect(r.said).toEqual([])
    expect(r.result).toEqual({ judged: 0, verdicts: [], judgings: [], unread: "connection refused" })
  })
})

describe("a plan left open by a controller that stopped after keeping its verdict", () => {
  const kept = (rollback: string, verdict: "passed" | "failed") => ({
    build: plan.build,
    module: plan.module,
    commit: plan.commit,
    previous: plan.previous,
    plan: plan.id,
    machines: ["hq-3"],
    verdict,
    rollback,
    why: "hq-3 refused what it was sent",
    component: "",
    judgingFrom: 0,
  })
  const resumed = (outcome: string, v: ReturnType<typeof kept> | null, keptAt = 0) =>
    runPure(gateTick(settings), (q) =>
      q.q === "verdict-of"
        ? { ok: true, value: v === null ? null : { verdict: v, keptAt } }
        : world(facts(2_000, outcome), false)(q),
    )

  it("a failed verdict whose rollback was never finished is resumed: the rollback saved, sent and said", () => {
    const r = resumed("refused", kept("rolling-back", "failed"))
    expect(r.exchanges.find((e) => e.question.q === "send-plan")?.question).toMatchObject({
      why: "rollback",
      machines: ["hq-3"],
    })
    expect(r.exchanges.filter((e) => e.question.q === "save-plan").at(-1)!.question).toMatchObject({
      plan: { state: "failed" },
    })
  })

  it("one whose rollback was made is ended, and the rollback is not made again; a verdict of another plan is another's", () => {
    const ended = resumed("refused", kept("rolled-back", "failed"))
    const acts = ended.exchanges.map((e) => e.question.q)
    expect(acts).not.toContain("send-plan")
    expect(acts).not.toContain("set-build")
    expect(ended.exchanges.filter((e) => e.question.q === "save-plan").at(-1)!.question).toMatchObject({
      plan: { state: "failed" },
    })
    const other = resumed("refused", { ...kept("rolling-back", "failed"), plan: "letta-other" })
    expect(other.exchanges.map((e) => e.question.q)).not.toContain("save-plan")
    // kept within the last `every`: whoever kept it is moving it on now, and it is left to them
    const fresh = resumed("refused", kept("rolling-back", "failed"), 1_500)
    expect(fresh.exchanges.map((e) => e.question.q)).not.toContain("send-plan")
    expect(fresh.exchanges.map((e) => e.question.q)).not.toContain("save-plan")
  })

  it("a passed verdict whose rest was never sent is resumed: the rest sent", () => {
    const open = { ...plan, gate: { ...gateRecord(), passes: 5, lastPass: 0 } }
    const r = runPure(gateTick(settings), (q) =>
      q.q === "verdict-of"
        ? { ok: true, value: { verdict: kept("", "passed"), keptAt: 0 } }
        : q.q === "plans-in-flight"
          ? { ok: true, value: [open] }
          : world(facts(9_000, "applied"), false)(q),
    )
    expect(r.exchanges.find((e) => e.question.q === "send-plan")?.question).toMatchObject({
      why: "rest",
      machines: ["hq-4"],
    })
  })
})

function gateRecord() {
  return {
    component: "",
    machines: ["hq-3"],
    from: plan.previous,
    to: plan.commit,
    since: 0,
    passes: 0,
    last: "",
    failing: [],
    verdict: "" as const,
    why: "",
    took: "",
    carried: [],
    rollback: "",
  }
}

describe("a plan being sent by one controller is left to it", () => {
  it("a plan rolling back, tried within the last `every`, is not sent again this tick; tried longer ago, it is", () => {
    const rolling: PlanRecord = {
      ...plan,
      state: "rolling-back",
      putBack: { build: "letta-203", commit: "a71c3d09e4", machines: ["hq-3"], sent: [] },
      tries: 0,
      triedAt: 1_500,
    }
    const tick = (p: PlanRecord) =>
      runPure(gateTick(settings), (q) =>
        q.q === "plans-in-flight" ? { ok: true, value: [p] } : world(facts(2_000, "applied"), true)(q),
      )
    expect(tick(rolling).exchanges.map((e) => e.question.q)).not.toContain("send-plan")
    expect(
      tick({ ...rolling, triedAt: 1_000 }).exchanges.find((e) => e.question.q === "send-plan")?.question,
    ).toMatchObject({ why: "rollback", machines: ["hq-3"] })
    // after two tries that did not land, it waits twice as long
    expect(tick({ ...rolling, tries: 2, triedAt: 500 }).exchanges.map((e) => e.question.q)).not.toContain("send-plan")
  })
})

describe("the witnesses' verdicts are judged live", () => {
  it("a node-engine witness that put the build back since the send breaks the gate at once", () => {
    const engine: PlanRecord = {
      ...plan,
      id: "node-engine-9",
      module: "node-engine",
      build: "node-engine-9",
      previousBuild: "node-engine-8",
    }
    const r = runPure(gateTick(settings), (q) =>
      q.q === "plans-in-flight"
        ? { ok: true, value: [engine] }
        : q.q === "witness-verdicts"
          ? {
              ok: true,
              value: {
                "hq-3": [
                  {
                    component: "node-engine",
                    outcome: "rolled-back",
                    from: "5e1f0c2a9b",
                    to: "a71c3d09e4",
                    why: "did not come back",
                    at: 1_000,
                  },
                ],
              },
            }
          : world(facts(2_000, "applied"), true)(q),
    )
    expect(r.result.verdicts).toEqual([{ plan: "node-engine-9", verdict: "failed" }])
    expect(r.said.join("\n")).toContain(
      "the witness on hq-3 judged the node-engine 5e1f0c2 and rolled-back: did not come back",
    )
    expect(r.exchanges.filter((e) => e.question.q === "witness-verdicts")).toHaveLength(1)
  })
})
