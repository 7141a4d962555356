// An operator's verb as the controller's program (gate/operator/operator.ts): what a store or bus that
// does not answer comes to, what the journal says, and what a dry run's abort and retry leave —
// each sentence pinned word for word.
import { describe, expect, it } from "vitest"
import { runPure } from "@mesh-core/core/program"
import type { Question } from "@mesh-core/core/controller/catalogue"
import type { OperatorCommand, PlanRecord, VerbName } from "@mesh-core/core/gate/plan/records"
import { operatorVerb } from "@mesh-core/core/gate/operator/operator"
import { basePlan, settings } from "./gate-world.ts"

const at = Date.parse("2026-12-01T10:00:00Z")
const cmd = (verb: VerbName, why = ""): OperatorCommand => ({ plan: "letta-205", verb, by: "alice", at, why })
const failedPlan: PlanRecord = { ...basePlan, state: "failed" }

const drive = (c: OperatorCommand, plan: PlanRecord, answers: Partial<Record<Question["q"], unknown>> = {}) => {
  const r = runPure(operatorVerb(c, settings), (q: Question) => {
    if (q.q in answers) return answers[q.q]
    switch (q.q) {
      case "lease-holder":
        return { ok: true, value: { mine: true, holder: "hq-1" } }
      case "plan-of":
        return { ok: true, value: plan }
      case "plans-in-flight":
        return { ok: true, value: [] }
      case "verdict-of":
        return { ok: true, value: null }
      case "now":
        return at
      default:
        return { ok: true }
    }
  })
  return { ...r, kinds: r.exchanges.map((e) => e.question.q) }
}

describe("a verb the store does not answer for", () => {
  it("a plan that cannot be read, or kept, is code 3 with the store's words, said in the journal as refused", () => {
    const unread = drive(cmd("pause"), basePlan, { "plan-of": { ok: false, why: "KV down" } })
    expect(unread.result).toEqual({
      ok: false,
      said: "plan letta-205 cannot be read, so nothing is done: KV down",
      plan: undefined,
      code: 3,
    })
    expect(unread.said).toEqual([
      "[plans] pause letta-205 by alice: refused: plan letta-205 cannot be read, so nothing is done: KV down",
    ])
    const unkept = drive(cmd("pause"), basePlan, { "save-plan": { ok: false, why: "KV down" } })
    expect(unkept.result).toMatchObject({
      ok: false,
      code: 3,
      said: "plan letta-205 could not be kept, so it is not paused: KV down",
    })
    expect(unkept.kinds).not.toContain("publish")
  })

  it("a retry: plans in flight, the kept verdict, the registration and the reopening each said when they fail", () => {
    const said = (answers: Partial<Record<Question["q"], unknown>>) => drive(cmd("retry"), failedPlan, answers).result
    expect(said({ "plans-in-flight": { ok: false, why: "KV down" } })).toMatchObject({
      code: 3,
      said: "the plans in flight cannot be read, so plan letta-205 is not judged again: KV down",
    })
    expect(said({ "verdict-of": { ok: false, why: "PG down" } })).toMatchObject({
      code: 3,
      said: "whether letta-205 was judged cannot be read, so it is not judged again: PG down",
    })
    expect(said({ "set-build": { ok: false, why: "KV down" } })).toMatchObject({
      code: 3,
      said: "letta-205 could not be registered again, so plan letta-205 is not judged again: KV down",
    })
    expect(said({ "reopen-plan": { ok: false, why: "KV down" } })).toMatchObject({
      code: 3,
      said: "plan letta-205 could not be opened again: KV down",
    })
    expect(
      said({ "verdict-of": { ok: true, value: { keptAt: 0, verdict: { verdict: "failed", plan: "letta-205" } } } }),
    ).toMatchObject({
      code: 2,
      said: "a verdict is kept for letta-205 (failed, plan letta-205): a build is judged once",
    })
  })
})

describe("a verb carried out", () => {
  it("said in the journal and on the bus; a bus that cannot be told is said, and the act stands", () => {
    const done = drive(cmd("pause", "the logs"), basePlan)
    expect(done.result).toMatchObject({ ok: true, code: 0 })
    expect(done.said).toEqual([`[plans] pause letta-205 by alice: ${done.result.said}`])
    const mute = drive(cmd("pause"), basePlan, { publish: { ok: false, why: "NATS down" } })
    expect(mute.result.ok).toBe(true)
    expect(mute.said[0]).toBe("[plans] letta-205: plan-paused could NOT be said on the bus: NATS down")
  })

  it("a retry registers the build again before it reopens the plan; a dry run's retry registers nothing", () => {
    expect(drive(cmd("retry"), failedPlan).kinds).toEqual([
      "lease-holder",
      "plan-of",
      "plans-in-flight",
      "verdict-of",
      "set-build",
      "reopen-plan",
      "publish",
    ])
    expect(drive(cmd("retry"), { ...failedPlan, dryRun: true }).kinds).toEqual([
      "lease-holder",
      "plan-of",
      "plans-in-flight",
      "verdict-of",
      "reopen-plan",
      "publish",
    ])
  })

  it("a dry run aborted ends failed, putting nothing back", () => {
    const r = drive(cmd("abort"), { ...basePlan, dryRun: true })
    const note = "dry run aborted by alice at 2026-12-01T10:00:00Z; nothing was registered, so nothing is put back"
    expect(r.result).toMatchObject({
      ok: true,
      code: 0,
      said: `plan letta-205: ${note}`,
      plan: { state: "failed", note },
    })
    expect(r.kinds).not.toContain("send-plan")
    expect(r.kinds).not.toContain("set-build")
  })

  it("the reply names the plan only when one was left", () => {
    expect(drive(cmd("resume"), basePlan).result).toEqual({ ok: false, code: 2, said: expect.any(String) })
    expect(drive(cmd("pause"), basePlan).result).toMatchObject({ ok: true, code: 0, plan: { id: basePlan.id } })
  })
})
