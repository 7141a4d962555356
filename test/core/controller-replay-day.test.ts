// A controller's day replayed in-process (core/src/controller/replay.ts), beside what the day itself
// says: the shipped release day replays to exactly the acts its answer lines record, counted per kind
// from the file alone; under other settings a program that asks what the day never asked is answered
// as the module promises (what the controller itself keeps from the replay's own keeping, what the
// world said from the last it said, an act taken as done) and each such answer is counted; the facts
// a what-if judges with are the last read plus the controller's own writes since, as a store would
// give them back; and a plan another controller moved on is that controller's. Each input program
// (gate, verbs, followers, outage) is reached on a log written here by running the core's own
// program against a small world, as `serve --record` writes one.
import { readFileSync } from "node:fs"
import fc from "fast-check"
import { beforeEach, describe, expect, it } from "vitest"
import { answerLine, type GateSettingsLine } from "@mesh-core/core/controller/log"
import { keepStatement } from "@mesh-core/core/gate/messages/statements"
import { gateTick } from "@mesh-core/core/gate/tick/tick"
import { type Program, runPure } from "@mesh-core/core/program"
import type { ControllerQuestions, Question } from "@mesh-core/core/controller/catalogue"
import type { OperatorCommand, PlanRecord } from "@mesh-core/core/gate/plan/records"
import type { ConditionRecord, GateFactsRecord } from "@mesh-core/core/gate/judging/facts"
import {
  actKinds,
  type ControllerDecision,
  feedController,
  finishController,
  settingsWith,
  startControllerReplay,
} from "@mesh-core/core/controller/replay"
import { replayControllerLog } from "../support/replay-controller.ts"
import { operatorVerb } from "@mesh-core/core/gate/operator/operator"
import type { GateSettings } from "@mesh-core/core/gate/judging/judge"
import { recordDay } from "../../examples/controller-world.ts"
import { controllerDay } from "../support/controller-days.ts"
import { gateFacts, reportedOn } from "../support/gate-facts.ts"
import { basePlan } from "./gate-world.ts"

// ---- logs written here ----

const T0 = Date.parse("2026-12-03T08:00:00Z")
const ms = (s: number) => T0 + s * 1_000
const iso = (s: number) => new Date(ms(s)).toISOString()
const gateLine = { settle: "2s", bound: "10s", every: "1s", passes: 2 }
const gate: GateSettings = { settle: 2_000, bound: 10_000, every: 1_000, passes: 2 }
const header = (g: GateSettingsLine = gateLine) =>
  JSON.stringify({ format: "mesh-core.facts", version: 1, area: "controller", settings: { gate: g } })
const tickLine = (s: number) => JSON.stringify({ at: iso(s), fact: "tick" })
const answer = (s: number, q: Question, a: unknown) => answerLine(iso(s), q, a)

/** One statement of hq-1's health: each module's resource in the state given. */
const statementMessage = (s: number, states: Readonly<Record<string, string>>, machine = "hq-1") => ({
  subject: `mesh.health.${machine}`,
  event: `mesh.health.${machine}`,
  seq: s,
  body: JSON.stringify({
    machine,
    at: iso(s),
    resources: Object.entries(states).map(([module, state]) => ({
      resource: `${module}-app`,
      module,
      state,
      ...(state === "unhealthy" ? { reason: "exited 137" } : {}),
    })),
  }),
})
const statementLine = (s: number, states: Readonly<Record<string, string>>) =>
  JSON.stringify({ at: iso(s), fact: "statement", message: statementMessage(s, states) })
const command = (s: number, verb: OperatorCommand["verb"], plan = "letta-205"): OperatorCommand => ({
  verb,
  plan,
  by: "alice",
  at: ms(s),
  why: "looks fine",
})
const verbLine = (s: number, verb: OperatorCommand["verb"], plan = "letta-205") =>
  JSON.stringify({ at: iso(s), fact: "verb", command: command(s, verb, plan) })

const plan: PlanRecord = { ...basePlan, rest: ["hq-2"], sentAt: T0, tiers: [["hq-1"]] }
/** The plan with its tier sent at T0 and its gate not opened in the record yet (opened from sentAt). */
const sentPlan: PlanRecord = { ...plan, sent: ["hq-1"], triedAt: T0 }

/** What the store says at a tick: hq-1 applied what it was sent, nothing wrong, no statement. */
const factsAt = (s: number, over: Partial<GateFactsRecord> = {}): GateFactsRecord =>
  gateFacts(ms(s), reportedOn(["hq-1"], ms(s) - 500), over)

/**
 * A program run live against a world, written as the recorder writes it: its input line, then every
 * answer. The world answers what it is given; any other act is done, a send reaches every machine.
 */
const recorded = (
  inputLine: string,
  s: number,
  program: Program<ControllerQuestions, unknown>,
  world: (q: Question) => unknown = () => undefined,
) => {
  const ran = runPure(program, (q) => {
    const a = world(q)
    if (a !== undefined) return a
    switch (q.q) {
      case "send-plan":
        return { told: q.machines }
      case "record-verdict":
        return { ok: true, mine: true }
      case "engine-builds":
      case "manifests":
      case "witness-verdicts":
        return { ok: true, value: {} }
      case "latest-verdicts":
      case "probe-conditions":
        return { ok: true, value: [] }
      case "now":
        return ms(s)
      case "kept-statement":
      case "kept-report":
        return null
      default:
        return { ok: true }
    }
  })
  return {
    lines: [inputLine, ...ran.exchanges.map((e) => answer(s, e.question, e.answer))],
    said: ran.said,
    exchanges: ran.exchanges,
  }
}

const replay = (lines: ReadonlyArray<string>, set: GateSettingsLine = {}) => {
  const r = replayControllerLog(lines, set)
  if (!r.ok) throw new Error(`line ${r.bad.line}: ${r.bad.field}: ${r.bad.problem}`)
  return r.day
}
const saidOf = (ds: ReadonlyArray<ControllerDecision>) => ds.flatMap((d) => (d.kind === "said" ? [d.line] : []))
const actsOf = (ds: ReadonlyArray<ControllerDecision>) => ds.flatMap((d) => (d.kind === "act" ? [d] : []))
const savedPlans = (ds: ReadonlyArray<ControllerDecision>) =>
  actsOf(ds).flatMap((d) => (d.act.q === "save-plan" ? [d.act.plan] : []))

// ---- the shipped release day, beside its own lines ----

const acts = [
  "record-verdict",
  "set-build",
  "send-plan",
  "record-build",
  "set-rollback",
  "publish",
  "save-plan",
  "reopen-plan",
  "raise-condition",
  "clear-condition",
  "write-standings",
  // A letter set aside is written down (issue 14): an act, shown on no line.
  "set-aside",
  "write-report",
  "write-statement",
  "write-witness",
]

