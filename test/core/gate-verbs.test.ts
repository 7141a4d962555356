// Operators steer a release (issue 10): pause, resume, promote, abort, retry — each decided over the
// plan as read, refused where it makes no sense or where this controller does not hold the lease,
// and otherwise carried out as after a pass or a failure. Checked against rules stated on their own.
import { Schema } from "effect"
import fc from "fast-check"
import { ReleaseEventBody } from "@mesh-core/core/gate/plan/events"
import { describe, expect, it } from "vitest"
import { runPure } from "@mesh-core/core/program"
import type { GateRecord, OperatorCommand, PlanRecord, VerbName } from "@mesh-core/core/gate/plan/records"
import { operatorVerb } from "@mesh-core/core/gate/operator/operator"
import { decideVerb } from "@mesh-core/core/gate/operator/verbs"
import { basePlan, everyOf, ok, run, settings, verb } from "./gate-world.ts"
import { VerbReply } from "@mesh-core/core/gate/plan/records"

const verbs: ReadonlyArray<VerbName> = ["pause", "resume", "promote", "abort", "retry"]
const gate = (rollback: string): GateRecord => ({
  component: "",
  machines: ["hq-1"],
  from: "a71c3d09e4",
  to: "5e1f0c2a9b",
  since: 0,
  passes: 1,
  last: "",
  failing: [],
  verdict: rollback === "" ? "" : "failed",
  why: "",
  took: "",
  carried: [],
  rollback,
})

const anyPlan: fc.Arbitrary<PlanRecord> = fc
  .record({
    state: fc.constantFrom("open", "sending", "passed", "rolling-back", "failed"),
    paused: fc.boolean(),
    dryRun: fc.boolean(),
    rollback: fc.constantFrom(undefined, "", "unchanged", "rolled-back", "not-rolled-back"),
  })
  .map(
    ({ state, paused, dryRun, rollback }): PlanRecord => ({
      ...basePlan,
      state: state as PlanRecord["state"],
      ...(paused && state === "open" ? { paused: { by: "bob", at: 10, why: "looking" } } : {}),
      ...(dryRun ? { dryRun } : {}),
      ...(rollback === undefined ? {} : { gate: gate(rollback) }),
    }),
  )

/** The rule, as a table a person would write: when each verb makes sense. */
const allowed = (v: VerbName, p: PlanRecord): boolean => {
  switch (v) {
    case "pause":
      return p.state === "open" && p.paused === undefined
    case "resume":
      return p.paused !== undefined
    case "promote":
      return p.state === "open" && p.dryRun !== true
    case "abort":
      return p.state === "open"
    case "retry":
      return p.state === "failed" && (p.gate === undefined || p.gate.rollback === "unchanged")
  }
}

const command = (v: VerbName, at = 50_000): OperatorCommand => ({
  verb: v,
  plan: basePlan.id,
  by: "alice",
  at,
  why: "the dashboards look wrong",
})

describe("a verb is carried out only where it makes sense", () => {
  it("decided as the table says, for any plan; a refusal names the plan and asks for no act", () => {
    fc.assert(
      fc.property(anyPlan, fc.constantFrom(...verbs), (p, v) => {
        const d = decideVerb(p, command(v))
        expect(d.kind === "refused").toBe(!allowed(v, p))
        if (d.kind === "refused") {
          expect(d.said).toContain(p.id)
          const ran = runPure(operatorVerb(command(v), settings), (q) =>
            q.q === "lease-holder"
              ? { ok: true, value: { mine: true, holder: "ctl-a" } }
              : q.q === "plan-of"
                ? { ok: true, value: p }
                : { ok: true },
          )
          expect(ran.exchanges.map((e) => e.question.q)).toEqual(["lease-holder", "plan-of"])
          expect(ran.result).toEqual({ ok: false, said: d.said, plan: undefined, code: 2 })
        } else {
          // The verb is in the plan's history, by whom and when.
          expect(
            d.plan.history?.newest
              .concat(d.plan.history.first)
              .some((e) => e.kind === "verb" && e.verb === v && e.by === "alice"),
          ).toBe(true)
        }
      }),
      { numRuns: 400 },
    )
  })

  it("says why in a person's words: promoting a decided plan, resuming one not paused, aborting a passed one", () => {
    const said = (v: VerbName, p: PlanRecord) => (decideVerb(p, command(v)) as { said: string }).said
    expect(said("promote", { ...basePlan, state: "passed" })).toBe(
      "plan letta-205 is passed: its gate passed already, and there is nothing to promote",
    )
    expect(said("resume", basePlan)).toBe("plan letta-205 is open and not paused: there is nothing to resume")
    expect(said("abort", { ...basePlan, state: "passed" })).toBe(
      "plan letta-205 is passed: its gate passed, and a passed plan is not aborted; to put letta back, release its previous build",
    )
    expect(said("promote", { ...basePlan, state: "failed", gate: gate("unchanged") })).toContain(
      "`plans retry letta-205` judges it again",
    )
    expect(decideVerb(null, command("pause"))).toEqual({
      kind: "refused",
      said: "no plan letta-205: `plans` lists them",
    })
  })

  it("a controller that does not hold the lease refuses every verb, naming the holder, and reads nothing else", async () => {
    for (const v of verbs) {
      const r = run([ok, verb(v)], basePlan, { lease: { mine: false, holder: "ctl-b" } })
      expect(r.outcomes[0]!.outcome).toEqual({
        ok: false,
        said: "this controller does not hold the lease; ctl-b does: give the verb to ctl-b",
        plan: undefined,
        code: 2,
      })
      expect(r.asked.filter((a) => a.step === 1).map((a) => a.q.q)).toEqual(["lease-holder"])
    }
    // The reply the CLI decodes (VerbReply), and what cannot be read is exit 3, not a refusal.
    expect(Schema.decodeUnknownSync(VerbReply)(run([verb("pause")]).outcomes[0]!.outcome)).toMatchObject({
      ok: true,
      code: 0,
    })
    const away = runPure(operatorVerb(command("pause"), settings), (q) =>
      q.q === "lease-holder" ? { ok: false, why: "the bucket is away" } : { ok: true },
    )
    expect(away.result).toMatchObject({
      ok: false,
      code: 3,
      said: "who holds the controller lease cannot be read, so nothing is done: the bucket is away",
    })
    const none = run([verb("pause")], basePlan, { lease: { mine: false, holder: null } })
    expect(none.outcomes[0]!.outcome.said).toContain("no controller holds the lease now")
  })
})

