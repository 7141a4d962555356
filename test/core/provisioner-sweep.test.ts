// What-if sweeps (issue 11): every point of a sweep replayed in one reading is the replay `--set`
// gives for that point alone, and the figures move the way the rule says they must: a longer
// failingAfter never announces a run sooner, never leaves a failing consumer unannounced for less,
// and never announces more.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { Decision } from "@mesh-core/core/provisioner/replay"
import type { Settings } from "@mesh-core/core/provisioner/model"
import {
  providerSweepPoints,
  runsGatherer,
  sweepEnd,
  sweepFact,
  sweepFigures,
  sweepJson,
  sweepReplay,
  sweepReport,
} from "@mesh-core/core/provisioner/sweep"
import { sweepPoints } from "@mesh-core/core/sweep"
import { decisionsAlone, factsOf } from "../support/provider-facts.ts"
import { day, live, passwords, settings } from "../support/days.ts"

const points = (said: ReadonlyArray<string>) => {
  const p = providerSweepPoints(said)
  if ("problem" in p) throw new Error(p.problem)
  return p
}

const durations = ["0s", "10s", "30s", "1m", "5m", "10m", "20m"]
const ms: Record<string, number> = {
  "0s": 0,
  "10s": 10_000,
  "30s": 30_000,
  "1m": 60_000,
  "5m": 300_000,
  "10m": 600_000,
  "15m": 900_000,
  "20m": 1_200_000,
}