describe("the shipped release day replayed in-process", () => {
  const lines = readFileSync(new URL("../../examples/release-day.facts.jsonl", import.meta.url), "utf8")
    .split("\n")
    .filter((l) => l !== "")
  const parsed = lines
    .slice(1)
    .map(
      (l) =>
        JSON.parse(l) as { at: string; fact: string; q?: Question; a?: unknown; settings?: { gate: GateSettingsLine } },
    )

  it("asks for exactly the acts its answer lines record, in order, each under the input it followed, with the answer recorded", () => {
    const expected: Array<unknown> = []
    let input = ""
    let at = ""
    for (const f of parsed) {
      if (f.fact !== "answer") {
        input = f.fact
        at = f.at
      } else if (acts.includes(f.q!.q))
        expected.push({ at: Date.parse(at), input, kind: "act", act: f.q, answer: f.a, recorded: true })
    }
    const day = replay(lines)
    expect(actsOf(day.decisions)).toEqual(expected)
    // Counted per kind from the file alone.
    const perKind = (qs: ReadonlyArray<string>) =>
      Object.fromEntries([...new Set(qs)].sort().map((k) => [k, qs.filter((x) => x === k).length]))
    expect(perKind(actsOf(day.decisions).map((d) => d.act.q))).toEqual({
      "clear-condition": 3,
      // Each verdict kept (letta-204 failed, letta-205 passed), and the rollback.
      publish: 3,
      "raise-condition": 3,
      "record-verdict": 2,
      "save-plan": 22,
      "send-plan": 2,
      "set-build": 1,
      "set-rollback": 1,
      "write-report": 4,
      "write-standings": 2,
      "write-statement": 48,
    })
    expect(perKind(parsed.flatMap((f) => (f.fact === "answer" && acts.includes(f.q!.q) ? [f.q!.q] : [])))).toEqual(
      perKind(actsOf(day.decisions).map((d) => d.act.q)),
    )
    // The acts are the questions that change something, the release's own among them.
    expect([...actKinds].sort()).toEqual([...acts].sort())
  })

  it("counts every fact, one program per input but the start, the start itself, and nothing inferred, differed or left unasked", () => {
    const day = replay(lines)
    const inputs = parsed.filter((f) => f.fact !== "answer" && f.fact !== "started").length
    expect(inputs).toBe(92)
    expect(day.state.counts).toEqual({
      facts: lines.length - 1,
      programs: inputs,
      starts: 1,
      inferred: 0,
      differed: 0,
      unasked: 0,
    })
    expect(day.state.span).toEqual({ first: Date.parse(parsed[0]!.at), last: Date.parse(parsed.at(-1)!.at) })
    expect(day.state.settings).toEqual({ settle: 120_000, bound: 600_000, every: 40_000, passes: 3 })
    expect(day.header.settings.gate).toEqual({ settle: "2m0s", bound: "10m0s", every: "40s", passes: 3 })
    // The start is a decision of its own, with the settings it came up under (--set over them).
    expect(day.decisions.filter((d) => d.kind === "started")).toEqual([
      {
        at: Date.parse("2026-11-20T10:08:00.000Z"),
        kind: "started",
        settings: { settle: 120_000, bound: 600_000, every: 40_000, passes: 3 },
      },
    ])
    const other = replay(lines, { passes: 5, bound: "4m" })
    expect(other.decisions.filter((d) => d.kind === "started")).toEqual([
      {
        at: Date.parse("2026-11-20T10:08:00.000Z"),
        kind: "started",
        settings: { settle: 120_000, bound: 240_000, every: 40_000, passes: 5 },
      },
    ])
    expect(other.state.settings).toEqual({ settle: 120_000, bound: 240_000, every: 40_000, passes: 5 })
  })

  it("groups the decisions by program: none empty, each of one input at one time, together the decisions in order", () => {
    const day = replay(lines)
    expect(day.programs.every((p) => p.length > 0)).toBe(true)
    expect(day.programs.flat()).toEqual(day.decisions)
    // A start ends the program before it, so it closes that program's entry.
    for (const p of day.programs) {
      const kinds = new Set(p.flatMap((d) => (d.kind === "started" ? [] : [`${d.at} ${d.input}`])))
      expect(kinds.size).toBeLessThanOrEqual(1)
      const start = p.findIndex((d) => d.kind === "started")
      if (start >= 0) expect(start).toBe(p.length - 1)
    }
    expect(day.programs.filter((p) => p.length > 0 && p.every((d) => d.kind !== "started")).length).toBe(
      day.programs.length - 1,
    )
    // The store's outage is said as the outage program says it, once.
    expect(saidOf(day.decisions).filter((l) => l.includes("the store cannot be read"))).toEqual([
      "[controller] the store cannot be read: connect ECONNREFUSED 127.0.0.1:5432; 1 statement left to come again, trying until it answers",
    ])
  })
})

// ---- logs that are not a day ----

