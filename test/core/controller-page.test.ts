// The controller's page (core/src/controller/page.ts): what it folds never loses a mark, a failed
// verdict or a rollback; marks of one band never overlap; every judging a controller said on a real
// recorded day is drawn once, in its plan's lane for the tier it judged; and what a log says is
// escaped before it reaches the page.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  controllerPage,
  controllerRow,
  drawnMarks,
  type MarkKind,
  type PageMark,
  pageGatherer,
  placedMarks,
} from "@mesh-core/core/controller/page"
import type { ControllerDecision, ProgramInput } from "@mesh-core/core/controller/replay"
import { replayControllerLog } from "../support/replay-controller.ts"
import { gateProbe } from "@mesh-core/core/gate/judging/facts"
import { recordDay } from "../../examples/controller-world.ts"
import { controllerDay } from "../support/controller-days.ts"
import { gateOpened, lettaPlan } from "../support/plan-records.ts"

const kinds: ReadonlyArray<MarkKind> = ["judging", "verdict", "rollback", "send", "verb"]
const mark: fc.Arbitrary<PageMark> = fc.record({
  at: fc.integer({ min: 0, max: 7 * 86_400_000 }),
  plan: fc.constantFrom("a", "b"),
  lane: fc.constantFrom("tier 1 (hq-1)", "tier 2 (hq-2)"),
  kind: fc.constantFrom(...kinds),
  line: fc.string(),
  failed: fc.boolean(),
})

