// What a person reads when a verb is refused or done (gate/operator/verbs.ts, issue 10): each sentence
// pinned word for word, and the plan each verb leaves, stated case by case.
import { describe, expect, it } from "vitest"
import type { GateRecord, OperatorCommand, VerbName } from "@mesh-core/core/gate/plan/records"
import { verbEvent } from "@mesh-core/core/gate/plan/events"
import { decideVerb, retryBlocked, verbRefusal } from "@mesh-core/core/gate/operator/verbs"
import { basePlan } from "./gate-world.ts"

const at = Date.parse("2026-12-01T10:00:00Z")
const cmd = (verb: VerbName, why = "", when = at): OperatorCommand => ({
  plan: "letta-205",
  verb,
  by: "alice",
  at: when,
  why,
})
const gate = (rollback: string, passes = 1): GateRecord => ({
  component: "",
  machines: ["hq-1"],
  from: "a71c3d09e4",
  to: "5e1f0c2a9b",
  since: 0,
  passes,
  last: "",
  failing: [],
  verdict: rollback === "" ? "" : "failed",
  why: "",
  took: "",
  carried: [],
  rollback,
})
const paused = { ...basePlan, paused: { by: "bob", at: at - 60_000, why: "looking" } }

describe("refusals, word for word", () => {
  it("pause", () => {
    expect(verbRefusal(paused, cmd("pause"))).toBe(
      "plan letta-205 is paused by bob at 2026-12-01T09:59:00Z: looking already",
    )
    expect(verbRefusal({ ...basePlan, state: "sending", sent: ["hq-1", "hq-2"] }, cmd("pause"))).toBe(
      "plan letta-205 passed its gate and is sending the rest (hq-3, hq-4, hq-5): there is no gate left to pause",
    )
    expect(verbRefusal({ ...basePlan, state: "rolling-back" }, cmd("pause"))).toBe(
      "plan letta-205 failed its gate and its previous build is being put back: a rollback is not paused; it is sent until it lands",
    )
    expect(
      verbRefusal(
        {
          ...basePlan,
          state: "rolling-back",
          putBack: { build: "letta-203", commit: "c", machines: ["hq-1"], sent: [] },
        },
        cmd("pause"),
      ),
    ).toBe(
      "plan letta-205 failed its gate and letta-203 is being put back: a rollback is not paused; it is sent until it lands",
    )
    expect(verbRefusal(basePlan, cmd("pause"))).toBeUndefined()
  })

  it("resume and promote", () => {
    expect(verbRefusal(basePlan, cmd("resume"))).toBe(
      "plan letta-205 is open and not paused: there is nothing to resume",
    )
    expect(verbRefusal({ ...basePlan, state: "failed", gate: gate("unchanged") }, cmd("promote"))).toBe(
      "plan letta-205 is failed: a plan whose gate failed is not promoted; `plans retry letta-205` judges it again",
    )
    expect(verbRefusal({ ...basePlan, state: "failed", gate: gate("rolled-back") }, cmd("promote"))).toBe(
      "plan letta-205 is failed: a plan whose gate failed is not promoted; release a newer build",
    )
  })

  it("retry", () => {
    expect(verbRefusal(basePlan, cmd("retry"))).toBe(
      "plan letta-205 is open: it is judged or sent on every tick already, and there is nothing to retry",
    )
    expect(verbRefusal({ ...basePlan, state: "passed" }, cmd("retry"))).toBe(
      "plan letta-205 is passed: every machine has its build, and there is nothing to judge again",
    )
    expect(verbRefusal({ ...basePlan, state: "failed", gate: gate("rolled-back") }, cmd("retry"))).toBe(
      "plan letta-205 is failed: its gate failed and the verdict is kept (rolled-back); a build that failed its gate is not judged again; release a newer one",
    )
    expect(verbRefusal({ ...basePlan, state: "failed", gate: gate("unchanged") }, cmd("retry"))).toBeUndefined()
    expect(verbRefusal({ ...basePlan, state: "failed" }, cmd("retry"))).toBeUndefined()
  })
})

