// The controller's page (core/src/controller/page.ts): what it folds never loses a mark, a failed
// verdict or a rollback, and what a log says is escaped before it reaches the page.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  controllerPage,
  controllerRow,
  drawnMarks,
  type MarkKind,
  type PageMark,
} from "@mesh-core/core/controller/page"

const kinds: ReadonlyArray<MarkKind> = ["judging", "verdict", "rollback", "send", "verb"]
const mark: fc.Arbitrary<PageMark> = fc.record({
  at: fc.integer({ min: 0, max: 7 * 86_400_000 }),
  plan: fc.constantFrom("a", "b"),
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
    for (let t = 0; t < week; t += 40_000) marks.push({ at: t, plan: "a", kind: "judging", line: "j", failed: false })
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
          marks: [{ at: 0, plan: "p<1>", kind: "judging", line, failed: false }],
          conditions: [],
          first: 0,
          last: 1000,
        }),
      ],
    })
    expect(page).not.toContain("<script>")
    expect(page).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; more")
    expect(page).toContain("p&lt;1&gt;")
  })
})