describe("logs that are not a day, and facts out of place", () => {
  it("no line at all is the empty log, said as the reader says it; a header alone is a day with nothing in it", () => {
    expect(replayControllerLog([])).toEqual({
      ok: false,
      bad: { line: 1, field: "format", problem: "the log is empty: its first line must name the format" },
    })
    expect(replayControllerLog([""])).toEqual({
      ok: false,
      bad: { line: 1, field: "format", problem: "the log is empty: its first line must name the format" },
    })
    const r = replayControllerLog([header()], { passes: 4 })
    expect(r.ok).toBe(true)
    if (!r.ok) return
    expect(r.day.decisions).toEqual([])
    expect(r.day.programs).toEqual([])
    expect(r.day.state.counts).toEqual({ facts: 0, programs: 0, starts: 0, inferred: 0, differed: 0, unasked: 0 })
    expect(r.day.state.span).toEqual({ first: undefined, last: undefined })
    expect(r.day.state.settings).toEqual({ ...gate, passes: 4 })
  })

  it("a bad line stops the replay with the reader's FILE:LINE field and problem", () => {
    expect(
      replayControllerLog([
        header(),
        tickLine(0),
        `{"at":"2026-12-03T08:00:01Z","fact":"answer","q":{"q":"plans-in-flight"},"a":{"ok":true,"value":[]}}`,
        `{"at":"yesterday","fact":"tick"}`,
      ]),
    ).toEqual({ ok: false, bad: { line: 4, field: "at", problem: '"yesterday" is not an RFC 3339 time' } })
    expect(
      replayControllerLog([
        header(),
        `{"at":"2026-12-03T08:00:01Z","fact":"answer","q":{"q":"plans-in-flight"},"a":{"ok":true,"value":[]}}`,
      ]),
    ).toEqual({
      ok: false,
      bad: {
        line: 2,
        field: "fact",
        problem:
          "an answer with no program before it: an input (tick, words, report, statement, witness, store-failed) comes first",
      },
    })
  })

  it("fed by hand, an answer with no program is counted unasked and decides nothing; a fresh replay counts nothing", () => {
    const s = startControllerReplay(gate)
    expect(s.counts).toEqual({ facts: 0, programs: 0, starts: 0, inferred: 0, differed: 0, unasked: 0 })
    expect(s.span).toStrictEqual({ first: undefined, last: undefined })
    expect([s.group, s.lastFacts, s.plans.size, s.verdicts.size, s.savedLive.size, s.builds.size]).toEqual([
      undefined,
      undefined,
      0,
      0,
      0,
      0,
    ])
    const fed = feedController(s, { at: iso(3), atMs: ms(3), fact: "answer", q: { q: "now" }, a: ms(3) }, () => gate)
    expect(fed.decisions).toEqual([])
    expect(fed.state.counts).toEqual({ facts: 1, programs: 0, starts: 0, inferred: 0, differed: 0, unasked: 1 })
    expect(fed.state.span).toEqual({ first: ms(3), last: ms(3) })
    expect(finishController(fed.state)).toEqual({ state: fed.state, decisions: [] })
  })

  it("a start runs the program before it and names its settings, --set over them; the span runs from the first fact to the last", () => {
    const started = {
      at: iso(5),
      atMs: ms(5),
      fact: "started" as const,
      settings: { gate: { passes: 4, every: "3s" } },
    }
    expect(settingsWith({})(started)).toEqual({ settle: 120_000, bound: 600_000, every: 3_000, passes: 4 })
    expect(settingsWith({ passes: 1, settle: "1s" })(started)).toEqual({
      settle: 1_000,
      bound: 600_000,
      every: 3_000,
      passes: 1,
    })
    let s = startControllerReplay(gate)
    s = feedController(s, { at: iso(1), atMs: ms(1), fact: "tick" }, settingsWith({})).state
    const fed = feedController(s, started, settingsWith({ bound: "1m" }))
    // The tick before it ran with nothing recorded: it read no plan and found nothing, so decided nothing.
    expect(fed.decisions).toEqual([
      { at: ms(5), kind: "started", settings: { settle: 120_000, bound: 60_000, every: 3_000, passes: 4 } },
    ])
    expect(fed.state.counts).toEqual({ facts: 2, programs: 1, starts: 1, inferred: 4, differed: 0, unasked: 0 })
    expect(fed.state.span).toEqual({ first: ms(1), last: ms(5) })
    expect(fed.state.settings).toEqual({ settle: 120_000, bound: 60_000, every: 3_000, passes: 4 })
    expect(fed.state.group).toBeUndefined()
  })
})

// ---- what the day never asked ----