describe("pause and resume", () => {
  it("a paused plan is not judged or sent on any tick until resumed; resumed, it goes on from where it was and its paused time is not held against its bound", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 15 }), (before, pausedTicks) => {
        const steps = [
          ...Array(before).fill(ok),
          verb("pause"),
          ...Array(pausedTicks).fill(ok),
          verb("resume"),
          ...Array(12).fill(ok),
        ]
        const r = run(steps)
        const pauseAt = before
        const resumeAt = before + 1 + pausedTicks
        // Nothing asked of the world or acted on by the gate while paused, beyond reading what is in flight.
        const during = r.asked.filter((a) => a.step > pauseAt && a.step < resumeAt).map((a) => a.q.q)
        expect(
          during.filter(
            (q) => !["plans-in-flight", "now", "latest-verdicts", "witness-verdicts", "probe-conditions"].includes(q),
          ),
        ).toEqual([])
        const atPause = r.saves.filter((s) => s.step === pauseAt).at(-1)!.plan
        const atResume = r.saves.filter((s) => s.step === resumeAt).at(-1)!.plan
        expect(atResume.gate).toEqual(atPause.gate)
        expect(atResume.paused).toBeUndefined()
        // However long it was paused, it passes: the pause is not counted against its 10s bound.
        expect(r.plan.state).toBe("passed")
        expect(r.verdicts.map((v) => v.verdict)).toEqual(["passed"])
      }),
      { numRuns: 60 },
    )
  })

  it("pause and resume are said on the bus as events, by whom and why", () => {
    const r = run([ok, verb("pause", "alice", "the dashboards look wrong"), verb("resume", "bob")])
    const events = r.acts.filter((a) => a.q.q === "publish").map((a) => (a.q as { body: Record<string, unknown> }).body)
    expect(events.map((e) => [e.event, e.by, e.state])).toEqual([
      ["plan-paused", "alice", "open"],
      ["plan-resumed", "bob", "open"],
    ])
    expect(events[0]!.reason).toBe("the dashboards look wrong")
    // What a bridge decodes them with: every act's body is a release event's.
    for (const e of events) expect(Schema.decodeUnknownExit(ReleaseEventBody)(e)._tag).toBe("Success")
    expect(r.outcomes[0]!.outcome.said).toBe(
      "plan letta-205: paused by alice at 1970-01-01T00:00:02Z: the dashboards look wrong; not judged until `plans resume letta-205`, and it still holds its machines",
    )
  })
})

describe("promote", () => {
  it("passes a plan whose gate is still settling, kept as a person's act, and sends every machine not yet sent (later tiers and the rest)", () => {
    const r = run([ok, ok, verb("promote", "alice", "hotfix"), ok])
    expect(r.outcomes[0]!.outcome.ok).toBe(true)
    expect(r.verdicts).toHaveLength(1)
    expect(r.verdicts[0]).toMatchObject({ verdict: "passed", plan: "letta-205" })
    expect(r.verdicts[0]!.why).toContain("promoted by alice at 1970-01-01T00:00:03Z: hotfix, not judged healthy")
    const rest = r.acts
      .filter((a) => a.q.q === "send-plan" && (a.q as { why: string }).why === "rest")
      .map((a) => (a.q as { machines: ReadonlyArray<string> }).machines)
    expect([...rest[0]!].sort()).toEqual(["hq-2", "hq-3", "hq-4", "hq-5"])
    expect(r.plan.state).toBe("passed")
    expect(r.plan.sent).toEqual(expect.arrayContaining(everyOf(r.plan)))
    expect(r.acts.some((a) => a.q.q === "publish" && (a.q as { event: string }).event === "plan-promoted")).toBe(true)
  })
})

