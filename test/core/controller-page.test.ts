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

  it("every judging and verdict a controller said on a recorded day is drawn once, in its plan's lane for the tier it judged", () => {
    // As said live (the recording's own words, not the replay's): the plan, the tier's machines, what it found.
    const judged = /^\[gate\] ([^:]+): [^:]*: gate on ([^:]+): (judging|passed|FAILED)/
    let judgings = 0
    fc.assert(
      fc.property(controllerDay, (script) => {
        const day = recordDay(script)
        const said = day.programs
          .flatMap((p) => p.said)
          .map((l) => judged.exec(l))
          .filter((m) => m !== null)
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
        for (const [, plan, lane, body] of lanes) {
          const machines = /^tier \d+ \((.*)\)$/.exec(lane!)?.[1]
          for (const m of body!.matchAll(/<g class="mark (judging|verdict)[^"]*" data-row="0" data-count="(\d+)"/g)) {
            const key = `${plan} ${machines}`
            drawn.set(key, (drawn.get(key) ?? 0) + Number(m[2]))
          }
        }
        const want = new Map<string, number>()
        for (const m of said) want.set(`${m[1]} ${m[2]}`, (want.get(`${m[1]} ${m[2]}`) ?? 0) + 1)
        expect(drawn).toEqual(want)
        judgings += said.length
      }),
      { numRuns: 30 },
    )
    expect(judgings).toBeGreaterThan(30)
  })
})