describe("what a program asks that the day never answered", () => {
  it("a tick with nothing recorded reads no plan and an empty probe: nothing said or done, four answers inferred", () => {
    const day = replay([header(), tickLine(0)])
    expect(day.decisions).toEqual([])
    expect(day.state.counts).toMatchObject({ programs: 1, inferred: 4, differed: 0, unasked: 0 })
  })

  it("a verb with nothing recorded is this controller's (it received it) on a plan the replay does not know: refused as no plan", () => {
    const day = replay([header(), verbLine(0, "pause")])
    expect(saidOf(day.decisions)).toEqual([
      "[plans] pause letta-205 by alice: refused: no plan letta-205: `plans` lists them",
    ])
    expect(actsOf(day.decisions)).toEqual([])
    expect(day.state.counts).toMatchObject({ inferred: 2, differed: 0, unasked: 0 })
  })

  it("a plan read once is then the replay's own: sent, judged with facts not in the recording (an error, not a failure), paused and resumed", () => {
    const day = replay([
      header(),
      tickLine(0),
      answer(0, { q: "plans-in-flight" }, { ok: true, value: [plan] }),
      tickLine(2),
      statementLine(3, { letta: "healthy" }),
      tickLine(4),
      verbLine(5, "pause"),
      tickLine(6),
      verbLine(7, "resume"),
    ])
    expect(saidOf(day.decisions)).toEqual([
      "[gate] letta-205: letta letta-205 sent to tier 1 (hq-1); the gate judges it there",
      // Said once, not a line per judging (003-3): the second could not ask the same.
      "[gate] letta-205: could not ask (1 of 4 in a row before it is paused): what the machines reported cannot be read: not in the recording",
      "[plans] pause letta-205 by alice: plan letta-205: paused by alice at 2026-12-03T08:00:05Z: looks fine; not judged until `plans resume letta-205`, and it still holds its machines",
      "[plans] resume letta-205 by alice: plan letta-205: resumed by alice at 2026-12-03T08:00:07Z: looks fine; judged again from where it was (0 passes kept)",
    ])
    const a = actsOf(day.decisions)
    expect(a.every((d) => !d.recorded)).toBe(true)
    // The tier's send is taken as done, reaching the machines asked; the clock is the tick's.
    expect(a[0]).toEqual({
      at: ms(0),
      input: "tick",
      kind: "act",
      act: { q: "send-plan", plan: "letta-205", module: "letta", why: "tier", machines: ["hq-1"] },
      answer: { told: ["hq-1"] },
      recorded: false,
    })
    const saves = savedPlans(day.decisions)
    expect(saves.map((p) => [p.triedAt, p.sent, p.gate?.since, p.errors, p.paused?.at])).toEqual([
      [ms(0), ["hq-1"], ms(0), undefined, undefined],
      [ms(0), ["hq-1"], ms(0), 1, undefined],
      [ms(0), ["hq-1"], ms(0), 2, undefined],
      [ms(0), ["hq-1"], ms(0), 2, ms(5)],
      [ms(0), ["hq-1"], ms(0), 0, undefined],
    ])
    expect(a.filter((d) => d.act.q !== "save-plan").map((d) => [d.act.q, d.answer])).toEqual([
      ["send-plan", { told: ["hq-1"] }],
      ["write-statement", { ok: true }],
      ["publish", { ok: true }],
      ["publish", { ok: true }],
    ])
    // A paused plan is not judged: the tick at 6 asked nothing of it.
    expect(day.decisions.filter((d) => d.at === ms(6))).toEqual([])
    expect(day.state.plans.get("letta-205")).toEqual(saves.at(-1))
    // The builds the plan read names, with their commits: the new one and the one before it.
    expect([...day.state.builds.values()]).toEqual([
      { build: "letta-205", module: "letta", commit: "5e1f0c2a9b" },
      { build: "letta-204", module: "letta", commit: "a71c3d09e4" },
    ])
    expect(day.state.lastFacts).toEqual({
      now: ms(4),
      reports: {},
      reportsUnread: "not in the recording",
      engines: {},
      served: { ok: false, why: "not in the recording" },
      rolledBack: {},
      holder: { ok: true, value: null },
      // The statement kept at 3, after the facts were last asked at 2: the store gives it back.
      health: {
        ok: true,
        value: {
          "hq-1": {
            machine: "hq-1",
            at: ms(3),
            resources: [{ resource: "letta-app", module: "letta", state: "healthy" }],
          },
        },
      },
    })
  })

  it("promote with nothing recorded: the verdict is this controller's, the conditions cleared, the rest sent and reached", () => {
    const day = replay([
      header(),
      tickLine(0),
      answer(0, { q: "plans-in-flight" }, { ok: true, value: [plan] }),
      verbLine(1, "promote"),
    ])
    const a = actsOf(day.decisions).filter((d) => d.at === ms(1))
    expect(a.map((d) => [d.act.q, d.answer])).toEqual([
      ["record-verdict", { ok: true, mine: true }],
      ["publish", { ok: true }],
      ["clear-condition", { ok: true }],
      ["clear-condition", { ok: true }],
      ["save-plan", { ok: true }],
      ["send-plan", { told: ["hq-2"] }],
      ["save-plan", { ok: true }],
      ["publish", { ok: true }],
    ])
    // The verdict a person's promote gave: said as theirs, with no time judged.
    expect(a[1]!.act).toMatchObject({
      q: "publish",
      event: "verdict",
      body: { event: "verdict", plan: "letta-205", verdict: "passed", decided: "operator", by: "alice" },
    })
    expect(a[1]!.act).not.toHaveProperty("body.took")
    expect(saidOf(day.decisions).at(-1)).toBe(
      "[plans] promote letta-205 by alice: plan letta-205: letta letta-205 passed its gate and every machine of the plan has it (hq-1, hq-2)",
    )
    expect([...day.state.verdicts]).toEqual(["letta-205"])
    expect(day.state.plans.get("letta-205")?.state).toBe("passed")
  })

  it("a controller's own build promoted: whether the bus's user list is behind is inferred as no holder, so nothing is carried", () => {
    const ctl = {
      ...plan,
      id: "controller-9",
      module: "controller",
      build: "controller-9",
      previousBuild: "controller-8",
    }
    const day = replay([
      header(),
      tickLine(0),
      answer(0, { q: "plans-in-flight" }, { ok: true, value: [ctl] }),
      verbLine(1, "promote", "controller-9"),
    ])
    expect(saidOf(day.decisions)).toEqual([
      "[gate] controller-9: controller controller-9 sent to tier 1 (hq-1); the gate judges it there",
      "[gate] controller-9: controller controller-9 passed its gate and every machine of the plan has it (hq-1, hq-2)",
      "[plans] promote controller-9 by alice: plan controller-9: controller controller-9 passed its gate and every machine of the plan has it (hq-1, hq-2)",
    ])
    expect(
      actsOf(day.decisions)
        .filter((d) => d.act.q === "send-plan")
        .map((d) => d.act),
    ).toEqual([
      { q: "send-plan", plan: "controller-9", module: "controller", why: "tier", machines: ["hq-1"] },
      { q: "send-plan", plan: "controller-9", module: "controller", why: "rest", machines: ["hq-2"] },
    ])
  })

  it("abort with nothing recorded: the previous build is found among those kept from what the plan read, and put back", () => {
    const day = replay([
      header(),
      tickLine(0),
      answer(0, { q: "plans-in-flight" }, { ok: true, value: [plan] }),
      verbLine(1, "abort"),
    ])
    const a = actsOf(day.decisions).filter((d) => d.at === ms(1))
    expect(a.map((d) => d.act.q)).toEqual([
      "record-verdict",
      "publish",
      "save-plan",
      "raise-condition",
      "set-build",
      "send-plan",
      "set-rollback",
      "raise-condition",
      "publish",
      "save-plan",
      "publish",
    ])
    expect(a.find((d) => d.act.q === "set-build")?.act).toEqual({
      q: "set-build",
      module: "letta",
      build: "letta-204",
      commit: "a71c3d09e4",
    })
    expect(a.find((d) => d.act.q === "send-plan")).toMatchObject({
      act: { why: "rollback", machines: ["hq-1"] },
      answer: { told: ["hq-1"] },
    })
    expect(saidOf(day.decisions).at(-1)).toBe(
      "[plans] abort letta-205 by alice: plan letta-205: letta failed its gate on hq-1: aborted by alice at 2026-12-03T08:00:01Z: looks fine; put back to a71c3d0 (letta-204) on hq-1, in one send per machine",
    )
    expect(day.state.plans.get("letta-205")?.state).toBe("failed")
  })

  it("a plan read without the build before it (no previous commit) gives the rollback nothing to find: not rolled back", () => {
    const first = { ...plan, previous: "" }
    const day = replay([
      header(),
      tickLine(0),
      answer(0, { q: "plans-in-flight" }, { ok: true, value: [first] }),
      verbLine(1, "abort"),
    ])
    expect([...day.state.builds.keys()]).toEqual(["letta-205"])
    expect(
      actsOf(day.decisions)
        .filter((d) => d.at === ms(1))
        .map((d) => d.act.q),
    ).toEqual(["record-verdict", "publish", "set-rollback", "raise-condition", "publish", "save-plan", "publish"])
    expect(actsOf(day.decisions).find((d) => d.act.q === "set-rollback")?.act).toMatchObject({
      q: "set-rollback",
      build: "letta-205",
      rollback: "not-rolled-back",
      why: expect.stringMatching(/^aborted by alice at 2026-12-03T08:00:01Z: looks fine; NOT put back: /),
    })
  })

  it("a build kept once is not kept again: a second plan of it promoted finds the verdict another's, left by none, and is refused", () => {
    const again = { ...plan, id: "letta-205-b", sentAt: ms(1) }
    const day = replay([
      header(),
      tickLine(0),
      answer(0, { q: "plans-in-flight" }, { ok: true, value: [plan] }),
      verbLine(1, "promote"),
      tickLine(2),
      answer(2, { q: "plans-in-flight" }, { ok: true, value: [{ ...again, sent: ["hq-1"], triedAt: ms(1) }] }),
      verbLine(3, "promote", "letta-205-b"),
    ])
    const a = actsOf(day.decisions).filter((d) => d.at === ms(3))
    expect(a).toEqual([
      {
        at: ms(3),
        input: "verb",
        kind: "act",
        act: expect.objectContaining({ q: "record-verdict" }),
        answer: { ok: true, mine: false },
        recorded: false,
      },
    ])
    expect(saidOf(day.decisions).at(-1)).toBe(
      "[plans] promote letta-205-b by alice: refused: plan letta-205-b's build has a verdict kept already: it is not promoted",
    )
  })

  it("retry with only the plan recorded: no other plan in flight and no verdict kept, so it is registered again and reopened", () => {
    const failed: PlanRecord = { ...sentPlan, state: "failed", note: "letta-205 could not be sent" }
    const day = replay([
      header(),
      verbLine(0, "retry"),
      answer(0, { q: "lease-holder" }, { ok: true, value: { mine: true, holder: "ctl-a" } }),
      answer(0, { q: "plan-of", id: "letta-205" }, { ok: true, value: failed }),
    ])
    expect(actsOf(day.decisions).map((d) => [d.act.q, d.recorded])).toEqual([
      ["set-build", false],
      ["reopen-plan", false],
      ["publish", false],
    ])
    expect(actsOf(day.decisions)[0]!.act).toEqual({
      q: "set-build",
      module: "letta",
      build: "letta-205",
      commit: "5e1f0c2a9b",
    })
    expect(day.state.plans.get("letta-205")).toMatchObject({ state: "open", tier: 0, sent: [] })
    expect(day.state.counts).toMatchObject({ inferred: 5, differed: 0, unasked: 0 })
    expect(saidOf(day.decisions)[0]).toMatch(/^\[plans\] retry letta-205 by alice: plan letta-205: /)
  })

  it("retry is refused while the replay keeps another plan of the module in flight", () => {
    const failed: PlanRecord = { ...sentPlan, id: "letta-204", build: "letta-204", state: "failed" }
    const day = replay([
      header(),
      tickLine(0),
      answer(0, { q: "plans-in-flight" }, { ok: true, value: [plan] }),
      verbLine(1, "retry", "letta-204"),
      answer(1, { q: "lease-holder" }, { ok: true, value: { mine: true, holder: "ctl-a" } }),
      answer(1, { q: "plan-of", id: "letta-204" }, { ok: true, value: failed }),
    ])
    expect(saidOf(day.decisions).at(-1)).toMatch(/^\[plans\] retry letta-204 by alice: refused: .*letta-205/)
    expect(actsOf(day.decisions).filter((d) => d.at === ms(1))).toEqual([])
  })
})