describe("the controller's page", () => {
  it("folds marks without losing one: the counts add up per kind, and every failed mark is drawn alone", () => {
    fc.assert(
      fc.property(fc.array(mark, { maxLength: 300 }), fc.integer({ min: 1, max: 3_600_000 }), (marks, apart) => {
        const drawn = drawnMarks(marks, apart)
        for (const k of kinds) {
          const want = marks.filter((m) => m.kind === k).length
          expect(drawn.filter((d) => d.kind === k).reduce((a, d) => a + d.count, 0)).toBe(want)
        }
        const failed = marks.filter((m) => m.failed).length
        expect(drawn.filter((d) => d.failed && d.count === 1).length).toBe(failed)
        expect(drawn.every((d) => !d.failed || d.count === 1)).toBe(true)
      }),
    )
  })

  it("a week of judgings every 40 s is drawn as at most one mark per 4 pixels", () => {
    const week = 7 * 86_400_000
    const marks: Array<PageMark> = []
    for (let t = 0; t < week; t += 40_000)
      marks.push({ at: t, plan: "a", lane: "tier 1 (hq-1)", kind: "judging", line: "j", failed: false })
    const drawn = drawnMarks(marks, (4 / 930) * week)
    expect(drawn.length).toBeLessThanOrEqual(Math.ceil(930 / 4) + 1)
    // Not fewer either: each drawn mark holds less than 4 pixels of them.
    expect(drawn.length).toBeGreaterThanOrEqual(Math.floor(week / ((4 / 930) * week + 40_000)))
    expect(drawn.reduce((a, d) => a + d.count, 0)).toBe(marks.length)
  })

  it("folds only marks closer than `apart` to the first of their mark: drawn marks of one kind are `apart` or more apart, and each counts exactly the marks from its time to the next one's", () => {
    fc.assert(
      fc.property(fc.array(mark, { maxLength: 120 }), fc.integer({ min: 1, max: 86_400_000 }), (marks, apart) => {
        const drawn = drawnMarks(marks, apart)
        for (const k of kinds) {
          const ours = marks.filter((m) => m.kind === k && !m.failed)
          const starts = drawn.filter((d) => d.kind === k && !d.failed).map((d) => d.at)
          // In time order, each a mark's own time, the next `apart` or more after it.
          expect(starts).toEqual([...starts].sort((a, b) => a - b))
          for (const s of starts) expect(ours.some((m) => m.at === s)).toBe(true)
          for (let i = 1; i < starts.length; i++) expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(apart)
          drawn
            .filter((d) => d.kind === k && !d.failed)
            .forEach((d, i) => {
              const upTo = starts[i + 1] ?? Number.POSITIVE_INFINITY
              const inIt = ours.filter((m) => m.at >= d.at && m.at < upTo)
              expect(d.count).toBe(inIt.length)
              // None drawn `apart` or more from where it happened.
              for (const m of inIt) expect(m.at - d.at).toBeLessThan(apart)
            })
        }
      }),
    )
  })

  it("a folded mark says how many, from when, and the last one's line; marks given in any order", () => {
    const j = (at: number, line: string): PageMark => ({
      at,
      plan: "a",
      lane: "tier 1 (hq-1)",
      kind: "judging",
      line,
      failed: false,
    })
    const t = Date.parse("2026-12-05T09:00:00Z")
    const drawn = drawnMarks(
      [j(t + 61_000, "third"), j(t, "first"), j(t + 30_000, "second"), j(t + 60_000, "alone")],
      60_000,
    )
    expect(drawn).toEqual([
      { at: t, kind: "judging", count: 2, failed: false, line: "2 judgings from 2026-12-05T09:00:00Z; last: second" },
      {
        at: t + 60_000,
        kind: "judging",
        count: 2,
        failed: false,
        line: "2 judgings from 2026-12-05T09:01:00Z; last: third",
      },
    ])
  })

  it("a mark is centred on its time unless the mark before it in its band is in the way; a lone judging thin, every other mark wide", () => {
    const d = (at: number, kind: MarkKind, count = 1) => ({ at, kind, count, failed: false, line: "l" })
    const x = (t: number) => 100 + t / 1000
    const placed = placedMarks(
      [d(1_000, "judging"), d(0, "judging"), d(0, "verdict"), d(50_000, "judging", 3), d(50_000, "send")],
      x,
    )
    expect(placed.map((p) => [p.at, p.kind, p.band, p.left, p.width])).toEqual([
      [0, "judging", 0, 99, 2],
      [0, "verdict", 1, 97.5, 5],
      // Its centre would be at 101: moved right of the one before, a pixel apart.
      [1_000, "judging", 0, 102, 2],
      [50_000, "judging", 0, 147.5, 5],
      [50_000, "send", 3, 147.5, 5],
    ])
  })

  it("escapes what a log says", () => {
    const line = `[gate] <script>alert("x")</script> & more`
    const page = controllerPage({
      file: "<f>.jsonl",
      rows: [
        controllerRow("as recorded", {
          marks: [{ at: 0, plan: "p<1>", lane: "tier 1 (hq-<1>)", kind: "judging", line, failed: false }],
          conditions: [],
          first: 0,
          last: 1000,
        }),
      ],
    })
    expect(page).not.toContain("<script>")
    expect(page).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; more")
    expect(page).toContain("p&lt;1&gt;")
    expect(page).toContain("tier 1 (hq-&lt;1&gt;)")
  })

  it("marks of one band never overlap, and none is drawn left of its own time", () => {
    fc.assert(
      fc.property(fc.array(mark, { maxLength: 200 }), fc.integer({ min: 1, max: 600_000 }), (marks, apart) => {
        const x = (t: number) => 260 + (t / (7 * 86_400_000)) * 930
        const placed = placedMarks(drawnMarks(marks, apart), x)
        const byBand = new Map<number, Array<(typeof placed)[number]>>()
        for (const p of placed) byBand.set(p.band, [...(byBand.get(p.band) ?? []), p])
        for (const band of byBand.values()) {
          const sorted = [...band].sort((a, b) => a.left - b.left)
          for (let i = 1; i < sorted.length; i++)
            expect(sorted[i]!.left).toBeGreaterThanOrEqual(sorted[i - 1]!.left + sorted[i - 1]!.width)
        }
        for (const p of placed) expect(p.left).toBeGreaterThanOrEqual(x(p.at) - p.width / 2 - 1e-9)
      }),
    )
  })

  it("on a recorded day, every judging, verdict, rollback and send the controller made live is drawn once, in its plan's lane for its tier, inside that lane", () => {
    // As said and done live (the recording's own words and acts, not the replay's): the plan, the
    // tier's machines, what it found; a rollback's summary; each send of a plan and why.
    const judged = /^\[gate\] ([^:]+): [^:]*: gate on ([^:]+): (judging|passed|FAILED)/
    const rolledBack = /^\[gate\] \S+'s build \S+ failed its gate on .+ and was (put back|NOT put back)/
    const seen = { judgings: 0, failed: 0, rollbacks: 0, sends: 0, conditions: 0 }
    const add = (m: Map<string, number>, key: string, n = 1) => m.set(key, (m.get(key) ?? 0) + n)
    fc.assert(
      fc.property(controllerDay, (script) => {
        const day = recordDay(script)
        const want = new Map<string, number>()
        let rollbacks = 0
        let failed = 0
        let passed = 0
        for (const program of day.programs) {
          for (const line of program.said) {
            const j = judged.exec(line)
            if (j !== null) {
              add(
                want,
                `${j[1]} ${j[2]} ${j[3] === "judging" ? "judging" : j[3] === "passed" ? "verdict" : "verdict failed"}`,
              )
              if (j[3] === "FAILED") failed++
              if (j[3] === "passed") passed++
            } else if (rolledBack.test(line)) rollbacks++
          }
          for (const act of program.acts) {
            if (act.q !== "send-plan") continue
            seen.sends++
            // A tier's send in the tier's lane, the rest's in their own; a rollback's in the lane of the tier that failed.
            if (act.why === "rollback") add(want, `${act.plan} rollback-send`)
            else
              add(
                want,
                `${act.plan} ${act.why === "tier" ? act.machines.join(", ") : act.why === "rest" ? "the rest" : "sent by a person"} send`,
              )
          }
        }
        const replay = replayControllerLog(day.lines)
        if (!replay.ok) throw new Error(replay.bad.problem)
        const gatherer = pageGatherer()
        for (const program of replay.day.programs) gatherer.add(program)
        const page = controllerPage({ file: "day", rows: [controllerRow("as recorded", gatherer.result())] })
        // Each lane's text: from its group to the next lane's, a condition's or the picture's end.
        const lanes = [
          ...page.matchAll(
            /<g class="plan" data-name="([^"]*)" data-lane="([^"]*)">([\s\S]*?)(?=<g class="(?:plan|condition)"|<\/svg>)/g,
          ),
        ]
        const drawn = new Map<string, number>()
        let rollbackMarks = 0
        for (const [, plan, lane, body] of lanes) {
          const where = /^tier \d+ \((.*)\)$/.exec(lane!)?.[1] ?? lane!
          const laneRect = /<rect class="lane" x="[\d.]+" y="([\d.]+)" width="[\d.]+" height="([\d.]+)"\/>/.exec(body!)!
          const [top, bottom] = [Number(laneRect[1]), Number(laneRect[1]) + Number(laneRect[2])]
          // A rollback is drawn in the lane of the tier it puts back: the one that failed, or was
          // aborted; a plan aborted before any tier was judged, in its own "put back" lane.
          const aTier = lane!.startsWith("tier ") || lane === "put back"
          for (const m of body!.matchAll(
            /<g class="mark (judging|verdict failed|verdict|rollback failed|send failed|send)( aggregate)?" data-row="0" data-count="(\d+)" data-at="\d+"><rect x="[\d.-]+" y="([\d.]+)" width="[\d.]+" height="([\d.]+)"\/>/g,
          )) {
            const [kind, count, y, height] = [m[1]!, Number(m[3]), Number(m[4]), Number(m[5])]
            // Inside its lane, top to bottom.
            expect(y, `${plan} ${lane} ${kind}`).toBeGreaterThanOrEqual(top)
            expect(y + height, `${plan} ${lane} ${kind}`).toBeLessThanOrEqual(bottom)
            if (kind === "rollback failed") {
              rollbackMarks += count
              expect(aTier, `${plan}'s rollback drawn in ${lane}`).toBe(true)
            } else if (kind === "send failed") {
              add(drawn, `${plan} rollback-send`, count)
              expect(aTier, `${plan}'s rollback send drawn in ${lane}`).toBe(true)
            } else add(drawn, `${plan} ${where} ${kind}`, count)
          }
        }
        expect(drawn).toEqual(want)
        expect(rollbackMarks).toBe(rollbacks)
        // Each condition raised live is a span until it was cleared, or to the end while still raised.
        const open = new Set<string>()
        const spans = new Map<string, number>()
        for (const act of day.programs.flatMap((p) => p.acts)) {
          if (act.q === "raise-condition" && !open.has(act.observation.key)) {
            open.add(act.observation.key)
            add(spans, act.observation.key)
          } else if (act.q === "clear-condition") open.delete(act.key)
        }
        const drawnSpans = new Map<string, number>()
        for (const [, key, body] of page.matchAll(
          /<g class="condition" data-name="([^"]*)">([\s\S]*?)(?=<g class="(?:plan|condition)"|<\/svg>)/g,
        ))
          add(drawnSpans, key!, [...body!.matchAll(/<rect class="span" data-row="0"/g)].length)
        expect(drawnSpans).toEqual(spans)
        expect([...page.matchAll(/still raised at the end/g)].length).toBe(open.size)
        seen.conditions += spans.size
        // The table's figures are the day's.
        expect(page).toContain(`<tr class="row" data-row="0" data-failed="${failed}" data-rollbacks="${rollbacks}">`)
        expect(page).toMatch(new RegExp(`data-rollbacks="${rollbacks}"><td>as recorded</td><td>${passed}</td>`))
        seen.judgings += [...want].filter(([k]) => k.endsWith(" judging")).length
        seen.failed += failed
        seen.rollbacks += rollbacks
      }),
      { numRuns: 30 },
    )
    // The days drew each kind, so each part of the model was held to something.
    expect(seen.judgings).toBeGreaterThan(10)
    expect(seen.failed).toBeGreaterThan(0)
    expect(seen.rollbacks).toBeGreaterThan(0)
    expect(seen.sends).toBeGreaterThan(0)
    expect(seen.conditions).toBeGreaterThan(0)
  })
})

