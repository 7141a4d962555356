// What `simulate` says at the end of a controller's day (controller/render.ts): the tally of a
// replay counted against the day's own acts on any recorded day, and the summary's words pinned on
// the release day the README tells (letta-204's crash loop failed and put back, letta-205 passed in
// 2m40s; under passes=5, 80s later) and on tallies made by hand for each singular and plural.
import { readFileSync } from "node:fs"
import { join } from "node:path"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { Question } from "@mesh-core/core/controller/catalogue"
import type { PlanRecord } from "@mesh-core/core/gate/plan/records"
import {
  type ControllerTally,
  decisionJson,
  freshTally,
  summaryJson,
  summaryLines,
  tallyProgram,
} from "@mesh-core/core/controller/render"
import { type ControllerReplay, startControllerReplay } from "@mesh-core/core/controller/replay"
import { replayControllerLog } from "../support/replay-controller.ts"
import type { GateSettingsLine } from "@mesh-core/core/controller/log"
import { gateSettingsOf } from "@mesh-core/core/controller/log"
import { recordDay } from "../../examples/controller-world.ts"
import { controllerDay } from "../support/controller-days.ts"

const releaseDay = readFileSync(join(import.meta.dirname, "../../examples/release-day.facts.jsonl"), "utf8").split("\n")

const replayed = (lines: ReadonlyArray<string>, set: GateSettingsLine = {}) => {
  const r = replayControllerLog(lines, set)
  if (!r.ok) throw new Error(r.bad.problem)
  const t = freshTally()
  for (const p of r.day.programs) tallyProgram(t, p)
  return { day: r.day, t }
}

describe("the tally of a replayed day", () => {
  it("counts each act once, by its kind, as the day's acts say: verdicts, rollbacks, sends by why, events, conditions, writes, inferred acts, the plans as last saved", () => {
    fc.assert(
      fc.property(controllerDay, fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }), (script, passes) => {
        const { day, t } = replayed(recordDay(script).lines, passes === undefined ? {} : { passes })
        const acts = day.decisions.flatMap((d) => (d.kind === "act" ? [{ q: d.act, recorded: d.recorded }] : []))
        const of = <K extends Question["q"]>(k: K) =>
          acts.flatMap((a) => (a.q.q === k ? [a.q as Extract<Question, { q: K }>] : []))
        const countBy = (xs: ReadonlyArray<string>) => {
          const m = new Map<string, number>()
          for (const x of xs) m.set(x, (m.get(x) ?? 0) + 1)
          return m
        }
        const sends = countBy(of("send-plan").map((s) => s.why))
        const last = new Map<string, PlanRecord>()
        for (const s of of("save-plan")) last.set(s.plan.id, s.plan)
        expect(t).toEqual({
          said: day.decisions.filter((d) => d.kind === "said").length,
          judgings: t.judgings,
          passed: of("record-verdict").filter((v) => v.verdict.verdict === "passed").length,
          failed: of("record-verdict").filter((v) => v.verdict.verdict === "failed").length,
          rollbacks: countBy(of("set-rollback").map((r) => r.rollback)),
          sends: {
            tier: sends.get("tier") ?? 0,
            rest: sends.get("rest") ?? 0,
            rollback: sends.get("rollback") ?? 0,
            "user-list": sends.get("user-list") ?? 0,
          },
          events: of("publish").length,
          raised: of("raise-condition").length,
          cleared: of("clear-condition").length,
          standings: of("write-standings").reduce((n, w) => n + w.writes.length, 0),
          reports: of("write-report").length,
          statements: of("write-statement").length,
          inferredActs: acts.filter((a) => !a.recorded).length,
          plans: last,
        } satisfies ControllerTally)
        // A judging is a line said: never more of them than lines.
        expect(t.judgings).toBeLessThanOrEqual(t.said)
      }),
      { numRuns: 30 },
    )
  })
})