// ---- the facts a what-if judges with ----

const kept = (s: number, states: Readonly<Record<string, string>>, streaks: Readonly<Record<string, number>>) => ({
  statement: {
    machine: "hq-1",
    at: ms(s),
    resources: Object.entries(states).map(([module, state]) => ({
      resource: `${module}-app`,
      module,
      state,
      ...(state === "unhealthy" ? { reason: "exited 137" } : {}),
    })),
  },
  streaks,
})
const unhealthy = (module: string, raised: number): ConditionRecord => ({
  key: `module.${module}.hq-1.unhealthy`,
  source: "DH",
  raised,
  scope: "module",
  id: `${module}.hq-1`,
  also: [],
  kind: "unhealthy",
  summary: `${module} on hq-1 is stated unhealthy twice in a row: ${module}-app: exited 137`,
  machine: "hq-1",
})
const disk: ConditionRecord = {
  key: "machine.hq-1.disk-full",
  source: "DM",
  raised: ms(-20),
  scope: "machine",
  id: "hq-1",
  also: [],
  kind: "disk-full",
  summary: "hq-1's disk is full",
}

/** A statement program run live, its kept statement answered as the store kept it. */
const statementDay = (s: number, states: Readonly<Record<string, string>>, before: ReturnType<typeof kept> | null) =>
  recorded(
    JSON.stringify({ at: iso(s), fact: "statement", message: statementMessage(s, states) }),
    s,
    keepStatement(statementMessage(s, states)),
    (q) => (q.q === "kept-statement" ? before : undefined),
  )

describe("the facts a what-if judges with: the last read, with the controller's own writes since, as the store gives them back", () => {
  const tick0 = (facts: GateFactsRecord) =>
    recorded(tickLine(0), 0, gateTick(gate), (q) =>
      q.q === "plans-in-flight" ? { ok: true, value: [sentPlan] } : q.q === "gate-facts" ? facts : undefined,
    )
  const statements = [
    // gamma and alpha said unhealthy a second time at 1 (gamma first), zulu again while its condition is open since before.
    statementDay(
      1,
      { gamma: "unhealthy", alpha: "unhealthy", zulu: "unhealthy" },
      kept(0, { gamma: "unhealthy", alpha: "unhealthy", zulu: "unhealthy" }, { gamma: 1, alpha: 1, zulu: 1 }),
    ),
    // alpha and zulu well again at 3: cleared; gamma still unhealthy: its condition stays raised when it first was.
    statementDay(
      3,
      { gamma: "unhealthy", alpha: "healthy", zulu: "healthy" },
      kept(1, { gamma: "unhealthy", alpha: "unhealthy", zulu: "unhealthy" }, { gamma: 2, alpha: 2, zulu: 2 }),
    ),
  ]

  it("conditions raised and cleared since are in the facts, ordered by when raised and then by key; a condition raised again keeps when it first was", () => {
    const facts = factsAt(0, { open: { ok: true, value: [unhealthy("zulu", ms(-50)), disk] } })
    const first = replay([header(), ...tick0(facts).lines, ...statements[0]!.lines])
    expect(first.state.counts).toMatchObject({ inferred: 0, differed: 0, unasked: 0 })
    expect(first.state.lastFacts?.open).toEqual({
      ok: true,
      value: [unhealthy("zulu", ms(-50)), disk, unhealthy("alpha", ms(1)), unhealthy("gamma", ms(1))],
    })
    expect(first.state.lastFacts?.health).toEqual({
      ok: true,
      value: { "hq-1": kept(1, { gamma: "unhealthy", alpha: "unhealthy", zulu: "unhealthy" }, {}).statement },
    })
    const day = replay([header(), ...tick0(facts).lines, ...statements.flatMap((s) => s.lines)])
    expect(day.state.lastFacts).toEqual({
      ...facts,
      open: { ok: true, value: [disk, unhealthy("gamma", ms(1))] },
      health: {
        ok: true,
        value: { "hq-1": kept(3, { gamma: "unhealthy", alpha: "healthy", zulu: "healthy" }, {}).statement },
      },
    })
    // The facts as read stay what they were read: the replay's own writes make new facts.
    expect(facts.open).toEqual({ ok: true, value: [unhealthy("zulu", ms(-50)), disk] })
  })

  it("facts that never held the conditions, or could not read them or the statements, are left as read", () => {
    const { open: _open, ...noConditions } = factsAt(0)
    const variants: ReadonlyArray<readonly [GateFactsRecord, "health" | "open"]> = [
      [noConditions, "open"],
      [factsAt(0, { open: { ok: false, why: "conditions: relation does not exist" } }), "open"],
      [factsAt(0, { health: { ok: false, why: "statements: timeout" } }), "health"],
    ]
    for (const [facts, unread] of variants) {
      const day = replay([header(), ...tick0(facts).lines, ...statements.flatMap((s) => s.lines)])
      if (unread === "health")
        expect(day.state.lastFacts).toStrictEqual({ ...facts, open: { ok: true, value: [unhealthy("gamma", ms(1))] } })
      else
        expect(day.state.lastFacts).toStrictEqual({
          ...facts,
          health: {
            ok: true,
            value: { "hq-1": kept(3, { gamma: "unhealthy", alpha: "healthy", zulu: "healthy" }, {}).statement },
          },
        })
    }
  })

  it("a tick the day never had judges the replay's own plan with those facts at its own time: what a statement said since is what it judges", () => {
    // Live: judged healthy at 0 (1 of 2); the statement at 1 says letta unhealthy; the recording ends its reading there.
    const lines = [
      header(),
      ...tick0(factsAt(0)).lines,
      ...statementDay(1, { letta: "unhealthy" }, null).lines,
      tickLine(2),
      tickLine(3),
    ]
    const day = replay(lines)
    expect(saidOf(day.decisions)).toEqual([
      "[gate] letta-205: letta: gate on hq-1: judging, a71c3d0 → 5e1f0c2 (1 of 2 passes)",
      "[gate] letta-205: letta: gate on hq-1: judging, a71c3d0 → 5e1f0c2 (0 of 2 passes; wanting: letta-app of letta on hq-1 is stated unhealthy: exited 137)",
      "[gate] letta-205: letta: gate on hq-1: judging, a71c3d0 → 5e1f0c2 (0 of 2 passes; wanting: letta-app of letta on hq-1 is stated unhealthy: exited 137)",
    ])
    expect(day.state.lastFacts?.now).toBe(ms(3))
    expect(day.state.lastFacts?.reports).toEqual(factsAt(0).reports)
  })
})