// Decisions as the replay gives them, written by hand: what a program said and the acts it asked for.
type Decision = ControllerDecision
const said = (at: number, line: string, input: ProgramInput = "tick"): Decision => ({ at, input, kind: "said", line })
const act = (at: number, q: Extract<Decision, { kind: "act" }>["act"], input: ProgramInput = "tick") =>
  ({ at, input, kind: "act", act: q, answer: { ok: true }, recorded: true }) satisfies Decision
const saved = (at: number, verdict: "" | "failed" | "passed") =>
  act(at, { q: "save-plan", plan: lettaPlan({ gate: gateOpened({ verdict }) }) })
const probeRaised = (at: number, summary: string) =>
  act(at, {
    q: "raise-condition",
    at,
    observation: {
      key: `rolled-back.${at}`,
      scope: "machine",
      id: "hq-1",
      kind: "rolled-back",
      machine: "hq-1",
      also: [],
      severity: "urgent",
      source: gateProbe,
      summary,
    },
  })
const raised = (at: number, key: string) =>
  act(at, {
    q: "raise-condition",
    at,
    observation: {
      key,
      scope: "machine",
      id: "hq-1",
      kind: "unhealthy",
      machine: "hq-1",
      also: [],
      severity: "warning",
      source: "DH",
      summary: `${key} raised`,
    },
  })
