// The gate's edges, each a rule of seed 003 a mutant broke unnoticed: what is on a machine when the
// conditions are scanned the seed's way, "since" counting the send's own instant, witnesses the build
// had nothing to do with, what the send carried, the first why of the worst word, and what a replay
// keeps of each fact.
import { describe, expect, it } from "vitest"
import type { Condition, GateFacts, Reported } from "@mesh-core/core/gate/judging/facts"
import {
  healthBroken,
  healthGood,
  healthNotYet,
  judgeHealth,
  judgeMoves,
  openGate,
} from "@mesh-core/core/gate/judging/judge"
import { aboutTheMachine } from "@mesh-core/core/gate/judging/conditions"
import { gateLine } from "@mesh-core/core/gate/judging/observations"
import { unchangedBy } from "@mesh-core/core/gate/tick/rollback"

const m3 = "hq-3"
const applied: Reported = { at: 1, current: true, outcome: "applied" }
const facts = (over: Partial<GateFacts> = {}): GateFacts => ({
  now: 100_000,
  reports: { [m3]: applied, "hq-4": applied, "hq-5": applied },
  engines: {},
  served: { ok: true, value: {} },
  open: { ok: true, value: [] },
  rolledBack: {},
  holder: { ok: true, value: null },
  health: { ok: true, value: {} },
  ...over,
})
const none = { tools: [], deliveredVersions: [] }
const cond = (over: Partial<Condition>): Condition => ({
  key: "k",
  source: "D1",
  raised: 10,
  scope: "machine",
  id: m3,
  also: [],
  kind: "disk-full",
  summary: "s",
  ...over,
})

describe("judgeHealth scanning every condition, the seed's way", () => {
  it("a machine-level condition is on the machine it names by id alone; one on another machine is not", () => {
    const open = (c: Condition) => facts({ open: { ok: true, value: [c] } })
    expect(judgeHealth("letta", "", none, m3, 0, open(cond({})))).toEqual({
      health: healthNotYet,
      why: "raised since it was sent: k — s",
    })
    expect(judgeHealth("letta", "", none, m3, 0, open(cond({ id: "hq-4" }))).health).toBe(healthGood)
    expect(judgeHealth("letta", "", none, m3, 0, open(cond({ scope: "module", id: m3 }))).health).toBe(healthGood) // not naming the module
  })

  it("since counts the send's own instant, for conditions and witnesses alike", () => {
    expect(
      judgeHealth("letta", "", none, m3, 10, facts({ open: { ok: true, value: [cond({ raised: 10 })] } })).health,
    ).toBe(healthNotYet)
    const witness = {
      component: "node-engine",
      outcome: "rolled-back",
      from: "abcdef0",
      to: "1234567",
      why: "died",
      at: 10,
    }
    expect(
      judgeHealth("node-engine", "node-engine", none, m3, 10, facts({ rolledBack: { [m3]: [witness] } })).health,
    ).toBe(healthBroken)
    expect(
      judgeHealth("node-engine", "node-engine", none, m3, 11, facts({ rolledBack: { [m3]: [witness] } })).health,
    ).toBe(healthGood)
    // a witness judges the core only: a module that is not the core is never broken by one, whatever it names
    expect(
      judgeHealth("letta", "", none, m3, 0, facts({ rolledBack: { [m3]: [{ ...witness, component: "" }] } })).health,
    ).toBe(healthGood)
  })

  it("a module with tools on a machine the node tools never announced is judged by its health alone", () => {
    expect(
      judgeHealth(
        "letta",
        "",
        { tools: ["t"], deliveredVersions: [] },
        m3,
        0,
        facts({ served: { ok: true, value: { "hq-4": { runtime: true, tools: [] } } } }),
      ).health,
    ).toBe(healthGood)
  })
})

describe("what is wrong with the machine itself (issue 281)", () => {
  it("core-behind by its kind, whatever its key; the first condition about a moved core component is the one said", () => {
    const w = aboutTheMachine(m3, ["node-tools"], 0, facts(), [
      cond({ key: "a", kind: "core-behind", summary: "first" }),
      cond({ key: "b", kind: "core-behind", summary: "second" }),
    ])
    expect(w.on.get("node-tools")).toBe(
      "raised since it was sent: a — first (its settle window runs to the gate's bound)",
    )
    expect(w.whole).toBe("")
  })
})