// ---- whose plan it is ----

/** The plan a live program last saved. */
const lastSaved = (exchanges: ReadonlyArray<{ readonly question: Question }>): PlanRecord => {
  const saves = exchanges.flatMap((e) => (e.question.q === "save-plan" ? [e.question.plan] : []))
  return saves.at(-1)!
}
/** A tick run live: the plans in flight as given, the facts of that second. */
const liveTick = (
  s: number,
  inFlight: ReadonlyArray<PlanRecord>,
  facts: GateFactsRecord | undefined = factsAt(s),
  settings: GateSettings = gate,
) =>
  recorded(tickLine(s), s, gateTick(settings), (q) =>
    q.q === "plans-in-flight" ? { ok: true, value: inFlight } : q.q === "gate-facts" ? facts : undefined,
  )
const verdictsOf = (ds: ReadonlyArray<ControllerDecision>) =>
  actsOf(ds).flatMap((d) =>
    d.act.q === "record-verdict" ? [[d.at, d.act.verdict.build, d.act.verdict.verdict, d.recorded] as const] : [],
  )

/** Sent ten seconds before the day begins: settled by its first tick. */
const settled: PlanRecord = { ...sentPlan, sentAt: ms(-10), triedAt: ms(-10) }

describe("whose plan it is: what the replay decided stands, unless another controller wrote the plan since", () => {
  // Run before each test, never while the file is collected: a mutation run counts per test what each covers.
  let t0: ReturnType<typeof liveTick>
  let judged: PlanRecord
  beforeEach(() => {
    t0 = liveTick(0, [settled])
    judged = lastSaved(t0.exchanges)
  })

  it("a plan the recording no longer reads, last saved open by the recorded controller, was moved on by another: not judged again", () => {
    const day = replay([header(), ...t0.lines, ...liveTick(1, []).lines])
    expect(day.decisions.filter((d) => d.at === ms(1))).toEqual([])
    expect(day.state.counts).toMatchObject({ inferred: 0, differed: 0, unasked: 0 })
    expect(day.state.savedLive.get("letta-205")).toEqual({ json: expect.stringContaining('"passes":1'), open: true })
  })

  it("a plan the recorded controller closed itself is still judged by a what-if that has not closed it: a larger passes never passes sooner", () => {
    const t1 = liveTick(1, [judged])
    const passedLive = lastSaved(t1.exchanges)
    expect(passedLive.state).toBe("passed")
    const lines = [header(), ...t0.lines, ...t1.lines, ...liveTick(2, []).lines, ...liveTick(3, []).lines]
    const same = replay(lines)
    expect(verdictsOf(same.decisions)).toEqual([[ms(1), "letta-205", "passed", true]])
    expect(same.state.savedLive.get("letta-205")).toEqual({
      json: expect.stringContaining('"state":"passed"'),
      open: false,
    })
    const stricter = replay(lines, { passes: 3 })
    // Judged at 2 with the facts last read (at 1) at its own time: the third pass.
    expect(verdictsOf(stricter.decisions)).toEqual([[ms(2), "letta-205", "passed", false]])
    expect(saidOf(stricter.decisions).filter((l) => l.includes("passes"))).toEqual([
      "[gate] letta-205: letta: gate on hq-1: judging, a71c3d0 → 5e1f0c2 (1 of 3 passes)",
      "[gate] letta-205: letta: gate on hq-1: judging, a71c3d0 → 5e1f0c2 (2 of 3 passes)",
    ])
    expect(stricter.state.plans.get("letta-205")?.state).toBe("passed")
    // Nothing is judged at 3: the replay's own plan has ended too.
    expect(stricter.decisions.filter((d) => d.at === ms(3))).toEqual([])
    const strictest = replay(lines, { passes: 9 })
    expect(verdictsOf(strictest.decisions)).toEqual([])
    expect(strictest.state.plans.get("letta-205")?.state).toBe("open")
  })

  it("a plan read as another controller wrote it since is that controller's: judged from what it wrote, as live", () => {
    // Another controller judged it not yet healthy after this one's first pass: its write is the plan read at 1.
    const theirs: PlanRecord = { ...judged, gate: { ...judged.gate!, passes: 0 }, note: "judged by ctl-b" }
    const t1 = liveTick(1, [theirs])
    const day = replay([header(), ...t0.lines, ...t1.lines])
    expect(day.state.counts).toMatchObject({ inferred: 0, differed: 0, unasked: 0 })
    expect(verdictsOf(day.decisions)).toEqual([])
    expect(savedPlans(day.decisions).at(-1)).toEqual(lastSaved(t1.exchanges))
    // Read as this controller last saved it, the plan is the replay's own (the same, under the recorded settings).
    const ours = replay([header(), ...t0.lines, ...liveTick(1, [judged]).lines], { passes: 1 })
    expect(verdictsOf(ours.decisions)).toEqual([[ms(0), "letta-205", "passed", false]])
    expect(ours.decisions.filter((d) => d.at === ms(1) && d.kind === "act" && d.act.q === "save-plan")).toEqual([])
  })

  it("plans are judged in the order they were sent, whatever order the replay came to keep them in", () => {
    const early: PlanRecord = {
      ...settled,
      id: "grafana-12",
      module: "grafana",
      build: "grafana-12",
      previousBuild: "grafana-11",
      sentAt: ms(-30),
    }
    const three = { ...gate, passes: 3 }
    const a = liveTick(0, [settled], factsAt(0), three)
    const b = liveTick(1, [early, lastSaved(a.exchanges)], factsAt(1), three)
    const day = replay([header({ ...gateLine, passes: 3 }), ...a.lines, ...b.lines, tickLine(2)])
    expect([...day.state.plans.keys()]).toEqual(["letta-205", "grafana-12"])
    const ids = saidOf(day.decisions.filter((d) => d.at === ms(2))).map((l) => l.split(":")[0])
    expect(ids.filter((id, i) => ids.indexOf(id) === i)).toEqual(["[gate] grafana-12", "[gate] letta-205"])
  })

  it("a plan read by id that could not be read live is replayed unread: the verb refused live is refused again, nothing differing (issue 27)", () => {
    const pause = recorded(verbLine(1, "pause"), 1, operatorVerb(command(1, "pause"), gate), (q) =>
      q.q === "lease-holder"
        ? { ok: true, value: { mine: true, holder: "ctl-a" } }
        : q.q === "plan-of"
          ? { ok: false, why: "connect ECONNREFUSED 127.0.0.1:5432" }
          : undefined,
    )
    expect(pause.said.join("\n")).toContain("ECONNREFUSED")
    const day = replay([header(), ...t0.lines, ...pause.lines])
    expect(day.state.counts).toMatchObject({ inferred: 0, differed: 0, unasked: 0 })
    // The replay has the plan of its own (from t0), and still refuses as live did: nothing is paused.
    expect(day.state.plans.get("letta-205")?.paused).toBeUndefined()
    expect(saidOf(day.decisions).filter((l) => l.startsWith("[plans]"))).toEqual(
      pause.said.filter((l) => l.startsWith("[plans]")),
    )
  })

  it("a plan read by id is the replay's own when it has one: a pause after a what-if passed it is refused", () => {
    const pause = recorded(verbLine(1, "pause"), 1, operatorVerb(command(1, "pause"), gate), (q) =>
      q.q === "lease-holder"
        ? { ok: true, value: { mine: true, holder: "ctl-a" } }
        : q.q === "plan-of"
          ? { ok: true, value: judged }
          : undefined,
    )
    const lines = [header(), ...t0.lines, ...pause.lines]
    expect(pause.said).toEqual([
      expect.stringMatching(/^\[plans\] pause letta-205 by alice: plan letta-205: paused by alice/),
    ])
    expect(replay(lines).state.counts).toMatchObject({ inferred: 0, differed: 0, unasked: 0 })
    const what = replay(lines, { passes: 1 })
    expect(saidOf(what.decisions).at(-1)).toMatch(
      /^\[plans\] pause letta-205 by alice: refused: plan letta-205 is passed/,
    )
    // The recorded pause's save and publish went unasked.
    expect(what.state.counts).toMatchObject({ unasked: 2 })
  })
})

