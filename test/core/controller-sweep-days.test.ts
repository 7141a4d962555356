// The gate's sweep over any recorded controller day (issue 11): each point's figures are what a whole
// replay under that point alone did, counted here from its acts — verdicts, rollbacks and their sends,
// release to verdict from the day's own script, and the plans it left open — and a bad point is
// refused with --set's own words under --sweep's name.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { GateSettingsLine } from "@mesh-core/core/controller/log"
import { replayControllerLog } from "../support/replay-controller.ts"
import type { Question } from "@mesh-core/core/controller/catalogue"
import type { PlanRecord } from "@mesh-core/core/gate/plan/records"
import { gateOverridesOf, gateSweepPoints } from "@mesh-core/core/controller/sweep"
import { type DayScript, recordDay } from "../../examples/controller-world.ts"
import { controllerDay, gateSweepOf } from "../support/controller-days.ts"

const sweepOf = gateSweepOf

/** The figures of a whole replay under these overrides, from its acts and the day's script. */
const model = (script: DayScript, lines: ReadonlyArray<string>, overrides: GateSettingsLine) => {
  const r = replayControllerLog(lines, overrides)
  if (!r.ok) throw new Error(r.bad.problem)
  const acts = r.day.decisions.flatMap((d) => (d.kind === "act" ? [{ at: d.at, q: d.act }] : []))
  const of = <K extends Question["q"]>(k: K) =>
    acts.flatMap((a) => (a.q.q === k ? [{ at: a.at, q: a.q as Extract<Question, { q: K }> }] : []))
  const released = new Map(
    script.happenings.flatMap((h) => (h.kind === "release" ? [[h.build.build, script.start + h.at] as const] : [])),
  )
  const times = of("record-verdict")
    .map((v) => v.at - released.get(v.q.verdict.build)!)
    .sort((a, b) => a - b)
  const last = new Map<string, PlanRecord>()
  for (const s of of("save-plan")) last.set(s.q.plan.id, s.q.plan)
  return {
    passed: of("record-verdict").filter((v) => v.q.verdict.verdict === "passed").length,
    failed: of("record-verdict").filter((v) => v.q.verdict.verdict === "failed").length,
    rollbacks: of("set-rollback").length,
    rollbackSends: of("send-plan").filter((s) => s.q.why === "rollback").length,
    toVerdict:
      times.length === 0
        ? undefined
        : { min: times[0]!, median: times[Math.floor((times.length - 1) / 2)]!, max: times.at(-1)! },
    open: [...last.values()].filter((p) => p.state === "open").length,
  }
}

describe("a sweep over any recorded controller day", () => {
  it("each point's figures are the whole replay's under that point: verdicts, rollbacks, release to verdict, plans left open", () => {
    let open = 0
    let none = 0
    fc.assert(
      fc.property(
        controllerDay,
        fc.uniqueArray(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 2 }),
        (script, passes) => {
          const lines = recordDay(script).lines
          const rows = sweepOf(lines, [`passes=${passes.join(",")}`])
          rows.forEach((row, i) => {
            const want = model(script, lines, { passes: passes[i]! })
            const f = row.figures
            expect(
              {
                passed: f.passed,
                failed: f.failed,
                rollbacks: f.rollbacks,
                rollbackSends: f.rollbackSends,
                toVerdict: f.toVerdict,
                open: f.open,
              },
              row.point.label,
            ).toEqual(want)
            open += want.open
            if (want.toVerdict === undefined) none += 1
          })
        },
      ),
      { numRuns: 40 },
    )
    // The days drawn had plans left open and points with no verdict at all, so both figures were tested.
    expect(open).toBeGreaterThan(0)
    expect(none).toBeGreaterThan(0)
  })
})

describe("a sweep's points", () => {
  it("a bad value is refused with --set's words, named as the --sweep item it came from", () => {
    expect(gateSweepPoints(["passes=0,2"])).toEqual({
      problem: "--sweep passes=0,2: passes is a whole number from 1 to 999999",
    })
    expect(gateSweepPoints(["settle=soon"])).toEqual({
      problem: "--sweep settle=soon: give a duration of at most 596h, as in settle=2m",
    })
    expect(gateSweepPoints(["failingAfter=1m"])).toEqual({
      problem:
        '--sweep failingAfter=1m: no gate setting "failingAfter"; the gate\'s settings are settle, bound, every, passes',
    })
  })

  it("passes is a count and a duration is kept as said, as the log's settings line holds them", () => {
    const points = gateSweepPoints(["passes=2,3", "bound=1m"])
    if ("problem" in points) throw new Error(points.problem)
    expect(points.map(gateOverridesOf)).toEqual([
      { passes: 2, bound: "1m" },
      { passes: 3, bound: "1m" },
    ])
  })
})