describe("judgeMoves over several pairs", () => {
  it("the first why of the worst word is said, not the last", () => {
    const f = facts({
      reports: { [m3]: applied, "hq-4": { ...applied, outcome: "converging" } },
    })
    const r = judgeMoves(
      openGate("letta", [m3], "a", "b", 0),
      [
        { module: "grafana", node: "hq-4" },
        { module: "outline", node: "hq-5" },
      ],
      { ...f, reports: Object.fromEntries(Object.entries(f.reports).filter(([m]) => m !== "hq-5")) },
      new Map(),
    )
    expect(r.why).toBe('hq-4 reported "converging"')
    expect(r.gate.failing).toEqual(["grafana", "outline"])
  })

  it("judges every carried pair not given, on the same machine or another", () => {
    const f = facts({
      open: {
        ok: true,
        value: [
          cond({ scope: "module", id: "grafana.hq-3", machine: m3, key: "g" }),
          cond({ scope: "module", id: "letta.hq-4", machine: "hq-4", key: "l" }),
        ],
      },
    })
    const g = openGate("letta", [m3], "a", "b", 0, [
      { module: "grafana", node: m3 },
      { module: "letta", node: "hq-4" },
    ])
    expect(judgeMoves(g, [{ module: "letta", node: m3 }], f, new Map()).gate.failing).toEqual(["grafana", "letta"])
    expect(openGate("letta", [m3], "a", "b", 0).carried).toEqual([])
  })

  it("every module moved on a machine is what a machine-level condition may name", () => {
    const f = facts({ open: { ok: true, value: [cond({ id: "hq-3.letta", machine: m3 })] } })
    const r = judgeMoves(
      openGate("letta", [m3], "a", "b", 0),
      [
        { module: "letta", node: m3 },
        { module: "grafana", node: m3 },
      ],
      f,
      new Map(),
    )
    expect(r.gate.failing).toEqual(["letta"])
  })

  it("a condition naming a module moved after another on the same machine is that module's, not the machine's as a whole", () => {
    const f = facts({
      open: { ok: true, value: [cond({ id: "hq-3.grafana", machine: m3, key: "g", summary: "grafana's disk" })] },
    })
    const r = judgeMoves(
      openGate("letta", [m3], "a", "b", 0),
      [
        { module: "letta", node: m3 },
        { module: "grafana", node: m3 },
      ],
      f,
      new Map(),
    )
    expect(r).toMatchObject({
      worst: healthNotYet,
      why: "raised since it was sent: g — grafana's disk",
      gate: { failing: ["grafana"] },
    })
  })

  it("a gate just opened has judged nothing: no pass, nothing failing, no verdict", () => {
    expect(openGate("letta", [m3], "a", "b", 7)).toEqual({
      component: "",
      machines: [m3],
      from: "a",
      to: "b",
      since: 7,
      passes: 0,
      last: "",
      failing: [],
      verdict: "",
      why: "",
      took: "",
      carried: [],
      rollback: "",
    })
  })

  it("conditions that cannot be read, or no condition keeper, never break a judging", () => {
    const unread = judgeMoves(
      openGate("letta", [m3], "a", "b", 0),
      [{ module: "letta", node: m3 }],
      facts({ open: { ok: false, why: "store down" } }),
      new Map(),
    )
    expect(unread).toMatchObject({
      judged: true,
      worst: healthNotYet,
      why: "what is wrong cannot be read, so whether the build made anything wrong is not known: store down",
    })
    // No condition keeper judges: no `open` at all.
    const { open: _, ...noKeeper } = facts()
    const keeperless = judgeMoves(
      openGate("letta", [m3], "a", "b", 0),
      [{ module: "letta", node: m3 }],
      noKeeper,
      new Map(),
    )
    expect(keeperless).toMatchObject({ judged: true, worst: healthGood })
  })
})

describe("words and lines", () => {
  it("the plans line shows a send from a build to nothing known", () => {
    const s = { settle: 1, bound: 2, passes: 3, every: 4 }
    expect(gateLine(openGate("letta", [m3], "aaaaaaa111", "", 0), s)).toBe(
      "gate on hq-3: judging, aaaaaaa →  (0 of 3 passes)",
    )
  })

  it("unchanged: not known on the side that failed is changed", () => {
    expect(unchangedBy("c1", "c2", {}, { manifest: "m", artifacts: "a" })).toBe(false)
  })
})