const cleared = (at: number, key: string) => act(at, { q: "clear-condition", key, by: "DH" })
const sent = (
  at: number,
  plan: string,
  why: "tier" | "rest" | "rollback" | "user-list",
  machines: ReadonlyArray<string>,
) => act(at, { q: "send-plan", plan, module: "letta", why, machines })

describe("the page's model of a day, from decisions written by hand", () => {
  it("a tier's lane is named by its machines, numbered in the order its plan first reached it, whatever order they are named in", () => {
    const g = pageGatherer()
    g.add([sent(1_000, "letta-205", "tier", ["a", "bc"])])
    g.add([saved(2_000, ""), said(2_000, "[gate] letta-205: letta: gate on bc, a: judging, 1 of 3 passes")])
    g.add([sent(3_000, "letta-205", "tier", ["ab", "c"]), sent(3_000, "letta-205", "rest", ["d"])])
    g.add([sent(4_000, "letta-205", "user-list", ["e"])])
    const { marks, first, last } = g.result()
    expect(marks.map((m) => [m.at, m.plan, m.lane, m.kind, m.line, m.failed])).toEqual([
      [1_000, "letta-205", "tier 1 (a, bc)", "send", "send of letta-205 (tier) to a, bc", false],
      [
        2_000,
        "letta-205",
        "tier 1 (a, bc)",
        "judging",
        "[gate] letta-205: letta: gate on bc, a: judging, 1 of 3 passes",
        false,
      ],
      [3_000, "letta-205", "tier 2 (ab, c)", "send", "send of letta-205 (tier) to ab, c", false],
      [3_000, "letta-205", "the rest", "send", "send of letta-205 (rest) to d", false],
      [4_000, "letta-205", "sent by a person", "send", "send of letta-205 (user-list) to e", false],
    ])
    expect([first, last]).toEqual([1_000, 4_000])
  })

  it("a failed verdict, its rollback and the rollback's send in the failed tier's lane; a rollback before any tier was judged in a lane of its own", () => {
    const g = pageGatherer()
    g.add([]) // a program that decided nothing draws nothing
    g.add([saved(5_000, ""), said(5_000, "[gate] letta-205: letta: gate on hq-1: judging, 1 of 3 passes")])
    g.add([
      saved(6_000, "failed"),
      said(6_000, "[gate] letta-205: letta: gate on hq-1: FAILED, crash loop"),
      probeRaised(6_000, "letta-205 put back on hq-1"),
      said(6_000, "[gate] letta-205 put back on hq-1"),
      sent(6_000, "letta-205", "rollback", ["hq-1"]),
    ])
    g.add([saved(6_500, ""), said(6_500, "[gate] letta-205: letta: waiting for hq-1's report")])
    g.add([probeRaised(7_000, "nothing judged, put back"), said(7_000, "[gate] nothing judged, put back")])
    g.add([
      sent(8_000, "other-1", "rollback", ["hq-9"]),
      probeRaised(8_000, "other-1 put back"),
      said(8_000, "[gate] other-1 put back"),
    ])
    expect(g.result().marks.map((m) => [m.at, m.plan, m.lane, m.kind, m.failed])).toEqual([
      [5_000, "letta-205", "tier 1 (hq-1)", "judging", false],
      [6_000, "letta-205", "tier 1 (hq-1)", "verdict", true],
      // The rollback's plan is the one its program judged, in the lane of the tier it failed on.
      [6_000, "letta-205", "tier 1 (hq-1)", "rollback", true],
      [6_000, "letta-205", "tier 1 (hq-1)", "send", true],
      // A judging's line that names no tier is the plan's own, in the gate's lane.
      [6_500, "letta-205", "gate", "judging", false],
      // No plan judged or sent in the program: the gate's own, put back.
      [7_000, "gate", "put back", "rollback", true],
      [8_000, "other-1", "put back", "send", true],
      [8_000, "other-1", "put back", "rollback", true],
    ])
    expect(g.result().first).toBe(5_000)
  })

  it("an operator's verb is one mark at its program's time, whatever it said; conditions are spans from the first raise to the clear", () => {
    const g = pageGatherer()
    g.add([raised(1_000, "a.unhealthy"), raised(1_000, "b.unhealthy")])
    g.add([raised(2_000, "a.unhealthy"), cleared(2_500, "never-raised")])
    g.add([said(3_000, "[gate] letta-205 paused by alice", "verb"), cleared(3_000, "a.unhealthy")])
    g.add([said(4_000, "[controller] nothing to do")])
    const { marks, conditions, last } = g.result()
    expect(marks).toEqual([
      { at: 3_000, plan: "operator", lane: "verbs", kind: "verb", line: "an operator's verb", failed: false },
    ])
    expect(conditions).toEqual([
      { key: "a.unhealthy", from: 1_000, to: 3_000 },
      { key: "b.unhealthy", from: 1_000, to: undefined },
    ])
    expect(last).toBe(4_000)
  })
})