describe("what each verb leaves", () => {
  it("a why given is said after the act, trimmed; none given says none", () => {
    expect(decideVerb(basePlan, cmd("pause", "  the logs  ")).said).toBe(
      "plan letta-205: paused by alice at 2026-12-01T10:00:00Z: the logs; not judged until `plans resume letta-205`, and it still holds its machines",
    )
    expect(decideVerb(basePlan, cmd("pause", "   ")).said).toBe(
      "plan letta-205: paused by alice at 2026-12-01T10:00:00Z; not judged until `plans resume letta-205`, and it still holds its machines",
    )
  })

  it("resume adds the time paused to what was paused before, and says the passes kept", () => {
    const r = decideVerb({ ...paused, pausedFor: 5_000, gate: gate("", 1) }, cmd("resume"))
    if (r.kind !== "resume") throw new Error(r.kind)
    expect(r.plan.pausedFor).toBe(65_000)
    expect(r.plan.paused).toBeUndefined()
    expect(r.said).toBe(
      "plan letta-205: resumed by alice at 2026-12-01T10:00:00Z; judged again from where it was (1 pass kept)",
    )
    const two = decideVerb({ ...paused, gate: gate("", 2) }, cmd("resume"))
    expect(two.said).toBe(
      "plan letta-205: resumed by alice at 2026-12-01T10:00:00Z; judged again from where it was (2 passes kept)",
    )
    const none = decideVerb(paused, cmd("resume"))
    if (none.kind !== "resume") throw new Error(none.kind)
    expect(none.said).toBe(
      "plan letta-205: resumed by alice at 2026-12-01T10:00:00Z; judged again from where it was (0 passes kept)",
    )
    expect(none.plan.pausedFor).toBe(60_000)
    // A clock behind the pause counts no time paused.
    const behind = decideVerb(paused, cmd("resume", "", at - 120_000))
    if (behind.kind !== "resume") throw new Error(behind.kind)
    expect(behind.plan.pausedFor).toBe(0)
  })

  it("promote moves to the last tier; retry starts again from tier 1, said", () => {
    const p = decideVerb({ ...basePlan, tier: 0 }, cmd("promote"))
    if (p.kind !== "promote") throw new Error(p.kind)
    expect(p.plan.tier).toBe(2)
    expect(p.said).toBe("promoted by alice at 2026-12-01T10:00:00Z")
    const r = decideVerb({ ...basePlan, state: "failed", tier: 2 }, cmd("retry"))
    if (r.kind !== "retry") throw new Error(r.kind)
    expect(r.said).toBe("plan letta-205: retried by alice at 2026-12-01T10:00:00Z; judged again from tier 1")
    expect(r.plan).toMatchObject({
      state: "open",
      tier: 0,
      sent: [],
      note: "retried by alice at 2026-12-01T10:00:00Z; judged again from tier 1",
    })
  })
})

describe("what a retry waits for", () => {
  const failed = { ...basePlan, state: "failed" as const }
  it("another plan of the module in flight; not another module's, nor itself", () => {
    const other = { ...basePlan, id: "letta-206", build: "letta-206" }
    expect(retryBlocked(failed, [other], null)).toBe(
      "plan letta-206 of letta is open: plan letta-205 is judged again only once that plan ends",
    )
    expect(retryBlocked(failed, [{ ...other, module: "grafana" }], null)).toBeUndefined()
    expect(retryBlocked(failed, [failed], null)).toBeUndefined()
  })

  it("a verdict kept for its build", () => {
    expect(retryBlocked(failed, [], { verdict: "failed", plan: "letta-205" })).toBe(
      "a verdict is kept for letta-205 (failed, plan letta-205): a build is judged once",
    )
  })
})

describe("an operator's act as an event", () => {
  it("its reason is the why given, absent when none was", () => {
    expect(verbEvent("plan-paused", at, basePlan, "alice", "the logs", "said")).toMatchObject({
      reason: "the logs",
      note: "said",
    })
    expect(
      "reason" in verbEvent("plan-paused", at, basePlan, "alice", "", "said") &&
        verbEvent("plan-paused", at, basePlan, "alice", "", "said").reason !== undefined,
    ).toBe(false)
  })
})