describe("abort", () => {
  it("fails the plan now and puts back every machine it reached, and only those, as after a failure", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 8 }), (before) => {
        const r = run([...Array(before).fill(ok), verb("abort", "alice", "wrong build"), ok, ok])
        const reached = new Set(
          r.acts
            .filter((a) => a.q.q === "send-plan" && (a.q as { why: string }).why === "tier")
            .flatMap((a) => (a.q as { machines: ReadonlyArray<string> }).machines),
        )
        const back = r.acts
          .filter((a) => a.q.q === "send-plan" && (a.q as { why: string }).why === "rollback")
          .flatMap((a) => (a.q as { machines: ReadonlyArray<string> }).machines)
        if (r.outcomes[0]!.outcome.ok) {
          expect(new Set(back)).toEqual(reached)
          expect(r.plan.state).toBe("failed")
          expect(r.verdicts.map((v) => [v.verdict, v.why.startsWith("aborted by alice")])).toEqual([["failed", true]])
        } else {
          // Its gate had passed before the abort came: refused, nothing put back.
          expect(r.outcomes[0]!.outcome.said).toContain("a passed plan is not aborted")
          expect(back).toEqual([])
        }
      }),
      { numRuns: 30 },
    )
  })
})

describe("abort before anything was sent", () => {
  it("puts the registered build back, sends nothing, and says no machine had it", () => {
    const r = run([verb("abort", "alice", "wrong build")])
    expect(r.plan.state).toBe("failed")
    expect(r.acts.some((a) => a.q.q === "send-plan")).toBe(false)
    expect(r.acts.filter((a) => a.q.q === "set-build").map((a) => a.q.q === "set-build" && a.q.build)).toEqual([
      "letta-204",
    ])
    expect(r.plan.note).toBe(
      "letta failed its gate in tier 1 on hq-1: aborted by alice at 1970-01-01T00:00:01Z: wrong build; put back to a71c3d0 (letta-204) in the records; no machine had been sent it",
    )
  })
})

describe("retry", () => {
  it("a plan left unchanged by its failure is registered again, opened from tier 1, and judged again", () => {
    const unchanged: PlanRecord = {
      ...basePlan,
      state: "failed",
      sent: ["hq-1"],
      gate: gate("unchanged"),
      note: "left as it was",
    }
    const r = run([verb("retry", "alice"), ok, ok, ok], unchanged)
    expect(r.outcomes[0]!.outcome.ok).toBe(true)
    const first = r.acts.filter((a) => a.step === 0).map((a) => a.q.q)
    expect(first).toEqual(["set-build", "reopen-plan", "publish"])
    const reopened = r.saves[0]!.plan
    expect(reopened).toMatchObject({ state: "open", tier: 0, sent: [], tries: 0 })
    expect(reopened.gate).toBeUndefined()
    expect(r.acts.some((a) => a.step === 1 && a.q.q === "send-plan")).toBe(true)
    // Judged again in tier 1, and passed there this time.
    const judgings = (r.plan.history?.first ?? []).filter((e) => e.kind === "judging")
    expect(judgings.map((e) => e.kind === "judging" && [e.tier, e.word, e.decided])).toEqual([
      [0, "healthy", undefined],
      [0, "healthy", "passed"],
    ])
    expect(r.plan.tier).toBe(1)
  })

  it("waits while another plan of the module is in flight, or a verdict is kept for the build", () => {
    const unchanged: PlanRecord = { ...basePlan, state: "failed", gate: gate("unchanged") }
    const other: PlanRecord = { ...basePlan, id: "letta-206", build: "letta-206" }
    const ran = runPure(operatorVerb(command("retry"), settings), (q) =>
      q.q === "lease-holder"
        ? { ok: true, value: { mine: true, holder: "ctl-a" } }
        : q.q === "plan-of"
          ? { ok: true, value: unchanged }
          : q.q === "plans-in-flight"
            ? { ok: true, value: [other] }
            : q.q === "verdict-of"
              ? { ok: true, value: null }
              : { ok: true },
    )
    expect(ran.result.said).toBe(
      "plan letta-206 of letta is open: plan letta-205 is judged again only once that plan ends",
    )
    expect(ran.exchanges.some((e) => e.question.q === "set-build" || e.question.q === "reopen-plan")).toBe(false)
  })
})