describe("the builds a what-if rolls back with: those the recording named, as it named them", () => {
  it("sources kept from a recorded answer are not lost when a plan names the same builds later: the rollback is found unchanged again", () => {
    const same = [
      { build: "letta-205", module: "letta", commit: "5e1f0c2a9b", source: "src-9f" },
      { build: "letta-204", module: "letta", commit: "a71c3d09e4", source: "src-9f" },
    ]
    const t0 = liveTick(0, [sentPlan])
    const abort = recorded(verbLine(1, "abort"), 1, operatorVerb(command(1, "abort"), gate), (q) =>
      q.q === "lease-holder"
        ? { ok: true, value: { mine: true, holder: "ctl-a" } }
        : q.q === "plan-of"
          ? { ok: true, value: lastSaved(t0.exchanges) }
          : q.q === "builds"
            ? { ok: true, value: same }
            : undefined,
    )
    expect(abort.said.at(-1)).toMatch(/nothing of it moved and nothing is put back/)
    const other: PlanRecord = { ...sentPlan, id: "letta-205-b", sentAt: ms(2), triedAt: ms(2) }
    const t2 = liveTick(2, [other])
    const day = replay([header(), ...t0.lines, ...abort.lines, ...t2.lines, verbLine(3, "abort", "letta-205-b")])
    expect([...day.state.builds.values()]).toEqual(same)
    const at3 = day.decisions.filter((d) => d.at === ms(3))
    expect(actsOf(at3).map((d) => [d.act.q, d.recorded])).toEqual([
      ["save-plan", false],
      ["publish", false],
    ])
    expect(savedPlans(at3)[0]).toMatchObject({ state: "failed", gate: { rollback: "unchanged" } })
  })
})

describe("what counts as an act that differed", () => {
  it("a question that is no act, recorded as asked otherwise, is answered from the recording and not counted", () => {
    const s = statementDay(1, { letta: "healthy" }, null)
    const odd = s.lines.map((l) =>
      l.replace('"q":"kept-statement","machine":"hq-1"', '"q":"kept-statement","machine":"hq-9"'),
    )
    expect(odd).not.toEqual(s.lines)
    expect(replay([header(), ...odd]).state.counts).toMatchObject({ inferred: 0, differed: 0, unasked: 0 })
  })

  it("an act recorded with its keys in another order is the same act; one with another value differed", () => {
    const s = statementDay(1, { letta: "healthy" }, null)
    const reordered = s.lines.map((l) => {
      const f = JSON.parse(l) as { q?: { q: string; statement?: unknown; streaks?: unknown } }
      return f.q?.q === "write-statement"
        ? JSON.stringify({ ...f, q: { streaks: f.q.streaks, statement: f.q.statement, q: f.q.q } })
        : l
    })
    expect(reordered).not.toEqual(s.lines)
    expect(replay([header(), ...reordered]).state.counts).toMatchObject({ inferred: 0, differed: 0, unasked: 0 })
    const changed = s.lines.map((l) => l.replace('"streaks":{}', '"streaks":{"letta":3}'))
    expect(changed).not.toEqual(s.lines)
    expect(replay([header(), ...changed]).state.counts).toMatchObject({ inferred: 0, differed: 1, unasked: 0 })
  })
})

describe("random recorded days under a stricter gate", () => {
  const passedAt = (ds: ReadonlyArray<ControllerDecision>) => {
    const out = new Map<string, number>()
    for (const d of ds)
      if (
        d.kind === "act" &&
        d.act.q === "record-verdict" &&
        d.act.verdict.verdict === "passed" &&
        !out.has(d.act.verdict.build)
      )
        out.set(d.act.verdict.build, d.at)
    return out
  }

  it("a larger passes never passes a build the smaller did not, nor sooner; the recorded settings restated infer nothing", () => {
    fc.assert(
      fc.property(controllerDay, fc.integer({ min: 1, max: 4 }), fc.integer({ min: 0, max: 3 }), (script, p, more) => {
        const live = recordDay(script)
        const loose = passedAt(replay(live.lines, { passes: p }).decisions)
        const strict = replay(live.lines, { passes: p + more })
        for (const [build, at] of passedAt(strict.decisions)) {
          expect(loose.has(build), build).toBe(true)
          expect(loose.get(build)!).toBeLessThanOrEqual(at)
        }
        // Every act a replay says was recorded is one the recording holds; what it inferred is counted.
        expect(actsOf(strict.decisions).filter((d) => !d.recorded).length).toBeLessThanOrEqual(
          strict.state.counts.inferred,
        )
      }),
      { numRuns: 40 },
    )
  })
})