// What the page draws, read back from it: its groups (a plan's lane, or a condition), each row's lane
// rectangle, marks and spans, the time lines.
const num = (s: string | undefined) => Number(s)
const readPage = (page: string) => {
  const height = num(/<svg [^>]*height="([\d.]+)"/.exec(page)?.[1])
  const ticks = [
    ...page.matchAll(/<line class="tick" x1="[\d.-]+" y1="([\d.-]+)" x2="[\d.-]+" y2="([\d.-]+)"\/>/g),
  ].map((m) => ({ y1: num(m[1]), y2: num(m[2]) }))
  const groups = [
    ...page.matchAll(
      /<g class="(plan|condition)" data-name="([^"]*)"(?: data-lane="([^"]*)")?>([\s\S]*?)(?=<g class="(?:plan|condition)"|<\/svg>)/g,
    ),
  ].map(([, kind, name, lane, body]) => ({
    kind: kind!,
    name: name!,
    lane,
    body: body!,
    nameText: /<text class="name" x="[\d.]+" y="[\d.]+">([^<]*)<\/text>/.exec(body!)?.[1],
    laneLabel: /<text class="lane-label" x="[\d.]+" y="[\d.]+">([^<]*)<\/text>/.exec(body!)?.[1],
    rowLabels: [...body!.matchAll(/<text class="row-label" [^>]*>([^<]*)<\/text>/g)].map((m) => m[1]),
    lanes: [
      ...body!.matchAll(/<rect class="lane" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"\/>/g),
    ].map((m) => ({ x: num(m[1]), y: num(m[2]), width: num(m[3]), height: num(m[4]) })),
    marks: [
      ...body!.matchAll(
        /<g class="mark (\w+)( failed)?( aggregate)?" data-row="(\d+)" data-count="(\d+)" data-at="(\d+)"><rect x="([\d.-]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"\/>(?:<text class="count" x="([\d.-]+)" y="([\d.]+)">(\d+)<\/text>)?<title>([^<]*)<\/title><\/g>/g,
      ),
    ].map((m) => ({
      kind: m[1]!,
      failed: m[2] !== undefined,
      aggregate: m[3] !== undefined,
      row: num(m[4]),
      count: num(m[5]),
      at: num(m[6]),
      left: num(m[7]),
      top: num(m[8]),
      width: num(m[9]),
      height: num(m[10]),
      countText: m[13] === undefined ? undefined : { x: num(m[11]), y: num(m[12]), n: num(m[13]) },
    })),
    spans: [
      ...body!.matchAll(
        /<rect class="span" data-row="(\d+)" x="([\d.-]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"><title>([^<]*)<\/title><\/rect>/g,
      ),
    ].map((m) => ({ row: num(m[1]), x: num(m[2]), y: num(m[3]), width: num(m[4]), height: num(m[5]), title: m[6]! })),
  }))
  return { height, ticks, groups }
}

