// What a judging could not ask, word for word (issue 10, Argo's consecutiveErrorLimit): each source
// the gate reads says its own sentence when it cannot be read, several are said together in the
// order the gate reads them, and a run of them pauses the plan, not fails it. The journal, the
// plan's note and `plans show` say these sentences to a person, so they are pinned whole.
import { describe, expect, it } from "vitest"
import type { GateFacts } from "@mesh-core/core/gate/judging/facts"
import type { PlanRecord } from "@mesh-core/core/gate/plan/records"
import { afterCouldNotAsk, controllerActor, couldNotAsk } from "@mesh-core/core/gate/plan/errors"
import { entriesOf } from "@mesh-core/core/gate/plan/history"
import { healthGood, healthNotYet, judgeHealth, openGate } from "@mesh-core/core/gate/judging/judge"
import { basePlan } from "./gate-world.ts"

const read: GateFacts = {
  now: 100_000,
  reports: {},
  engines: {},
  served: { ok: true, value: {} },
  open: { ok: true, value: [] },
  rolledBack: {},
  holder: { ok: true, value: null },
  health: { ok: true, value: {} },
}
/** No condition keeper judges: no `open` at all. */
const { open: _open, ...keeperless } = read
// A cause as a driver gives it: its first line is what a person needs, the rest is a stack.
const away = (what: string) => ({ ok: false as const, why: `${what}\n    at Socket.connect` })

describe("couldNotAsk", () => {
  it("everything read, or no condition keeper at all, is a judging that asked", () => {
    expect(couldNotAsk(read)).toBeUndefined()
    expect(couldNotAsk(keeperless)).toBeUndefined()
  })

  it("names each source that could not be read, by its first line", () => {
    expect(couldNotAsk({ ...read, open: away("store down") })).toBe("what is wrong cannot be read: store down")
    expect(couldNotAsk({ ...read, served: away("no responders") })).toBe(
      "who serves what on the bus cannot be asked: no responders",
    )
    expect(couldNotAsk({ ...read, holder: away("kv timeout") })).toBe(
      "who holds the controller lease cannot be read: kv timeout",
    )
    expect(couldNotAsk({ ...read, health: away("statements unreadable") })).toBe(
      "what the machines state of what they run cannot be read: statements unreadable",
    )
    expect(couldNotAsk({ ...read, enginesUnread: "reports table gone\nmore" })).toBe(
      "the engines' builds cannot be read: reports table gone",
    )
  })

  it("several at once are said together, in the order the gate reads them", () => {
    const all = {
      ...read,
      open: away("a"),
      served: away("b"),
      holder: away("c"),
      health: away("d"),
      enginesUnread: "e",
    }
    expect(couldNotAsk(all)).toBe(
      [
        "what is wrong cannot be read: a",
        "who serves what on the bus cannot be asked: b",
        "who holds the controller lease cannot be read: c",
        "what the machines state of what they run cannot be read: d",
        "the engines' builds cannot be read: e",
      ].join("; "),
    )
  })
})

describe("afterCouldNotAsk", () => {
  const judging = { kind: "judging", at: 5_000, tier: 0, word: "could-not-ask", why: "store down" }

  it("below the limit: counted and kept in the history with the passes the gate had, the gate itself untouched", () => {
    const gate = { ...openGate("letta", ["hq-1"], "a71c3d0", "5e1f0c2", 0), passes: 2, lastPass: 4_000 }
    const p: PlanRecord = { ...basePlan, gate, errors: 1 }
    const r = afterCouldNotAsk(p, "store down", 5_000, 4)
    expect(r.paused).toBe(false)
    expect(r.said).toBe("could not ask (2 of 4 in a row before it is paused): store down")
    expect(r.plan).toEqual({ ...p, errors: 2, note: r.said, history: r.plan.history })
    expect(entriesOf(r.plan.history)).toEqual([{ ...judging, passes: 2 }])
  })

  it("a plan not judged yet is kept with no passes", () => {
    const r = afterCouldNotAsk(basePlan, "store down", 5_000, 4)
    expect(entriesOf(r.plan.history)).toEqual([{ ...judging, passes: 0 }])
    expect(r.plan.errors).toBe(1)
  })

  it("at the limit: paused by the controller, said in the note and the history, still open and not failed", () => {
    const p: PlanRecord = { ...basePlan, errors: 3 }
    const r = afterCouldNotAsk(p, "store down", 5_000, 4)
    const why = "4 judgings in a row could not ask: store down"
    const note = `paused by the controller at 1970-01-01T00:00:05Z: ${why}; not failed — \`plans resume letta-205\` judges it again from where it was`
    expect(r).toEqual({
      paused: true,
      said: note,
      changed: true,
      plan: { ...p, errors: 4, paused: { by: controllerActor, at: 5_000, why }, note, history: r.plan.history },
    })
    expect(controllerActor).toBe("controller")
    expect(entriesOf(r.plan.history)).toEqual([
      { ...judging, passes: 0 },
      { kind: "verb", at: 5_000, verb: "paused-by-errors", by: "controller", why },
    ])
  })
})

describe("the engines' builds that cannot be read", () => {
  // A report of what the engine runs, unread, is no evidence: the engine is not yet, and it is the
  // same measurement error couldNotAsk counts, never a failure of the build.
  const reported = {
    ...read,
    reports: { "hq-3": { at: 1, current: true, outcome: "applied" } },
    engines: { "hq-3": "v2" },
  }
  it("the node-engine sent a build is not yet, and says why; sent none, there is nothing to compare", () => {
    const unread = { ...reported, enginesUnread: "reports table gone\n    at query" }
    expect(
      judgeHealth("node-engine", "node-engine", { tools: [], deliveredVersions: ["v2"] }, "hq-3", 0, unread),
    ).toEqual({
      health: healthNotYet,
      why: "which build hq-3's node-engine reports cannot be read: reports table gone",
    })
    expect(judgeHealth("node-engine", "node-engine", { tools: [], deliveredVersions: [] }, "hq-3", 0, unread)).toEqual({
      health: healthGood,
      why: "",
    })
    expect(
      judgeHealth("node-engine", "node-engine", { tools: [], deliveredVersions: ["v2"] }, "hq-3", 0, reported),
    ).toEqual({ health: healthGood, why: "" })
  })
})
