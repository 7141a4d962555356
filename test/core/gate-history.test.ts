// A plan's judging history (issue 10, Argo's measurementRetention): bounded per plan, the order
// kept, nothing dropped but the oldest of the middle; and `plans show` as a timeline.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { HistoryEntry, HistoryRecord } from "@mesh-core/core/gate/plan/records"
import { emptyHistory, entriesOf, historyFirst, historyNewest, keepEntry } from "@mesh-core/core/gate/plan/history"
import { planShow } from "@mesh-core/core/gate/plan/plan-show"
import { basePlan, ok, run, settings, verb, type Step } from "./gate-world.ts"

const entry: fc.Arbitrary<HistoryEntry> = fc.oneof(
  fc.record({
    kind: fc.constant("judging" as const),
    at: fc.nat(),
    tier: fc.nat({ max: 3 }),
    word: fc.constantFrom("healthy" as const, "not-yet" as const, "broken" as const, "could-not-ask" as const),
    why: fc.string({ maxLength: 8 }),
    passes: fc.nat({ max: 5 }),
  }),
  fc.record({
    kind: fc.constant("verb" as const),
    at: fc.nat(),
    verb: fc.constantFrom("pause" as const, "resume" as const),
    by: fc.constant("alice"),
    why: fc.string({ maxLength: 8 }),
  }),
)

describe("the history is bounded", () => {
  it("keeps the first 5 and the newest 50 of any entries, in order, counting exactly those dropped between them", () => {
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 140 }), (all) => {
        // Tagged so equal entries are told apart.
        const tagged = all.map((e, i) => ({ ...e, at: i }))
        const h = tagged.reduce<HistoryRecord>(keepEntry, emptyHistory)
        const kept = entriesOf(h)
        // The model: everything while it fits; past that, the first 5 and the last 50.
        const expected =
          tagged.length <= historyFirst + historyNewest
            ? tagged
            : [...tagged.slice(0, historyFirst), ...tagged.slice(-historyNewest)]
        expect(kept).toEqual(expected)
        expect(kept.length).toBeLessThanOrEqual(historyFirst + historyNewest)
        expect(h.dropped + kept.length).toBe(tagged.length)
      }),
      { numRuns: 300 },
    )
    expect(entriesOf(undefined)).toEqual([])
  })
})

describe("plans show", () => {
  it("lists every judging of a failed release, one line each, the verdict on the last, and the verbs given", () => {
    const bad: Step = { kind: "tick", reaches: ["hq-1", "hq-2", "hq-3", "hq-4", "hq-5"], refuse: ["hq-1"] }
    const r = run([ok, ok, verb("pause", "alice", "looking"), verb("resume", "bob"), bad, ok])
    expect(r.plan.state).toBe("failed")
    const shown = planShow(r.plan, settings)
    const judged = r.saves.filter((s) => s.plan.gate !== undefined && s.plan.history !== undefined)
    const timeline = shown.lines.filter((l) => /^ {2}\d{4}-/.test(l))
    const entries = entriesOf(r.plan.history)
    expect(timeline).toHaveLength(entries.length)
    expect(entries.map((e) => e.kind)).toEqual(["judging", "verb", "verb", "judging"])
    expect(timeline[0]).toBe("  1970-01-01T00:00:02Z  tier 1        healthy                 pass 1")
    expect(timeline[1]).toBe("  1970-01-01T00:00:03Z  by alice      PAUSE                   looking")
    expect(timeline[3]).toBe(
      "  1970-01-01T00:00:05Z  tier 1        broken → FAILED         hq-1 refused what it was sent",
    )
    expect(judged.length).toBeGreaterThan(0)
    expect(shown.json).toMatchObject({
      id: "letta-205",
      state: "failed",
      history: { dropped: 0, keptFirst: 5, keptNewest: 50 },
    })
    expect((shown.json.history as { entries: ReadonlyArray<unknown> }).entries).toHaveLength(4)
    // Paused, `plans` and `plans show` say so under the plan's first line, by whom and why.
    const paused = run([ok, ok, verb("pause", "alice", "looking")])
    expect(planShow(paused.plan, settings).lines.slice(0, 2)).toEqual([
      "letta-205: letta letta-205, open",
      "  PAUSED by alice at 1970-01-01T00:00:03Z: looking — `plans resume letta-205` goes on",
    ])
  })

  it("says how many were dropped between the first and the newest, once, where they were", () => {
    const many = Array.from(
      { length: 60 },
      (_, i): HistoryEntry => ({
        kind: "judging",
        at: i * 1_000,
        tier: 0,
        word: "not-yet",
        why: `wait ${i}`,
        passes: 0,
      }),
    )
    const history = many.reduce<HistoryRecord>(keepEntry, emptyHistory)
    const lines = planShow({ ...basePlan, history }, settings).lines
    const at = lines.findIndex((l) => l.includes("between these not kept"))
    expect(lines[at]).toBe("  … 5 entries between these not kept (a plan keeps its first 5 and its newest 50)")
    expect(lines[at - 1]).toContain("wait 4")
    expect(lines[at + 1]).toContain("wait 10")
  })
})