const hour = 3_600_000
const start = Date.parse("2026-12-05T09:00:00Z")
const dayOf = fc
  .record({
    marks: fc.array(
      fc.record({
        at: fc.integer({ min: start, max: start + hour }),
        plan: fc.constantFrom("letta-2", "letta-1", "grafana-7"),
        lane: fc.constantFrom("tier 1 (hq-1)", "tier 2 (hq-2, hq-3)", "the rest"),
        kind: fc.constantFrom(...kinds),
        line: fc.constantFrom("[gate] a line", "a send"),
        failed: fc.boolean(),
      }),
      { maxLength: 40 },
    ),
    conditions: fc.array(
      fc
        .record({
          key: fc.constantFrom("c.unhealthy", "a.rolled-back", "b.schema"),
          from: fc.integer({ min: start, max: start + hour }),
          for: fc.option(fc.integer({ min: 0, max: hour }), { nil: undefined }),
        })
        .map((c) => ({
          key: c.key,
          from: c.from,
          to: c.for === undefined ? undefined : Math.min(start + hour, c.from + c.for),
        })),
      { maxLength: 4 },
    ),
    // And a burst of judgings seconds apart (a few pixels), which folds them.
    burst: fc.record({
      from: fc.integer({ min: start, max: start + hour - 64_000 }),
      gaps: fc.array(fc.integer({ min: 0, max: 8_000 }), { maxLength: 8 }),
    }),
    edges: fc.tuple(fc.integer({ min: 0, max: 60_000 }), fc.integer({ min: 0, max: 60_000 })),
  })
  // The day runs from a little before its first mark or span to a little after its last.
  .map(({ marks: spread, burst, conditions, edges: [before, after] }) => {
    const marks = [
      ...spread,
      ...burst.gaps.map((_, i) => ({
        at: burst.from + burst.gaps.slice(0, i + 1).reduce((a, b) => a + b, 0),
        plan: "letta-1",
        lane: "tier 1 (hq-1)",
        kind: "judging" as const,
        line: "[gate] judging",
        failed: false,
      })),
    ]
    return {
      marks,
      conditions,
      first: Math.min(start + hour, ...marks.map((m) => m.at), ...conditions.map((c) => c.from)) - before,
      last: start + hour + after,
    }
  })