describe("sweeps", () => {
  it("each point of a sweep read once is what a replay under that point's settings alone gives", () => {
    fc.assert(
      fc.property(
        day,
        settings,
        passwords,
        fc.subarray(durations, { minLength: 1 }),
        fc.subarray(["10s", "1m", "15m"], { minLength: 1 }),
        (scripts, s, pw, fa, sa) => {
          const facts = factsOf(live(scripts, s, pw).facts, s)
          const grid = points([`failingAfter=${fa.join(",")}`, `sayAgainEvery=${sa.join(",")}`])
          expect(grid.length).toBe(fa.length * sa.length)
          const sweep = sweepReplay(grid)
          for (const f of facts) sweepFact(sweep, f)
          const rows = sweepEnd(sweep)
          rows.forEach((row, i) => {
            const g = runsGatherer()
            for (const d of decisionsAlone(facts, {
              failingAfter: ms[fa[Math.floor(i / sa.length)]!]!,
              sayAgainEvery: ms[sa[i % sa.length]!]!,
            }))
              g.add(d)
            expect(row.day).toEqual(g.result())
          })
        },
      ),
      { numRuns: 60 },
    )
  })

  it("a longer failingAfter never announces a run sooner, never leaves failing consumers unannounced for less, never announces more", () => {
    fc.assert(
      fc.property(day, settings, passwords, fc.subarray(durations, { minLength: 2 }), (scripts, s, pw, values) => {
        const facts = factsOf(live(scripts, s, pw).facts, s)
        const sorted = [...values].sort((a, b) => ms[a]! - ms[b]!)
        const sweep = sweepReplay(points([`failingAfter=${sorted.join(",")}`]))
        for (const f of facts) sweepFact(sweep, f)
        const rows = sweepEnd(sweep)
        for (let i = 1; i < rows.length; i++) {
          const shorter = rows[i - 1]!,
            longer = rows[i]!
          // The calls do not depend on failingAfter, so the runs are the same runs; only what is said of them moves.
          const runs = (r: typeof longer) => r.day.runs.map((x) => [x.consumer, x.start, x.lastFailure, x.end])
          expect(runs(longer)).toEqual(runs(shorter))
          longer.day.runs.forEach((run, k) => {
            const was = shorter.day.runs[k]!
            if (run.announcedAt.length > 0) {
              expect(was.announcedAt.length).toBeGreaterThan(0)
              expect(run.announcedAt[0]!).toBeGreaterThanOrEqual(was.announcedAt[0]!)
            }
            expect(run.announcedAt.length).toBeLessThanOrEqual(was.announcedAt.length)
          })
          expect(longer.figures.unannounced).toBeGreaterThanOrEqual(shorter.figures.unannounced)
          expect(longer.figures.failing).toBeLessThanOrEqual(shorter.figures.failing)
          expect(longer.figures.announcedRuns).toBeLessThanOrEqual(shorter.figures.announcedRuns)
        }
      }),
      { numRuns: 150 },
    )
  })

  it("a run is from a consumer's first failed call to its next success, and its first announcement is failingAfter or more into it", () => {
    fc.assert(
      fc.property(day, settings, passwords, (scripts, s, pw) => {
        const facts = factsOf(live(scripts, s, pw).facts, s)
        const decisions = decisionsAlone(facts, {})
        const g = runsGatherer()
        for (const d of decisions) g.add(d)
        const result = g.result()
        for (const run of result.runs) {
          const calls = decisions.filter((d) => d.kind === "called" && d.as === run.consumer && d.call !== "remove")
          const first = calls.find((d) => d.at >= run.start)
          expect(
            first !== undefined &&
              first.kind === "called" &&
              ["unreadable", "error", "timed-out"].includes(first.outcome),
          ).toBe(true)
          if (run.announcedAt.length > 0) expect(run.announcedAt[0]! - run.start).toBeGreaterThanOrEqual(s.failingAfter)
          for (const at of run.announcedAt) expect(at).toBeLessThanOrEqual(run.lastFailure)
          expect(run.lastFailure).toBeLessThan(run.end ?? Number.POSITIVE_INFINITY)
        }
        const announced = decisions.filter((d) => d.kind === "announced" && d.event === "provisioner.failing").length
        expect(result.runs.reduce((n, r) => n + r.announcedAt.length, 0)).toBe(announced)
      }),
      { numRuns: 150 },
    )
  })

  it("a grid is every value of the first setting with every value of the second; bad sweeps are refused, naming what is wrong", () => {
    const grid = points(["failingAfter=1m,2m", "sayAgainEvery=5m,10m,15m"])
    expect(grid.map((p) => p.label)).toEqual([
      "failingAfter=1m sayAgainEvery=5m",
      "failingAfter=1m sayAgainEvery=10m",
      "failingAfter=1m sayAgainEvery=15m",
      "failingAfter=2m sayAgainEvery=5m",
      "failingAfter=2m sayAgainEvery=10m",
      "failingAfter=2m sayAgainEvery=15m",
    ])
    const problem = (said: ReadonlyArray<string>) => {
      const r = providerSweepPoints(said)
      return "problem" in r ? r.problem : undefined
    }
    expect(problem(["failingAftr=1m"])).toContain(`no setting "failingAftr"`)
    expect(problem(["failingAfter=1m,soon"])).toContain(`"soon" is not a duration`)
    expect(problem(["every=0s,5s"])).toContain("every must be longer than 0s")
    expect(problem(["failingAfter=1m,1m"])).toContain("1m is given twice")
    expect(problem(["failingAfter=1m", "failingAfter=2m"])).toContain("swept twice")
    expect(problem(["failingAfter=1m", "every=5s", "verifyEvery=1m"])).toContain("a grid of two")
    expect(problem(["failingAfter"])).toContain("give a setting and its values")
    expect(sweepPoints(["a=1,2,3,4,5,6,7,8,9", "b=1,2,3,4,5,6,7,8"], (_, t) => ({ value: t }))).toEqual({
      problem: "--sweep: 72 points; at most 64 are replayed in one reading",
    })
  })
})