describe("the summary of the release day", () => {
  const letta204 =
    "    letta-letta-204 (letta letta-204): failed; gate on hq-3: FAILED, a71c3d0 → 5e1f0c2, after 10m20s: not healthy within 10m0s of its apply: " +
    "raised since it was sent: module.letta.hq-3.unhealthy — letta on hq-3 is stated unhealthy twice in a row: letta-app: exited with code 137, restarting (crash loop); rolled-back"

  it("as recorded: every count, each plan's line, the settings, and that nothing was inferred", () => {
    const { day, t } = replayed(releaseDay)
    expect(summaryLines(t, day.state)).toEqual([
      "",
      "summary: 443 facts, 92 programs run, 2026-11-20T10:00:00Z to 2026-11-20T10:24:00Z (24m0s); 1 restart (started lines)",
      "  gate: 20 judgings; verdicts: 1 passed, 1 failed; rollbacks: 1 rolled-back; sends: 1 rest, 1 rollback; 3 events said",
      "  conditions: 3 raised, 3 cleared; standings: 2 written; reports: 4 kept; statements: 48 kept; 27 lines said",
      "  plans:",
      letta204,
      "    letta-letta-205 (letta letta-205): passed; gate on hq-3: passed, a71c3d0 → 9c4e1b7, after 2m40s: healthy 3 times over 2m40s",
      "  settings at the end: the gate: settle 2m0s, bound 10m0s, 3 passes 40s apart",
      "  replay: every question found its recorded answer and every act is the one recorded (0 inferred, 0 differed, 0 unasked)",
    ])
  })

  it("under passes=5: letta-205 passes 80s later, and the what-if says how much was inferred", () => {
    const { day, t } = replayed(releaseDay, { passes: 5 })
    const lines = summaryLines(t, day.state)
    expect(lines).toContain(
      "    letta-letta-205 (letta letta-205): passed; gate on hq-3: passed, a71c3d0 → 9c4e1b7, after 4m0s: healthy 5 times over 4m0s",
    )
    expect(lines).toContain("  settings at the end: the gate: settle 2m0s, bound 10m0s, 5 passes 40s apart")
    expect(lines.at(-1)).toBe(
      "  what-if: 14 answers were not in the recording and were inferred (8 of them to acts); 1 act differs from the one recorded; 6 recorded answers were to questions not asked this time",
    )
  })

  it("for scripts: the same figures as one JSON object, times as RFC 3339, each plan's state, line and note", () => {
    const { day, t } = replayed(releaseDay)
    const s = JSON.parse(summaryJson(t, day.state)).summary
    expect(s).toMatchObject({
      facts: 443,
      programs: 92,
      starts: 1,
      inferred: 0,
      differed: 0,
      unasked: 0,
      from: "2026-11-20T10:00:00.000Z",
      to: "2026-11-20T10:24:00.000Z",
      said: 27,
      judgings: 20,
      verdicts: { passed: 1, failed: 1 },
      rollbacks: { "rolled-back": 1 },
      sends: { tier: 0, rest: 1, rollback: 1, "user-list": 0 },
      events: 3,
      conditions: { raised: 3, cleared: 3 },
      standings: 2,
      reports: 4,
      statements: 48,
      settings: { settle: 120_000, bound: 600_000, every: 40_000, passes: 3 },
    })
    expect(s.plans["letta-letta-204"]).toEqual({
      state: "failed",
      line: letta204.trim(),
      note: "letta failed its gate on hq-3: not healthy within 10m0s of its apply: raised since it was sent: module.letta.hq-3.unhealthy — letta on hq-3 is stated unhealthy twice in a row: letta-app: exited with code 137, restarting (crash loop); put back to a71c3d0 (letta-203) on hq-3, in one send per machine",
    })
    expect(s.plans["letta-letta-205"]).toMatchObject({
      state: "passed",
      note: "letta letta-205 passed its gate and every machine of the plan has it (hq-3, hq-4)",
    })
  })

  it("each decision for --json, its time as RFC 3339", () => {
    const { day } = replayed(releaseDay)
    const first = day.decisions.find((d) => d.kind === "act")!
    expect(JSON.parse(decisionJson(first))).toEqual({
      at: "2026-11-20T10:00:10.000Z",
      input: "statement",
      kind: "act",
      answer: { ok: true },
      recorded: true,
      act: {
        q: "write-statement",
        statement: {
          machine: "hq-3",
          at: 1795168810000,
          resources: [{ resource: "letta-app", module: "letta", state: "healthy" }],
        },
        streaks: {},
      },
    })
  })
})

