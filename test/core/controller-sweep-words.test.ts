// What `simulate --sweep` prints for a controller's log (controller/sweep.ts): the table, the report
// around it and the JSON for scripts, pinned word for word over figures given by hand.
import { describe, expect, it } from "vitest"
import { startControllerReplay } from "@mesh-core/core/controller/replay"
import { type GateFigures, gateSweepJson, gateSweepReport, gateSweepTable } from "@mesh-core/core/controller/sweep"
import { gateSettingsOf } from "@mesh-core/core/controller/log"

const state = startControllerReplay(gateSettingsOf({}))
const figures = (f: Partial<GateFigures>): GateFigures => ({
  judgings: 0,
  passed: 0,
  failed: 0,
  rollbacks: 0,
  rollbackSends: 0,
  toVerdict: undefined,
  open: 0,
  said: 0,
  inferred: 0,
  ...f,
})
const rows = [
  {
    point: { label: "settle=1m", values: [{ name: "settle", text: "1m", value: "1m" }] },
    figures: figures({
      judgings: 12,
      passed: 1,
      failed: 1,
      rollbacks: 1,
      rollbackSends: 2,
      toVerdict: { min: 61_400, median: 90_000, max: 3_600_000 },
      said: 40,
    }),
    state,
  },
  {
    point: { label: "settle=10m", values: [{ name: "settle", text: "10m", value: "10m" }] },
    figures: figures({ judgings: 3, open: 2, said: 7, inferred: 1 }),
    state,
  },
]

describe("the sweep as a person reads it", () => {
  it("a row per point, its figures in columns padded to the widest cell", () => {
    expect(gateSweepTable(rows)).toEqual([
      "point       judgings  passed  failed  rollbacks (sends)  release → verdict (min / median / max)  open at end  said  inferred",
      "settle=1m   12        1       1       1 (2)              1m1s / 1m30s / 1h0m0s                   0            40    0",
      "settle=10m  3         0       0       0 (0)              no verdict                              2            7     1",
    ])
  })

  it("the report names the file, the facts, the points, the settings given and recorded, and what each column means", () => {
    const report = gateSweepReport(
      { file: "day.jsonl", facts: 120, set: ["every=30s"], recorded: { settle: "2m", passes: 3 } },
      rows,
    )
    expect(report.slice(0, 2)).toEqual([
      "sweep of day.jsonl: 120 facts, each replayed 2 times in one reading, with every=30s",
      "",
    ])
    expect(report.slice(2, 5)).toEqual(gateSweepTable(rows))
    expect(report.slice(5)).toEqual([
      "",
      "recorded under settle=2m passes=3",
      "judgings: the gate's judgings said. passed, failed: verdicts kept. rollbacks: builds marked for rollback (the sends that put the previous build back). release → verdict: from a plan's release to its verdict, over the verdicts given. open at end: plans never judged to a verdict. said: lines in the journal. inferred: answers the recording did not have.",
    ])
    expect(gateSweepReport({ file: "day.jsonl", facts: 1, set: [], recorded: {} }, rows)[0]).toBe(
      "sweep of day.jsonl: 1 facts, each replayed 2 times in one reading",
    )
    expect(
      gateSweepReport({ file: "day.jsonl", facts: 1, set: ["every=30s", "bound=5m"], recorded: {} }, rows)[0],
    ).toBe("sweep of day.jsonl: 1 facts, each replayed 2 times in one reading, with every=30s bound=5m")
  })

  it("for scripts, one JSON object, durations in milliseconds and no verdict as null", () => {
    expect(JSON.parse(gateSweepJson(rows))).toEqual({
      sweep: [
        {
          point: { settle: "1m" },
          judgings: 12,
          passed: 1,
          failed: 1,
          rollbacks: 1,
          rollbackSends: 2,
          toVerdict: { min: 61_400, median: 90_000, max: 3_600_000 },
          open: 0,
          said: 40,
          inferred: 0,
        },
        {
          point: { settle: "10m" },
          judgings: 3,
          passed: 0,
          failed: 0,
          rollbacks: 0,
          rollbackSends: 0,
          toVerdict: null,
          open: 2,
          said: 7,
          inferred: 1,
        },
      ],
    })
  })
})
