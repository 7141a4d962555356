// `mesh-controller plans show ID` (issue 10) word for word: the timeline a person reads (each judging
// and verb on its line, the verdict on the judging that gave it, the entries not kept said where they
// were) and the `--json` shape scripts read. Both are contracts; a line that only *contains* a word
// would let the rest of it change unnoticed.
import { describe, expect, it } from "vitest"
import type { GateRecord, HistoryEntry, PlanRecord } from "@mesh-core/core/gate/plan/records"
import { planShow } from "@mesh-core/core/gate/plan/plan-show"
import { basePlan, settings } from "./gate-world.ts"

const entries: ReadonlyArray<HistoryEntry> = [
  { kind: "judging", at: 2_000, tier: 0, word: "healthy", why: "", passes: 1 },
  { kind: "judging", at: 3_000, tier: 0, word: "could-not-ask", why: "the store did not answer", passes: 1 },
  { kind: "verb", at: 4_000, verb: "paused-by-errors", by: "the gate", why: "" },
  { kind: "verb", at: 4_500, verb: "resume", by: "alice", why: "store back" },
  { kind: "judging", at: 5_000, tier: 1, word: "not-yet", why: "", passes: 0 },
  {
    kind: "judging",
    at: 6_000,
    tier: 1,
    word: "broken",
    why: "hq-2 refused what it was sent",
    passes: 0,
    decided: "failed",
  },
  { kind: "judging", at: 7_000, tier: 1, word: "healthy", why: "", passes: 3, decided: "passed" },
]
const tiers =
  "  tier 1 (hq-1) not sent, judging; tier 2 (hq-2, hq-3) not sent; tier 3 (hq-4) not sent; the rest (hq-5) not sent"

describe("plans show", () => {
  it("the timeline: when, the tier or who, what was found or done (the verdict on its judging), and why", () => {
    const p: PlanRecord = {
      ...basePlan,
      errors: 2,
      history: { first: entries.slice(0, 5), newest: entries.slice(5), dropped: 1 },
    }
    expect(planShow(p, settings).lines).toEqual([
      "letta-205: letta letta-205, open",
      tiers,
      "  gate on hq-1: not judged yet",
      "  history (8 entries, 1 judging that could not ask (measurement errors, not failures), 2 in a row now):",
      "  1970-01-01T00:00:02Z  tier 1        healthy                 pass 1",
      "  1970-01-01T00:00:03Z  tier 1        could not ask           the store did not answer",
      "  1970-01-01T00:00:04Z  by the gate   PAUSED                  -",
      "  1970-01-01T00:00:04Z  by alice      RESUME                  store back",
      "  1970-01-01T00:00:05Z  tier 2        not yet                 -",
      "  … 1 entry between these not kept (a plan keeps its first 5 and its newest 50)",
      "  1970-01-01T00:00:06Z  tier 2        broken → FAILED         hq-2 refused what it was sent",
      "  1970-01-01T00:00:07Z  tier 2        healthy → PASSED        pass 3",
    ])
  })

  it("counts one entry as one, judgings that could not ask as many, and says a plan not judged yet and a dry run", () => {
    const one = planShow({ ...basePlan, history: { first: [entries[0]!], newest: [], dropped: 0 } }, settings).lines
    expect(one.slice(-2)).toEqual([
      "  history (1 entry):",
      "  1970-01-01T00:00:02Z  tier 1        healthy                 pass 1",
    ])
    // Counted with the entries not kept: two kept and one dropped are three.
    expect(
      planShow({ ...basePlan, history: { first: [entries[0]!], newest: [entries[4]!], dropped: 1 } }, settings)
        .lines[3],
    ).toBe("  history (3 entries):")
    const two = planShow(
      { ...basePlan, history: { first: [entries[1]!, entries[1]!], newest: [], dropped: 0 } },
      settings,
    ).lines
    expect(two.at(-3)).toBe("  history (2 entries, 2 judgings that could not ask (measurement errors, not failures)):")
    expect(planShow({ ...basePlan, dryRun: true }, settings).lines).toEqual([
      "letta-205: letta letta-205, open (a dry run)",
      tiers,
      "  gate on hq-1: not judged yet",
      "  a dry run: it judges its first tier and says what it would have decided; nothing else is registered, held, sent or put back",
      "  history: not judged yet",
    ])
    expect(planShow(basePlan, settings).lines.at(-1)).toBe("  history: not judged yet")
  })

  it("--json: every field, times as RFC 3339, absent ones as null or 0", () => {
    const bare: PlanRecord = { ...basePlan }
    delete (bare as { previousBuild?: string }).previousBuild
    expect(planShow(bare, settings).json).toEqual({
      id: "letta-205",
      module: "letta",
      build: "letta-205",
      commit: basePlan.commit,
      previous: basePlan.previous,
      previousBuild: null,
      state: "open",
      dryRun: false,
      paused: null,
      tiers: [["hq-1"], ["hq-2", "hq-3"], ["hq-4"]],
      tier: 0,
      rest: ["hq-5"],
      sent: [],
      note: "",
      gate: null,
      putBack: null,
      errorsInARow: 0,
      history: { entries: [], dropped: 0, droppedAfter: 0, keptFirst: 5, keptNewest: 50 },
    })
    const gate: GateRecord = {
      component: "letta",
      machines: ["hq-1"],
      from: "a",
      to: "b",
      since: 0,
      passes: 1,
      last: "",
      failing: [],
      verdict: "",
      why: "",
      took: "",
      carried: [],
      rollback: "",
    }
    const putBack = { build: "letta-204", commit: "a", machines: ["hq-1"], sent: [] }
    const full = planShow(
      {
        ...basePlan,
        dryRun: true,
        errors: 2,
        gate,
        putBack,
        paused: { by: "alice", at: 4_000, why: "looking" },
        history: { first: entries.slice(0, 5), newest: entries.slice(5), dropped: 1 },
      },
      settings,
    ).json
    expect(full).toMatchObject({
      previousBuild: "letta-204",
      dryRun: true,
      paused: { by: "alice", at: "1970-01-01T00:00:04Z", why: "looking" },
      gate,
      putBack,
      errorsInARow: 2,
      history: { dropped: 1, droppedAfter: 5, keptFirst: 5, keptNewest: 50 },
    })
    expect((full["history"] as { entries: ReadonlyArray<unknown> }).entries).toEqual(
      entries.map((e) => ({ ...e, at: new Date(e.at - (e.at % 1_000)).toISOString().replace(".000Z", "Z") })),
    )
  })
})
