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
import { replayControllerLog } from "@mesh-core/core/controller/replay"
import { recordDay } from "../../examples/controller-world.ts"
import { controllerDay } from "../support/controller-days.ts"

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
    expect(drawn.reduce((a, d) => a + d.count, 0)).toBe(marks.length)
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