describe("the summary's words for one and for many", () => {
  const empty = startControllerReplay(gateSettingsOf({}))
  const tally = (over: Partial<ControllerTally>): ControllerTally => ({ ...freshTally(), ...over })
  const state = (
    over: Partial<ControllerReplay["counts"]>,
    span: ControllerReplay["span"] = { first: undefined, last: undefined },
  ): ControllerReplay => ({ ...empty, counts: { ...empty.counts, ...over }, span })

  it("a day of no facts says so, names no restart, no rollback and no tier sends, and no plans", () => {
    const lines = summaryLines(freshTally(), state({}))
    expect(lines).toEqual([
      "",
      "summary: 0 facts, 0 programs run, no facts",
      "  gate: 0 judgings; verdicts: 0 passed, 0 failed; rollbacks: none; sends: 0 rest, 0 rollback; 0 events said",
      "  conditions: 0 raised, 0 cleared; standings: 0 written; reports: 0 kept; statements: 0 kept; 0 lines said",
      "  settings at the end: the gate: settle 2m0s, bound 10m0s, 3 passes 40s apart",
      "  replay: every question found its recorded answer and every act is the one recorded (0 inferred, 0 differed, 0 unasked)",
    ])
    expect(JSON.parse(summaryJson(freshTally(), state({}))).summary).toMatchObject({ from: null, to: null, plans: {} })
  })

  it("one of each is said in the singular, many in the plural; tier sends named when there were any; rollbacks by outcome", () => {
    const at = Date.parse("2026-11-20T10:00:00Z")
    const one = summaryLines(
      tally({
        judgings: 1,
        events: 1,
        said: 1,
        sends: { tier: 2, rest: 0, rollback: 0, "user-list": 0 },
        rollbacks: new Map([
          ["rolled-back", 1],
          ["not-rolled-back", 2],
        ]),
      }),
      state({ facts: 1, programs: 1, starts: 2 }, { first: at, last: at + 61_000 }),
    )
    expect(one.slice(1, 3)).toEqual([
      "summary: 1 fact, 1 program run, 2026-11-20T10:00:00Z to 2026-11-20T10:01:01Z (1m1s); 2 restarts (started lines)",
      "  gate: 1 judging; verdicts: 0 passed, 0 failed; rollbacks: 1 rolled-back, 2 not-rolled-back; sends: 2 tier, 0 rest, 0 rollback; 1 event said",
    ])
    expect(one[3]).toBe(
      "  conditions: 0 raised, 0 cleared; standings: 0 written; reports: 0 kept; statements: 0 kept; 1 line said",
    )
  })

  it("a what-if names each count, and any one of them not zero is a what-if", () => {
    for (const c of [{ inferred: 1 }, { differed: 1 }, { unasked: 1 }]) {
      expect(summaryLines(freshTally(), state(c)).at(-1), JSON.stringify(c)).toMatch(/^ {2}what-if: /)
    }
    expect(summaryLines(tally({ inferredActs: 1 }), state({ inferred: 2, differed: 3, unasked: 4 })).at(-1)).toBe(
      "  what-if: 2 answers were not in the recording and were inferred (1 of them to acts); 3 acts differ from the one recorded; 4 recorded answers were to questions not asked this time",
    )
  })
})