describe("the controller's page, drawn", () => {
  it("each plan's lanes by plan and then first reached, the conditions after by key; every lane of every row stacked without overlap, the time lines across them all", () => {
    fc.assert(
      fc.property(fc.array(dayOf, { minLength: 1, maxLength: 3 }), (days) => {
        const rows = days.map((d, i) => controllerRow(`point ${i + 1}`, d))
        const page = controllerPage({ file: "day.jsonl", rows })
        const { height, ticks, groups } = readPage(page)
        // The groups: one per plan and lane drawn, in order; then one per condition key.
        const all = days.flatMap((d) => d.marks)
        const firstReached = (plan: string, lane: string) =>
          Math.min(...all.filter((m) => m.plan === plan && m.lane === lane).map((m) => m.at))
        const planGroups = groups.filter((g) => g.kind === "plan")
        expect(new Set(planGroups.map((g) => `${g.name}/${g.lane}`))).toEqual(
          new Set(all.map((m) => `${m.plan}/${m.lane}`)),
        )
        expect(planGroups.length).toBe(new Set(all.map((m) => `${m.plan}/${m.lane}`)).size)
        for (let i = 1; i < planGroups.length; i++) {
          const [a, b] = [planGroups[i - 1]!, planGroups[i]!]
          expect(a.name <= b.name).toBe(true)
          if (a.name === b.name)
            expect(firstReached(a.name, a.lane!)).toBeLessThanOrEqual(firstReached(b.name, b.lane!))
        }
        const keys = [...new Set(days.flatMap((d) => d.conditions.map((c) => c.key)))].sort()
        expect(groups.slice(planGroups.length).map((g) => [g.kind, g.name])).toEqual(keys.map((k) => ["condition", k]))
        // Every row's lane, under its name, stacked in row order; no two overlap, within the picture.
        const boxes = groups.flatMap((g) => g.lanes)
        expect(boxes.length).toBe(groups.length * rows.length)
        for (let i = 1; i < boxes.length; i++)
          expect(boxes[i]!.y).toBeGreaterThanOrEqual(boxes[i - 1]!.y + boxes[i - 1]!.height)
        for (const b of boxes) {
          expect([b.x, b.width]).toEqual([260, 930])
          expect(b.y).toBeGreaterThanOrEqual(28)
          for (const t of ticks) expect(t.y2).toBeGreaterThanOrEqual(b.y + b.height)
        }
        for (const t of ticks) expect(t.y2).toBeLessThanOrEqual(height)
        expect(ticks.length).toBeGreaterThan(0)
        // Named: a row's label beside each of its lanes when there are rows to tell apart; else the lane's name under the plan's.
        for (const g of groups) {
          if (rows.length > 1) {
            expect(g.rowLabels).toEqual(rows.map((r) => r.label))
            expect(g.nameText).toBe(g.lane === undefined ? g.name : `${g.name} · ${g.lane}`)
            expect(g.laneLabel).toBeUndefined()
          } else {
            expect(g.rowLabels).toEqual([])
            expect(g.nameText).toBe(g.name)
            expect(g.laneLabel).toBe(g.lane)
          }
        }
        // As many groups opened as closed.
        expect([...page.matchAll(/<g[ >]/g)].length).toBe([...page.matchAll(/<\/g>/g)].length)
      }),
      { numRuns: 60 },
    )
  })

  it("each mark at its time on the axis, in its row's lane, in its kind's band; the marks folded into it counted on it", () => {
    const bandOf: Readonly<Record<string, number>> = { judging: 0, verb: 0, verdict: 1, rollback: 2, send: 3 }
    let folded = 0
    fc.assert(
      fc.property(fc.array(dayOf, { minLength: 1, maxLength: 3 }), (days) => {
        const rows = days.map((d, i) => controllerRow(`point ${i + 1}`, d))
        const { groups } = readPage(controllerPage({ file: "day.jsonl", rows }))
        // The axis runs from the rows' earliest first fact to their latest last, across the lane's 930 pixels.
        const from = Math.min(...days.map((d) => d.first))
        const to = Math.max(...days.map((d) => d.last))
        const x = (t: number) => 260 + ((t - from) / (to - from)) * 930
        for (const g of groups) {
          const counted = new Map<string, number>()
          for (const m of g.marks) {
            const lane = g.lanes[m.row]!
            expect(m.top).toBe(lane.y + 7 * bandOf[m.kind]!)
            expect(m.height).toBe(7)
            expect(m.top + m.height).toBeLessThanOrEqual(lane.y + lane.height)
            // Never left of its own time (a mark that would touch the one before is moved right).
            expect(m.left + m.width / 2).toBeGreaterThanOrEqual(x(m.at) - 0.06)
            expect(m.aggregate).toBe(m.count > 1)
            if (m.count > 1) folded++
            expect(m.countText === undefined ? undefined : m.countText.n).toBe(m.count > 1 ? m.count : undefined)
            if (m.countText !== undefined) {
              expect(m.countText.x).toBeCloseTo(m.left + m.width + 1, 1)
              expect(m.countText.y).toBe(m.top + m.height)
            }
            const key = `${m.row} ${m.kind} ${m.failed}`
            counted.set(key, (counted.get(key) ?? 0) + m.count)
          }
          // The first mark of each band of a row stands at its own time.
          for (const row of rows.keys())
            for (const band of [0, 1, 2, 3]) {
              const first = g.marks
                .filter((m) => m.row === row && bandOf[m.kind] === band)
                .sort((a, b) => a.at - b.at)[0]
              if (first !== undefined) expect(first.left + first.width / 2).toBeCloseTo(x(first.at), 1)
            }
          if (g.kind === "condition") continue
          const want = new Map<string, number>()
          days.forEach((d, row) => {
            for (const m of d.marks.filter((m) => m.plan === g.name && m.lane === g.lane)) {
              const key = `${row} ${m.kind} ${m.failed}`
              want.set(key, (want.get(key) ?? 0) + 1)
            }
          })
          expect(counted).toEqual(want)
        }
      }),
      { numRuns: 60 },
    )
    // The days drew folded marks, so their counts were held to something.
    expect(folded).toBeGreaterThan(10)
  })

  it("a condition is a span from its raise to its clear, or to the end of the axis while still raised, with its times on it", () => {
    const from = start
    const to = start + hour
    const x = (t: number) => 260 + ((t - from) / hour) * 930
    const day = {
      marks: [],
      conditions: [
        { key: "a.unhealthy", from: start + 60_000, to: start + 60_000 + 754_400 },
        { key: "a.unhealthy", from: start + 1_800_000, to: start + 1_800_001 },
        { key: "b.rolled-back", from: start + 900_000, to: undefined },
      ],
      first: from,
      last: to,
    }
    const { groups } = readPage(controllerPage({ file: "day.jsonl", rows: [controllerRow("as recorded", day)] }))
    const spans = groups.flatMap((g) => g.spans.map((s) => ({ key: g.name, ...s })))
    expect(spans.map((s) => [s.key, s.title])).toEqual([
      ["a.unhealthy", "a.unhealthy: raised 2026-12-05T09:01:00Z, cleared 2026-12-05T09:13:34Z (12m34s)"],
      ["a.unhealthy", "a.unhealthy: raised 2026-12-05T09:30:00Z, cleared 2026-12-05T09:30:00Z (0s)"],
      ["b.rolled-back", "b.rolled-back: raised 2026-12-05T09:15:00Z, still raised at the end"],
    ])
    expect(spans[0]!.x).toBeCloseTo(x(start + 60_000), 1)
    expect(spans[0]!.width).toBeCloseTo(x(start + 60_000 + 754_400) - x(start + 60_000), 1)
    // A span too short to see is drawn 2 pixels wide.
    expect(spans[1]!.width).toBe(2)
    expect(spans[2]!.x + spans[2]!.width).toBeCloseTo(x(to), 1)
    for (const g of groups)
      for (const s of g.spans) {
        const lane = g.lanes[s.row]!
        expect(s.y).toBeGreaterThan(lane.y)
        expect(s.y + s.height).toBeLessThan(lane.y + lane.height)
      }
  })

  it("marks closer than 4 pixels are one mark with their count; 4 pixels apart, two", () => {
    // 930 pixels across 930 s: a pixel a second.
    const page = (gap: number) =>
      readPage(
        controllerPage({
          file: "day.jsonl",
          rows: [
            controllerRow("as recorded", {
              marks: [0, gap].map((t) => ({
                at: start + t,
                plan: "p",
                lane: "tier 1 (hq-1)",
                kind: "judging" as const,
                line: `j ${t}`,
                failed: false,
              })),
              conditions: [],
              first: start,
              last: start + 930_000,
            }),
          ],
        }),
      ).groups[0]!.marks.map((m) => [m.count, m.at - start])
    expect(page(3_999)).toEqual([[2, 0]])
    expect(page(4_000)).toEqual([
      [1, 0],
      [1, 4_000],
    ])
  })

  it("the page's title, its line of figures and its table: a row's failed verdicts marked bad", () => {
    const m = (at: number, plan: string, lane: string, kind: MarkKind, failed: boolean): PageMark => ({
      at,
      plan,
      lane,
      kind,
      line: "l",
      failed,
    })
    const rows = [
      controllerRow("passes=1", {
        marks: [m(start, "b-1", "tier 1 (hq-1)", "verdict", false), m(start + 1, "a-1", "the rest", "send", false)],
        conditions: [{ key: "k", from: start, to: undefined }],
        first: start,
        last: start + 90_000,
      }),
      controllerRow("passes=3", {
        marks: [
          m(start, "b-1", "tier 1 (hq-1)", "verdict", true),
          m(start + 5, "b-1", "tier 1 (hq-1)", "rollback", true),
          m(start + 9, "b-1", "tier 2 (hq-2)", "judging", false),
        ],
        conditions: [],
        first: start,
        last: start + 120_000,
      }),
    ]
    const page = controllerPage({ file: "day<1>.jsonl", rows })
    expect(page).toContain("<title>release gate: day&lt;1&gt;.jsonl</title>")
    expect(page).toContain(
      "<p>day&lt;1&gt;.jsonl · 2026-12-05T09:00:00Z to 2026-12-05T09:02:00Z (2m0s) · 2 plans in 3 lanes, 1 conditions</p>",
    )
    expect(page).toContain(
      `<tr class="row" data-row="0" data-failed="0" data-rollbacks="0"><td>passes=1</td><td>1</td><td class="">0</td><td>0</td></tr>`,
    )
    expect(page).toContain(
      `<tr class="row" data-row="1" data-failed="1" data-rollbacks="1"><td>passes=3</td><td>0</td><td class="bad">1</td><td>1</td></tr>`,
    )
    expect(page).toMatch(/<table><thead><tr><th>row<\/th>[\s\S]*<\/tbody><\/table>/)
  })

  it("a day with no facts is a page that says so, with no time line and nothing drawn off the picture", () => {
    for (const rows of [
      [controllerRow("as recorded", { marks: [], conditions: [], first: undefined, last: undefined })],
      [],
    ]) {
      const page = controllerPage({ file: "empty.jsonl", rows })
      expect(page).toContain("<p>empty.jsonl · no facts · 0 plans in 0 lanes, 0 conditions</p>")
      expect(page).not.toMatch(/NaN|Infinity|undefined/)
      expect(readPage(page).ticks).toEqual([])
    }
  })
})