describe("a replay's failing runs and what a sweep prints of them", () => {
  const t = (m: number) => Date.parse("2026-10-05T06:00:00Z") + m * 60_000
  const called = (
    m: number,
    as: string,
    call: "secret" | "holds" | "create" | "remove",
    outcome: string,
  ): Decision => ({ at: t(m), kind: "called", call, as, outcome, class: undefined, recorded: true })
  const body = (consumer: string) => ({
    attempts: 2,
    class: "unreachable",
    consumer,
    error: "e",
    node: "n",
    provider: "postgres",
    "provider-node": "hq-1",
    since: "x",
  })
  const failing = (m: number, consumer: string): Decision => ({
    at: t(m),
    kind: "announced",
    event: "provisioner.failing",
    body: body(consumer),
  })
  const recovered = (m: number, consumer: string): Decision => ({
    at: t(m),
    kind: "announced",
    event: "provisioner.recovered",
    body: { consumer, provider: "postgres", "provider-node": "hq-1" },
  })
  const day: ReadonlyArray<Decision> = [
    { at: t(0), kind: "said", text: "x" },
    called(1, "letta", "secret", "unreadable"),
    failing(2, "letta"),
    called(3, "letta", "create", "error"),
    called(3.5, "letta", "remove", "error"), // a remove is not the consumer's standing
    called(3.7, "letta", "holds", "not-held"), // neither fails nor clears
    called(3.8, "letta", "holds", "timed-out"),
    called(4, "letta", "create", "ok"),
    recovered(5, "letta"), // said after the success that ended the run: it is that run's
    recovered(6, "letta"), // a second says nothing more of it
    failing(6, "grafana"), // no run open: counted, marked on nothing
    called(7, "grafana", "create", "error"),
    recovered(8, "grafana"), // its run was never announced: nothing to take back
    { at: t(9), kind: "said", text: "y" },
    called(10, "chat", "holds", "error"),
    called(11, "chat", "create", "held"),
    called(12, "chat", "create", "error"),
  ]

  it("counts by hand: a run from a failed call to the next success, its announcements, the recovery said of it", () => {
    const g = runsGatherer()
    for (const d of day) g.add(d)
    expect(g.result()).toEqual({
      firstAt: t(0),
      lastAt: t(12),
      failing: 2,
      recovered: 3,
      said: 2,
      runs: [
        { consumer: "letta", start: t(1), lastFailure: t(3.8), end: t(4), announcedAt: [t(2)], recoveredAt: t(5) },
        {
          consumer: "grafana",
          start: t(7),
          lastFailure: t(7),
          end: undefined,
          announcedAt: [],
          recoveredAt: undefined,
        },
        { consumer: "chat", start: t(10), lastFailure: t(10), end: t(11), announcedAt: [], recoveredAt: undefined },
        { consumer: "chat", start: t(12), lastFailure: t(12), end: undefined, announcedAt: [], recoveredAt: undefined },
      ],
    })
  })

  it("prints the sweep as a table, its report and its JSON", () => {
    const g = runsGatherer()
    for (const d of day) g.add(d)
    const dayRuns = g.result()
    const grid = points(["failingAfter=1m,5m"])
    const rows = grid.map((point, i) => ({
      point,
      day: dayRuns,
      figures: sweepFigures(i === 0 ? dayRuns : { ...dayRuns, runs: [] }),
      inferred: i,
    }))
    const recorded: Settings = {
      every: 5_000,
      verifyEvery: 60_000,
      holdsTimeout: 30_000,
      failingAfter: 300_000,
      sayAgainEvery: 900_000,
    }
    // Checked by hand: letta 1m to its first announcement; unannounced 1m (letta) + 0 (grafana) + 1m (chat's first run) + 0.
    expect(sweepReport({ file: "d.jsonl", facts: 40, set: [], recorded }, rows)).toEqual([
      "sweep of d.jsonl: 40 facts, each replayed 2 times in one reading",
      "",
      "point            failing  recovered  first failure → first announcement (min / median / max)  unannounced  runs (announced)  said  inferred",
      "failingAfter=1m  2        3          1m0s / 1m0s / 1m0s                                       2.0 min      4 (1)             2     0",
      "failingAfter=5m  2        3          never announced                                          0.0 min      0 (0)             2     1",
      "",
      "recorded under every=5s verifyEvery=1m0s holdsTimeout=30s failingAfter=5m0s sayAgainEvery=15m0s",
      "failing, recovered: announcements made. first failure → first announcement: over the runs announced. unannounced: how long failing consumers " +
        "went unannounced, added over every run. runs: failing runs (of them announced). said: lines in the journal. inferred: answers the recording did not have.",
    ])
    expect(sweepReport({ file: "d.jsonl", facts: 40, set: ["every=1s", "holdsTimeout=5s"], recorded }, rows)[0]).toBe(
      "sweep of d.jsonl: 40 facts, each replayed 2 times in one reading, with every=1s holdsTimeout=5s",
    )
    expect(JSON.parse(sweepJson(rows))).toEqual({
      sweep: [
        {
          point: { failingAfter: "1m" },
          failing: 2,
          recovered: 3,
          said: 2,
          runs: 4,
          announcedRuns: 1,
          toFirst: { min: 60_000, median: 60_000, max: 60_000 },
          unannounced: 120_000,
          inferred: 0,
        },
        {
          point: { failingAfter: "5m" },
          failing: 2,
          recovered: 3,
          said: 2,
          runs: 0,
          announcedRuns: 0,
          toFirst: null,
          unannounced: 0,
          inferred: 1,
        },
      ],
    })
  })
})
