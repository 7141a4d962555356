// Promote and abort carried out (issue 10): a person's word is the verdict, kept for the build like a
// judged one — its why names who said it, its judging began when the gate opened (or at the word, for
// a gate never opened) — and a verdict another controller kept already is refused, not acted on twice.
import { describe, expect, it } from "vitest"
import type { Question } from "@mesh-core/core/controller/catalogue"
import type { PlanRecord } from "@mesh-core/core/gate/plan/records"
import { basePlan, ok, run, verb } from "./gate-world.ts"

const verdicts = (r: ReturnType<typeof run>) =>
  r.acts.flatMap((a) =>
    a.q.q === "record-verdict" ? [(a.q as Extract<Question, { q: "record-verdict" }>).verdict] : [],
  )
/** Another controller kept a verdict for the build first, and is acting on it now. */
const keptByAnother = (q: Question): unknown => (q.q === "record-verdict" ? { ok: true, mine: false } : undefined)

describe("promote", () => {
  it("the verdict's judging began when the plan's gate opened, not at the word", () => {
    const r = run([ok, ok, verb("promote", "alice", "hurry")])
    const gateOpened = r.saves.find((s) => s.plan.gate !== undefined)!.plan.gate!.since
    expect(gateOpened).toBe(r.at[0])
    expect(verdicts(r)).toEqual([
      expect.objectContaining({
        verdict: "passed",
        judgingFrom: gateOpened,
        why: "promoted by alice at 1970-01-01T00:00:03Z: hurry, not judged healthy",
      }),
    ])
  })

  it("a plan whose gate never opened is judged from the word itself", () => {
    const r = run([ok, ok, verb("promote", "alice", "hurry")], basePlan, {
      answer: (q) => (q.q === "send-plan" && q.why === "tier" ? { told: [] } : undefined),
    })
    expect(verdicts(r)).toEqual([expect.objectContaining({ verdict: "passed", judgingFrom: r.at[2] })])
  })

  it("the plan says it passed by a person's word and names the machines still to send, or none left", () => {
    const r = run([ok, ok, verb("promote", "alice", "hurry")])
    const note =
      "letta letta-205 promoted by alice at 1970-01-01T00:00:03Z: hurry: its gate passed by a person's word, not judged healthy; the rest are sent (hq-2, hq-3, hq-4, hq-5)"
    expect(r.saves.map((s) => s.plan.note)).toContain(note)
    expect(r.outcomes[0]!.outcome).toMatchObject({ ok: true, code: 0, said: `plan letta-205: ${r.plan.note}` })
    const allSent: PlanRecord = { ...basePlan, tiers: [["hq-1"]], rest: [] }
    const none = run([ok, verb("promote", "alice", "hurry")], allSent)
    expect(none.saves.map((s) => s.plan.note)).toContain(
      "letta letta-205 promoted by alice at 1970-01-01T00:00:02Z: hurry: its gate passed by a person's word, not judged healthy; the rest are sent (none left)",
    )
  })

  it("a verdict kept already by another controller is refused, code 2, and nothing is sent", () => {
    const r = run([ok, verb("promote")], basePlan, { answer: keptByAnother })
    expect(r.outcomes[0]!.outcome).toEqual({
      ok: false,
      code: 2,
      plan: undefined,
      said: "plan letta-205's build has a verdict kept already: it is not promoted",
    })
    expect(r.acts.filter((a) => a.q.q === "send-plan").map((a) => a.step)).toEqual([0])
  })
})

describe("abort", () => {
  it("the verdict's why is the person's word, and the plan said back is the one left", () => {
    const r = run([ok, ok, verb("abort", "bob", "bad")])
    expect(verdicts(r)).toEqual([
      expect.objectContaining({ verdict: "failed", why: "aborted by bob at 1970-01-01T00:00:03Z: bad" }),
    ])
    expect(r.outcomes[0]!.outcome).toMatchObject({
      ok: true,
      code: 0,
      said: "plan letta-205: letta failed its gate in tier 1 on hq-1: aborted by bob at 1970-01-01T00:00:03Z: bad; put back to a71c3d0 (letta-204) on hq-1, in one send per machine",
    })
  })

  it("a verdict kept already by another controller is refused, code 2, and nothing is put back", () => {
    const r = run([ok, verb("abort")], basePlan, { answer: keptByAnother })
    expect(r.outcomes[0]!.outcome).toEqual({
      ok: false,
      code: 2,
      plan: undefined,
      said: "plan letta-205's build has a verdict kept already: it is not aborted",
    })
    expect(r.acts.some((a) => a.q.q === "set-build")).toBe(false)
  })

  it("before anything was sent, the plan rolling back says it puts the previous build back on no machine", () => {
    const r = run([verb("abort", "bob", "bad")], basePlan, {
      answer: (q) => (q.q === "send-plan" ? { told: [] } : undefined),
    })
    const rolling = r.saves.find((s) => s.plan.state === "rolling-back")!.plan
    expect(rolling.note).toBe(
      "letta failed its gate in tier 1 on hq-1: aborted by bob at 1970-01-01T00:00:01Z: bad; putting back a71c3d0 (letta-204) on no machine (none had been sent it)",
    )
    expect(r.said).toContain(`[gate] letta-205: ${rolling.note}`)
  })
})
