// What-if sweeps of the release gate (issue 11): every point of a sweep replayed in one reading of a
// controller's log is what a whole replay under `--set` with that point alone decides (its verdicts
// and rollbacks counted from its acts), and the time to a verdict is from the release as the day's
// script made it, not from anything the sweep computed.
import { readFileSync } from "node:fs"
import { join } from "node:path"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { GateSettingsLine } from "@mesh-core/core/controller/log"
import { replayControllerLog } from "../support/replay-controller.ts"
import { type ControllerFact, freshControllerReader, readControllerNext } from "@mesh-core/core/controller/log"
import { gateSweep, gateSweepEnd, gateSweepFact, gateSweepPoints } from "@mesh-core/core/controller/sweep"
import { releaseDayScript } from "../../examples/release-day.ts"
import { gateSweepOf } from "../support/controller-days.ts"

const lines = readFileSync(join(import.meta.dirname, "../../examples/release-day.facts.jsonl"), "utf8").split("\n")

/** The day's releases, by build, from the script that made the day. */
const releasedAt = new Map(
  releaseDayScript.happenings.flatMap((h) =>
    h.kind === "release" ? [[h.build.build, releaseDayScript.start + h.at] as const] : [],
  ),
)

const sweepOf = (said: ReadonlyArray<string>) => gateSweepOf(lines, said)

/** What a whole replay under these overrides alone decided, counted from its acts. */
const alone = (overrides: GateSettingsLine) => {
  const r = replayControllerLog(lines, overrides)
  if (!r.ok) throw new Error(r.bad.problem)
  const acts = r.day.decisions.flatMap((d) => (d.kind === "act" ? [{ at: d.at, act: d.act }] : []))
  const verdicts = acts.flatMap((a) => (a.act.q === "record-verdict" ? [{ at: a.at, verdict: a.act.verdict }] : []))
  const toVerdict = verdicts.map((v) => v.at - releasedAt.get(v.verdict.build)!).sort((a, b) => a - b)
  return {
    passed: verdicts.filter((v) => v.verdict.verdict === "passed").length,
    failed: verdicts.filter((v) => v.verdict.verdict === "failed").length,
    rollbacks: acts.filter((a) => a.act.q === "set-rollback").length,
    toVerdict: toVerdict.length === 0 ? undefined : { min: toVerdict[0]!, max: toVerdict.at(-1)! },
    inferred: r.day.state.counts.inferred,
  }
}

describe("sweeping the release gate's settings", () => {
  it("each point of one reading is the replay --set gives for it alone", () => {
    const duration = fc.constantFrom("20s", "40s", "1m", "2m", "3m", "5m")
    fc.assert(
      fc.property(
        fc.uniqueArray(duration, { minLength: 1, maxLength: 3 }),
        fc.uniqueArray(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 2 }),
        fc.constantFrom("settle", "bound", "every"),
        (values, passes, name) => {
          const rows = sweepOf([`${name}=${values.join(",")}`, `passes=${passes.join(",")}`])
          expect(rows).toHaveLength(values.length * passes.length)
          rows.forEach((row, i) => {
            const point = { [name]: values[Math.floor(i / passes.length)]!, passes: passes[i % passes.length]! }
            const want = alone(point)
            const f = row.figures
            expect(
              { passed: f.passed, failed: f.failed, rollbacks: f.rollbacks, inferred: f.inferred },
              row.point.label,
            ).toEqual({ passed: want.passed, failed: want.failed, rollbacks: want.rollbacks, inferred: want.inferred })
            expect(f.toVerdict === undefined ? undefined : { min: f.toVerdict.min, max: f.toVerdict.max }).toEqual(
              want.toVerdict,
            )
          })
        },
      ),
      { numRuns: 12 },
    )
  })

  it("under the recorded settings the day is the one told: the crash loop failed and put back, the healthy build passed", () => {
    const [row] = sweepOf(["passes=3"])
    expect(row!.figures).toMatchObject({ passed: 1, failed: 1, rollbacks: 1, rollbackSends: 1, open: 0, inferred: 0 })
    // letta-205 released at 10:16 passes at 10:18:40; letta-204 released at 10:03 fails at its 10m bound, 10:13:20.
    expect(row!.figures.toVerdict).toEqual({ min: 160_000, median: 160_000, max: 620_000 })
  })

  it("what is not a gate setting, or breaks its rule, is refused with why", () => {
    expect(gateSweepPoints(["failingAfter=1m"])).toEqual({
      problem: expect.stringContaining(`no gate setting "failingAfter"`),
    })
    expect(gateSweepPoints(["passes=0,2"])).toEqual({ problem: expect.stringMatching(/^--sweep passes=0,2: /) })
    expect(gateSweepPoints(["settle=soon"])).toEqual({ problem: expect.stringContaining("give a duration") })
    // Whatever its values hold (a colon too), a name the gate lacks is refused naming the gate's four settings.
    expect(gateSweepPoints(["failingAfter=1:30"])).toEqual({
      problem: `--sweep failingAfter=1:30: no gate setting "failingAfter"; the gate's settings are settle, bound, every, passes`,
    })
  })

  it("a point's page is gathered only when a page is asked for, and no point is replayed before the log's header", () => {
    expect(sweepOf(["passes=2,3"]).map((r) => r.page)).toEqual([undefined, undefined])
    const points = gateSweepPoints(["passes=2,3"])
    if ("problem" in points) throw new Error(points.problem)
    const sweep = gateSweep(points)
    let reader = freshControllerReader
    for (const text of lines.slice(0, 40)) {
      const r = readControllerNext(reader, text)
      if (!r.ok) throw new Error(r.bad.problem)
      reader = r.state
      if (r.fact !== undefined) gateSweepFact(sweep, r.fact as ControllerFact)
    }
    expect(gateSweepEnd(sweep)).toEqual([])
  })
})