describe("what the replay keeps of what the recording answered", () => {
  const lease = (q: Question) =>
    q.q === "lease-holder" ? { ok: true, value: { mine: true, holder: "ctl-a" } } : undefined

  it("a plan named without the build before it teaches only its own build", () => {
    const { previousBuild: _none, ...old } = settled
    const day = replay([header(), ...liveTick(0, [old]).lines])
    expect([...day.state.builds.entries()]).toEqual([
      ["letta-205", { build: "letta-205", module: "letta", commit: "5e1f0c2a9b" }],
    ])
  })

  it("builds that could not be read teach nothing: the abort then finds no build to put back", () => {
    const t0 = liveTick(0, [settled])
    const abort = recorded(
      verbLine(1, "abort"),
      1,
      operatorVerb(command(1, "abort"), gate),
      (q) =>
        lease(q) ??
        (q.q === "plan-of"
          ? { ok: true, value: lastSaved(t0.exchanges) }
          : q.q === "builds"
            ? { ok: false, why: "builds: timeout" }
            : undefined),
    )
    const day = replay([header(), ...t0.lines, ...abort.lines])
    expect(day.state.counts).toMatchObject({ inferred: 0, differed: 0, unasked: 0 })
    expect(actsOf(day.decisions).find((d) => d.act.q === "set-rollback")?.act).toMatchObject({
      q: "set-rollback",
      build: "letta-205",
      rollback: "not-rolled-back",
      why: expect.stringMatching(/^aborted by alice at 2026-12-03T08:00:01Z: looks fine; NOT put back: /),
    })
  })

  it("a verdict the store kept for another is not this controller's: the next asked of that build, inferred, is", () => {
    const t0 = liveTick(0, [settled])
    const promote = recorded(
      verbLine(1, "promote"),
      1,
      operatorVerb(command(1, "promote"), gate),
      (q) =>
        lease(q) ??
        (q.q === "plan-of"
          ? { ok: true, value: lastSaved(t0.exchanges) }
          : q.q === "record-verdict"
            ? { ok: true, mine: false }
            : q.q === "verdict-of"
              ? { ok: true, value: null }
              : undefined),
    )
    expect(promote.said.at(-1)).toBe(
      "[plans] promote letta-205 by alice: refused: plan letta-205's build has a verdict kept already: it is not promoted",
    )
    const other: PlanRecord = { ...settled, id: "letta-205-b", sentAt: ms(2), triedAt: ms(2) }
    const day = replay([
      header(),
      ...t0.lines,
      ...promote.lines,
      ...liveTick(2, [other]).lines,
      verbLine(3, "promote", "letta-205-b"),
    ])
    expect([...day.state.verdicts]).toEqual(["letta-205"])
    expect(verdictsOf(day.decisions)).toEqual([
      [ms(1), "letta-205", "passed", true],
      [ms(3), "letta-205", "passed", false],
    ])
    expect(actsOf(day.decisions).find((d) => d.at === ms(3) && d.act.q === "record-verdict")?.answer).toEqual({
      ok: true,
      mine: true,
    })
  })

  it("a plan the recording reopened is last saved open by the recorded controller", () => {
    const failed: PlanRecord = { ...settled, state: "failed", note: "letta-205 could not be sent" }
    const retry = recorded(
      verbLine(0, "retry"),
      0,
      operatorVerb(command(0, "retry"), gate),
      (q) =>
        lease(q) ??
        (q.q === "plan-of"
          ? { ok: true, value: failed }
          : q.q === "plans-in-flight"
            ? { ok: true, value: [] }
            : q.q === "verdict-of"
              ? { ok: true, value: null }
              : undefined),
    )
    const day = replay([header(), ...retry.lines])
    expect(day.state.counts).toMatchObject({ inferred: 0, differed: 0, unasked: 0 })
    const reopened = retry.exchanges.flatMap((e) => (e.question.q === "reopen-plan" ? [e.question.plan] : []))
    expect(reopened).toHaveLength(1)
    expect(day.state.savedLive.get("letta-205")).toEqual({
      json: expect.stringContaining('"state":"open"'),
      open: true,
    })
    expect(JSON.parse(day.state.savedLive.get("letta-205")!.json)).toEqual(reopened[0])
  })

  it("a plan the recorded controller closed, read again in flight as another wrote it, is the other's: sent on as live", () => {
    const t0 = liveTick(0, [settled])
    const t1 = liveTick(1, [lastSaved(t0.exchanges)])
    const closed = lastSaved(t1.exchanges)
    expect(closed.state).toBe("passed")
    // Another controller's write: the plan sending again, hq-2 not sent.
    const theirs: PlanRecord = {
      ...closed,
      state: "sending",
      sent: ["hq-1"],
      note: "sending the rest (ctl-b)",
      triedAt: ms(-5),
    }
    const t2 = liveTick(2, [theirs])
    const day = replay([header(), ...t0.lines, ...t1.lines, ...t2.lines])
    expect(day.state.counts).toMatchObject({ inferred: 0, differed: 0, unasked: 0 })
    expect(actsOf(day.decisions.filter((d) => d.at === ms(2))).map((d) => d.act.q)).toEqual(["send-plan", "save-plan"])
  })

  it("a condition the probe raises over no machine names none", () => {
    const failedVerdict = {
      build: "letta-203",
      module: "letta",
      commit: "c0ffee0a2b",
      previous: "a71c3d09e4",
      plan: "letta-203",
      machines: [],
      verdict: "failed",
      rollback: "not-rolled-back",
      why: "not healthy within 10m0s",
      component: "",
      judgingFrom: ms(-600),
    }
    const t0 = recorded(tickLine(0), 0, gateTick(gate), (q) =>
      q.q === "plans-in-flight"
        ? { ok: true, value: [settled] }
        : q.q === "gate-facts"
          ? factsAt(0)
          : q.q === "latest-verdicts"
            ? { ok: true, value: [failedVerdict] }
            : undefined,
    )
    expect(t0.exchanges.some((e) => e.question.q === "raise-condition")).toBe(true)
    const day = replay([header(), ...t0.lines])
    const open = day.state.lastFacts?.open
    expect(open?.ok).toBe(true)
    if (open?.ok !== true) return
    expect(open.value).toHaveLength(1)
    expect(open.value[0]).toMatchObject({ source: "DG", raised: ms(0), also: [] })
    expect(Object.hasOwn(open.value[0]!, "machine")).toBe(false)
  })
})
