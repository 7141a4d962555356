// The gate's words, pinned as seed 003 says them: each branch of judgeHealth for the core's own
// components and for a module with tools, the conditions and the `rolled-back` event a failed gate
// raises (a contract, like a condition's events), the `plans` line, and the rollback's sentences.
import { describe, expect, it } from "vitest"
import type { Condition, GateFacts, Manifest, Reported, Statement } from "@mesh-core/core/gate/judging/facts"
import { coreComponent, firstLine, short } from "@mesh-core/core/gate/judging/facts"
import { hearStatement, unhealthyKey } from "@mesh-core/core/gate/judging/health"
import {
  healthBroken,
  healthGood,
  healthNotYet,
  judgeHealth,
  judgeMoves,
  moduleHealthWord,
  openGate,
} from "@mesh-core/core/gate/judging/judge"
import { aboutTheMachine, indexConditions, scanConditions } from "@mesh-core/core/gate/judging/conditions"
import {
  dedupe,
  gateLine,
  gateObservation,
  rolledBackEvent,
  witnessObservation,
} from "@mesh-core/core/gate/judging/observations"
import { batchRollbacks, notAmongKept, unchangedBy } from "@mesh-core/core/gate/tick/rollback"
import { decideRollback } from "../support/rollback.ts"
import { released as planned } from "../support/plan-records.ts"

const m3 = "hq-3"
const applied: Reported = { at: 1, current: true, outcome: "applied" }
const facts = (over: Partial<GateFacts> = {}): GateFacts => ({
  now: 100_000,
  reports: { [m3]: applied },
  engines: {},
  served: { ok: true, value: {} },
  open: { ok: true, value: [] },
  rolledBack: {},
  holder: { ok: true, value: null },
  health: { ok: true, value: {} },
  ...over,
})
/** No condition keeper judges: no `open` at all. */
const keeperless = (): GateFacts => {
  const { open: _, ...f } = facts()
  return f
}
const none: Manifest = { tools: [], deliveredVersions: [] }
const word = (module: string, f: GateFacts, m = none, since = 0) =>
  judgeHealth(module, coreComponent(module), m, m3, since, f)
const notYet = (why: string) => ({ health: healthNotYet, why })

describe("judgeHealth, branch by branch (seed 003's judgeHealth)", () => {
  it("a report that is not of the current declaration, or not said, or with no time, is not yet; another outcome is quoted", () => {
    expect(word("letta", facts({ reports: {} }))).toEqual(notYet("hq-3 has not reported on what it was sent"))
    expect(word("letta", facts({ reports: { [m3]: { ...applied, at: null } } }))).toEqual(
      notYet("hq-3 has not reported on what it was sent"),
    )
    expect(word("letta", facts({ reports: { [m3]: { ...applied, current: false } } }))).toEqual(
      notYet("hq-3 has not reported on what it was sent"),
    )
    expect(word("letta", facts({ reports: { [m3]: { ...applied, outcome: "failed" } } }))).toEqual({
      health: healthBroken,
      why: "hq-3 failed what it was sent",
    })
    expect(word("letta", facts({ reports: { [m3]: { ...applied, outcome: "converging" } } }))).toEqual(
      notYet('hq-3 reported "converging"'),
    )
    expect(word("letta", facts())).toEqual({ health: healthGood, why: "" })
  })

  it("the node-engine is healthy only under one of the builds the send delivers", () => {
    const engine = { tools: [], deliveredVersions: ["v2", "v3"] }
    expect(word("node-engine", facts(), engine)).toEqual(
      notYet("hq-3's node-engine reports build (not known), not the new v2 or v3"),
    )
    expect(word("node-engine", facts({ engines: { [m3]: "v1" } }), engine)).toEqual(
      notYet("hq-3's node-engine reports build v1, not the new v2 or v3"),
    )
    expect(word("node-engine", facts({ engines: { [m3]: "v3" } }), engine)).toEqual({
      health: healthGood,
      why: "",
    })
    expect(word("node-engine", facts({ engines: { [m3]: "v1" } }))).toEqual({ health: healthGood, why: "" }) // nothing delivered, nothing to compare
  })

  it("the node tools are healthy when they answer the bus", () => {
    expect(word("node-tools", facts({ served: { ok: false, why: "bus down\nstack" } }))).toEqual(
      notYet("whether the node tools answer cannot be asked: bus down"),
    )
    expect(word("node-tools", facts())).toEqual(notYet("the node tools on hq-3 do not answer the bus"))
    expect(word("node-tools", facts({ served: { ok: true, value: { [m3]: { runtime: false, tools: [] } } } }))).toEqual(
      notYet("the node tools on hq-3 do not answer the bus"),
    )
    expect(word("node-tools", facts({ served: { ok: true, value: { [m3]: { runtime: true, tools: [] } } } }))).toEqual({
      health: healthGood,
      why: "",
    })
  })

  it("the controller is healthy when a controller newer than the build holds the lease and says it is ready", () => {
    const since = 10 * 60_000
    const held = (taken: number, ready: boolean | undefined, why: string | undefined) =>
      facts({
        holder: {
          ok: true,
          value: { taken, ...(ready === undefined ? {} : { ready }), ...(why === undefined ? {} : { why }) },
        },
      })
    const w = (f: GateFacts) => word("controller", f, none, since)
    expect(w(facts({ holder: { ok: false, why: "kv down\nmore" } }))).toEqual(
      notYet("who holds the controller lease cannot be read: kv down"),
    )
    expect(w(facts())).toEqual(notYet("no controller holds the lease"))
    expect(w(held(since - 60_001, true, undefined))).toEqual(
      notYet("the lease is held since 1970-01-01T00:08:59Z, by a controller older than the new build"),
    )
    expect(w(held(since - 60_000, undefined, undefined))).toEqual(
      notYet("the controller holding the lease does not say it is ready"),
    )
    expect(w(held(since, false, "migrating"))).toEqual(
      notYet("the controller holding the lease does not say it is ready: migrating"),
    )
    expect(w(held(since, false, ""))).toEqual(notYet("the controller holding the lease does not say it is ready"))
    expect(w(held(since, true, undefined))).toEqual({ health: healthGood, why: "" })
  })

  it("a module with tools waits for the node tools that run there to serve them", () => {
    const tools = { tools: ["letta.search"], deliveredVersions: [] }
    expect(word("letta", facts({ served: { ok: false, why: "bus down" } }), tools)).toEqual(
      notYet("whether its tools are served cannot be asked: bus down"),
    )
    expect(
      word("letta", facts({ served: { ok: true, value: { [m3]: { runtime: true, tools: ["grafana"] } } } }), tools),
    ).toEqual(notYet("the node tools on hq-3 do not serve letta's tools"))
    expect(
      word("letta", facts({ served: { ok: true, value: { [m3]: { runtime: false, tools: [] } } } }), tools).health,
    ).toBe(healthGood)
    expect(
      word("letta", facts({ served: { ok: true, value: { [m3]: { runtime: true, tools: ["letta"] } } } }), tools)
        .health,
    ).toBe(healthGood)
    expect(word("letta", facts({ served: { ok: false, why: "bus down" } })).health).toBe(healthGood) // no tools, nothing to ask
  })

  it("open conditions that cannot be read, or no condition keeper at all", () => {
    const raised: Condition = {
      key: "module.letta.hq-3.disk",
      source: "D1",
      raised: 5,
      scope: "module",
      id: "letta.hq-3",
      machine: m3,
      also: [],
      kind: "disk",
      summary: "disk",
    }
    expect(word("letta", facts({ open: { ok: false, why: "store down\nat line 2" } }))).toEqual(
      notYet("what is wrong cannot be read, so whether the build made anything wrong is not known: store down"),
    )
    expect(word("letta", keeperless()).health).toBe(healthGood)
    expect(word("letta", facts({ open: { ok: true, value: [raised] } }))).toEqual(
      notYet("raised since it was sent: module.letta.hq-3.disk — disk"),
    )
    expect(word("letta", facts({ open: { ok: true, value: [raised] } }), none, 6).health).toBe(healthGood) // raised before the send
    expect(
      word("letta", facts({ open: { ok: true, value: [{ ...raised, machine: "hq-4", also: [m3] }] } })).health,
    ).toBe(healthNotYet) // on it through `also`
    expect(word("letta", facts({ open: { ok: true, value: [{ ...raised, machine: "hq-4" }] } })).health).toBe(
      healthGood,
    )
  })

  it("the health an engine states of a module (ADR 0240 §4)", () => {
    const stated = (at: number, state: "healthy" | "starting" | "unhealthy", reason: string | undefined): GateFacts =>
      facts({
        health: {
          ok: true,
          value: {
            [m3]: {
              machine: m3,
              at,
              resources: [
                { resource: "other", module: "grafana", state: "unhealthy", reason: "x" },
                { resource: "letta-app", module: "letta", state, ...(reason === undefined ? {} : { reason }) },
              ],
            },
          },
        },
      })
    expect(moduleHealthWord("letta", m3, 0, facts({ health: { ok: false, why: "nats\nx" } }))).toEqual(
      notYet("what hq-3 states of what it runs cannot be read: nats"),
    )
    expect(moduleHealthWord("letta", m3, 10, stated(9, "healthy", undefined))).toEqual(
      notYet("hq-3 has stated nothing of what it runs since it was sent"),
    )
    expect(moduleHealthWord("letta", m3, 10, stated(10, "healthy", undefined))).toEqual({ health: healthGood, why: "" })
    expect(moduleHealthWord("letta", m3, 10, stated(10, "unhealthy", undefined))).toEqual(
      notYet("letta-app of letta on hq-3 is stated unhealthy: no reason given"),
    )
    expect(moduleHealthWord("letta", m3, 10, stated(10, "unhealthy", "oom"))).toEqual(
      notYet("letta-app of letta on hq-3 is stated unhealthy: oom"),
    )
    expect(moduleHealthWord("letta", m3, 10, stated(10, "starting", undefined))).toEqual(
      notYet("letta-app of letta on hq-3 is still starting"),
    )
    expect(moduleHealthWord("outline", m3, 10, stated(10, "starting", undefined))).toEqual({
      health: healthGood,
      why: "",
    })
  })
})

describe("conditions about a machine (issue 281)", () => {
  const c = (over: Partial<Condition>): Condition => ({
    key: "machine.hq-3.disk-full",
    source: "D10",
    raised: 10,
    scope: "machine",
    id: m3,
    also: [],
    kind: "disk-full",
    summary: "disk",
    ...over,
  })
  const f = facts()
  it("is about the machine by its id, its machine or its also; the gate's own and older ones are kept for the modules", () => {
    for (const about of [c({}), c({ id: "x", machine: m3 }), c({ id: "x", also: [m3] })])
      expect(aboutTheMachine(m3, ["letta"], 0, f, [about]).whole).not.toBe("")
    const kept = [c({ id: "hq-4" }), c({ source: "DG" }), c({ raised: 9 }), c({ scope: "module" })]
    const w = aboutTheMachine(m3, ["letta"], 10, f, kept)
    expect(w).toEqual({ conditions: kept, on: new Map(), whole: "" })
    expect(aboutTheMachine(m3, ["letta"], 0, facts({ open: { ok: false, why: "x" } }), [c({})])).toEqual({
      conditions: [c({})],
      on: new Map(),
      whole: "",
    })
    expect(aboutTheMachine(m3, ["letta"], 0, keeperless(), [c({})]).whole).toBe("")
  })

  it("names every moved module a condition names, the first condition first; a core-behind key counts as core-behind", () => {
    const w = aboutTheMachine(m3, ["letta", "grafana", "node-tools"], 0, f, [
      c({ id: "hq-3.letta.grafana", machine: m3, key: "k1", summary: "s1" }),
      c({ id: "hq-3.letta", machine: m3, key: "k2", summary: "s2" }),
      c({ key: "machine.hq-3.core-behind", kind: "other", summary: "behind" }),
      c({ key: "k3", summary: "s3" }),
      c({ key: "k4", summary: "s4" }),
    ])
    expect(Object.fromEntries(w.on)).toEqual({
      letta: "raised since it was sent: k1 — s1",
      grafana: "raised since it was sent: k1 — s1",
      "node-tools":
        "raised since it was sent: machine.hq-3.core-behind — behind (its settle window runs to the gate's bound)",
    })
    expect(w.whole).toBe("hq-3 as a whole: raised since it was sent: k3 — s3")
    expect(w.conditions).toEqual([])
  })

  it("the index answers what scanning every condition answers, for machines met through `also`", () => {
    const open = [
      c({ scope: "module", id: "letta.hq-4", machine: "hq-4", also: [m3], key: "a" }),
      c({ scope: "module", id: "letta.hq-4", machine: "hq-4", key: "b" }),
      c({ scope: "module", id: "grafana.hq-3", machine: m3, key: "c", source: "DG" }),
      c({ scope: "module", id: "grafana.hq-3", machine: m3, key: "d", raised: 50 }),
    ]
    const index = indexConditions(open)
    for (const [module, machine, since] of [
      ["letta", m3, 0],
      ["letta", "hq-4", 0],
      ["grafana", m3, 0],
      ["grafana", m3, 51],
      ["letta", "hq-5", 0],
    ] as const) {
      expect(index.first(module, machine, since)?.key).toBe(scanConditions(open)(module, machine, since)?.key)
    }
    expect(index.first("letta", m3, 0)?.key).toBe("a")
    expect(index.first("grafana", m3, 0)?.key).toBe("d")
    expect([...indexConditions([c({}), c({ id: "hq-4", also: [m3] })]).aboutMachine.keys()].sort()).toEqual([
      "hq-3",
      "hq-4",
    ])
  })
})

describe("a gate over several modules and machines", () => {
  it("the worst word wins, the first why of the worst is said, and every module not healthy is failing", () => {
    const f = facts({
      reports: {
        [m3]: applied,
        "hq-4": { ...applied, outcome: "converging" },
        "hq-5": { ...applied, outcome: "refused" },
      },
    })
    const g = openGate("letta", [m3, "hq-4"], "aaaaaaa1", "bbbbbbb2", 0)
    const notYetOnly = judgeMoves(
      g,
      [
        { module: "letta", node: m3 },
        { module: "grafana", node: "hq-4" },
        { module: "outline", node: "hq-4" },
      ],
      f,
      new Map(),
    )
    expect(notYetOnly).toMatchObject({
      judged: true,
      worst: healthNotYet,
      why: 'hq-4 reported "converging"',
      gate: { failing: ["grafana", "outline"], passes: 0, verdict: "" },
    })
    const broken = judgeMoves(
      g,
      [
        { module: "grafana", node: "hq-4" },
        { module: "letta", node: "hq-5" },
        { module: "outline", node: "hq-5" },
      ],
      f,
      new Map(),
    )
    expect(broken).toMatchObject({
      judged: true,
      worst: healthBroken,
      why: "hq-5 refused what it was sent",
      gate: { verdict: "failed", why: "hq-5 refused what it was sent", failing: ["grafana", "letta", "outline"] },
    })
  })

  it("judges what the send carried with the module once, beside what it is given", () => {
    const f = facts({
      reports: { [m3]: applied, "hq-4": { ...applied, outcome: "failed" } },
    })
    const g = openGate("letta", [m3], "a", "b", 0, [
      { module: "grafana", node: "hq-4" },
      { module: "letta", node: m3 },
    ])
    const r = judgeMoves(g, [{ module: "letta", node: m3 }], f, new Map())
    expect(r.gate).toMatchObject({ verdict: "failed", why: "hq-4 failed what it was sent", failing: ["grafana"] })
  })
})

describe("module health memory (ADR 0240)", () => {
  const st = (
    at: number,
    states: ReadonlyArray<[string, "healthy" | "starting" | "unhealthy", string | undefined]>,
  ): Statement => ({
    machine: m3,
    at,
    resources: states.map(([module, state, reason], i) => ({
      resource: `${module}-${i}`,
      module,
      state,
      ...(reason === undefined ? {} : { reason }),
    })),
  })
  it("says the first unhealthy resource of each module, and clears only what it raised", () => {
    const one = hearStatement(
      null,
      st(1, [
        ["letta", "unhealthy", undefined],
        ["letta", "unhealthy", "second"],
        ["grafana", "starting", undefined],
      ]),
    )
    expect(one).toMatchObject({ keep: { streaks: { letta: 1 } }, raise: [], clear: [] })
    const two = hearStatement(
      one.keep!,
      st(2, [
        ["letta", "unhealthy", undefined],
        ["outline", "unhealthy", "oom"],
      ]),
    )
    expect(two.raise).toEqual([
      {
        at: 2,
        observation: {
          key: "module.letta.hq-3.unhealthy",
          source: "DH",
          scope: "module",
          id: "letta.hq-3",
          machine: m3,
          also: [],
          kind: "unhealthy",
          severity: "warning",
          summary: "letta on hq-3 is stated unhealthy twice in a row: letta-0: unhealthy",
        },
      },
    ])
    expect(two.keep!.streaks).toEqual({ letta: 2, outline: 1 })
    const three = hearStatement(two.keep!, st(3, [["outline", "unhealthy", "oom"]]))
    expect(three.raise).toEqual([
      {
        at: 3,
        observation: {
          key: "module.outline.hq-3.unhealthy",
          source: "DH",
          scope: "module",
          id: "outline.hq-3",
          machine: m3,
          also: [],
          kind: "unhealthy",
          severity: "warning",
          summary: "outline on hq-3 is stated unhealthy twice in a row: outline-0: oom",
        },
      },
    ])
    expect(three.clear).toEqual(["module.letta.hq-3.unhealthy"])
    expect(hearStatement(three.keep!, st(4, [["outline", "unhealthy", "oom"]])).raise).toEqual([]) // said once, on the second
    expect(hearStatement(three.keep!, st(3, []))).toEqual({ keep: undefined, raise: [], clear: [] })
    expect(unhealthyKey("letta", m3)).toBe("module.letta.hq-3.unhealthy")
    expect(three.keep).toEqual({ statement: st(3, [["outline", "unhealthy", "oom"]]), streaks: { outline: 2 } })
  })
})

describe("what a failed gate says (seed 003, ADR 0236)", () => {
  it("a condition per failed gate, with the seed's summary", () => {
    expect(
      gateObservation("letta", "", ["hq-3", "hq-4"], "rolled-back", "crashed", "", "bbbbbbb222", "aaaaaaa111"),
    ).toEqual({
      key: "build.letta.hq-3,hq-4.rolled-back",
      scope: "build",
      id: "letta.hq-3,hq-4",
      kind: "rolled-back",
      machine: "hq-3",
      also: ["hq-4"],
      severity: "warning",
      source: "DG",
      resolver: undefined,
      summary: "letta's build bbbbbbb failed its gate on hq-3,hq-4 and was put back to aaaaaaa: crashed",
    })
    const core = gateObservation("node-engine", "node-engine", ["hq-3"], "rolling-back", "w", "", "b", "a")
    expect(core).toMatchObject({
      key: "core.node-engine.hq-3.rolled-back",
      scope: "core",
      id: "node-engine.hq-3",
      severity: "urgent",
    })
    expect(core.resolver).toBeUndefined()
    expect(gateObservation("letta", "", [], "not-rolled-back", "crashed", "", "bbbbbbb222", "a")).toMatchObject({
      key: "build.letta..rollback-failed",
      machine: "",
      also: [],
      severity: "urgent",
      resolver: "operator",
      summary: "letta's build bbbbbbb failed its gate on  and was NOT put back: crashed — (none)",
    })
    expect(gateObservation("letta", "", [m3], "not-rolled-back", "crashed", "gone", "b", "a").summary).toBe(
      "letta's build b failed its gate on hq-3 and was NOT put back: crashed — gone",
    )
  })

  it("a witness's verdict with the seed's words for each outcome", () => {
    const w = (outcome: string, to = "9876543210") =>
      witnessObservation(m3, { component: "node-engine", outcome, from: "abcdef0123", to, why: "crashed", at: 61_500 })
    expect(w("")).toEqual({
      key: "core.node-engine.hq-3.rolled-back",
      scope: "core",
      id: "node-engine.hq-3",
      kind: "rolled-back",
      machine: m3,
      also: [],
      severity: "urgent",
      source: "DG",
      resolver: undefined,
      summary:
        "the witness on hq-3 judged the node-engine abcdef0 not healthy and put back 9876543 at 1970-01-01T00:01:01Z: crashed",
    })
    expect(w("rolled-back", "").summary).toContain("and put back (none) at")
    expect(
      ["not-reversible", "nothing-to-restore", "restore-failed", "unwitnessed", "halted", "exploded"].map(
        (o) => w(o).summary.split(" not healthy ")[1],
      ),
    ).toEqual([
      "and left it: it is not reversible at 1970-01-01T00:01:01Z: crashed",
      "and had nothing to put back at 1970-01-01T00:01:01Z: crashed",
      "and could not put the previous build back at 1970-01-01T00:01:01Z: crashed",
      "and could not judge it at all at 1970-01-01T00:01:01Z: crashed",
      "and gave up: the build before it fails too at 1970-01-01T00:01:01Z: crashed",
      "and exploded at 1970-01-01T00:01:01Z: crashed",
    ])
    expect(w("exploded").severity).toBe("warning")
  })

  it("one observation per key, the first, in the order given", () => {
    const o = gateObservation("letta", "", [m3], "rolled-back", "w", "", "b", "a")
    const p = gateObservation("grafana", "", [m3], "rolled-back", "w", "", "b", "a")
    expect(dedupe([p, o, { ...p, summary: "later" }, o])).toEqual([p, o])
  })

  it("the `plans` line of a gate, judging and decided", () => {
    const s = { settle: 120_000, bound: 600_000, passes: 3, every: 40_000 }
    const g = openGate("letta", [m3, "hq-4"], "aaaaaaa111", "bbbbbbb222", 0)
    expect(gateLine(g, s)).toBe("gate on hq-3, hq-4: judging, aaaaaaa → bbbbbbb (0 of 3 passes)")
    expect(gateLine({ ...g, passes: 1, last: 'hq-3 reported "converging"' }, s)).toBe(
      'gate on hq-3, hq-4: judging, aaaaaaa → bbbbbbb (1 of 3 passes; wanting: hq-3 reported "converging")',
    )
    expect(
      gateLine(
        {
          ...g,
          from: "",
          verdict: "failed",
          took: "1m0s",
          why: "hq-3 failed what it was sent",
          rollback: "not-rolled-back",
        },
        s,
      ),
    ).toBe("gate on hq-3, hq-4: FAILED, (none) → bbbbbbb, after 1m0s: hq-3 failed what it was sent; not-rolled-back")
    expect(
      gateLine(
        {
          ...openGate("node-engine", [m3], "", "", 0),
          verdict: "passed",
          took: "2m0s",
          why: "healthy 3 times over 2m0s",
        },
        s,
      ),
    ).toBe("gate on hq-3: passed (core: node-engine), after 2m0s: healthy 3 times over 2m0s")
    expect(gateLine({ ...openGate("node-engine", [m3], "", "", 0), verdict: "passed" }, s)).toBe(
      "gate on hq-3: passed (core: node-engine)",
    )
  })

  it("the `rolled-back` event's body: from is the build that failed, to the one put back", () => {
    const g = { ...openGate("node-engine", [m3], "aaaaaaa111", "bbbbbbb222", 0), why: "crashed" }
    expect(rolledBackEvent(61_000, "node-engine", g, "rolled-back", "", "core.node-engine.hq-3.rolled-back")).toEqual({
      event: "rolled-back",
      at: "1970-01-01T00:01:01.000Z",
      module: "node-engine",
      component: "node-engine",
      machines: [m3],
      from: "bbbbbbb222",
      to: "aaaaaaa111",
      why: "crashed",
      rollback: "rolled-back",
      show: "mesh-controller conditions core.node-engine.hq-3.rolled-back",
    })
    const plain = rolledBackEvent(
      0,
      "letta",
      { ...openGate("letta", [m3], "", "", 0), why: "w" },
      "not-rolled-back",
      "gone",
      "k",
    )
    expect(plain).toEqual({
      event: "rolled-back",
      at: "1970-01-01T00:00:00.000Z",
      module: "letta",
      machines: [m3],
      why: "w",
      rollback: "not-rolled-back",
      not_why: "gone",
      show: "mesh-controller conditions k",
    })
  })
})

describe("the rollback's sentences (seed 003's gateFailed)", () => {
  const move = {
    module: "letta",
    machines: ["hq-3", "hq-4"],
    build: "build-9",
    previous: "aaaaaaa111",
    commit: "bbbbbbb222",
  }
  const f = { unchanged: false }
  it("says each decision in the seed's words", () => {
    expect(decideRollback(move, "crashed", { ...f, unchanged: true })).toEqual({
      rollback: "unchanged",
      said: "the send to hq-3, hq-4 failed its gate: crashed; letta was left as it was — hq-3, hq-4 already ran letta bbbbbbb, or a build identical to it, before the send, so nothing of it moved and nothing is put back",
    })
    expect(decideRollback({ ...move, build: "" }, "w", f)).toEqual({
      rollback: "not-rolled-back",
      said: "not put back: the plan does not know which build it sent",
      recordIt: false,
    })
    expect(decideRollback(move, "w", { ...f, recorded: "already-kept" })).toEqual({
      rollback: "already-kept",
      said: "its rollback was already made once and is not made again",
    })
    expect(decideRollback(move, "w", { ...f, recorded: { error: "store down" } })).toEqual({
      rollback: "not-rolled-back",
      recordIt: false,
      said: "not put back: its verdict could not be kept, and a rollback that cannot be counted is not made — store down",
    })
    expect(decideRollback({ ...move, previous: "" }, "w", { ...f, recorded: "recorded" })).toEqual({
      rollback: "not-rolled-back",
      recordIt: true,
      said: "NOT put back: this is the first build of letta that hq-3, hq-4 was sent, or what it was sent before is not known: there is no earlier build there to put back, so it is left with this one — `unassign` takes it off, a newer merge replaces it",
    })
    expect(
      decideRollback(move, "w", { ...f, recorded: "recorded", previousBuild: { found: false, why: "gone" } }),
    ).toEqual({ rollback: "not-rolled-back", recordIt: true, said: "NOT put back: gone" })
    expect(notAmongKept("letta", "aaaaaaa111")).toBe(
      "no build of letta from aaaaaaa, asked before the failed one, is among the 10 newest kept to put back",
    )
  })

  it("unchanged: a commit that is a prefix of the other is the same; not known is changed", () => {
    const none2 = {}
    expect(unchangedBy("abc1234", "abc1234ffff", none2, none2)).toBe(true)
    expect(unchangedBy("abc1234ffff", "abc1234", none2, none2)).toBe(true)
    expect(unchangedBy("abc1234", "", none2, none2)).toBe(false)
    expect(unchangedBy("abc", "abd", none2, none2)).toBe(false)
    expect(unchangedBy("c1", "c2", { source: "s" }, none2)).toBe(false)
    expect(unchangedBy("c1", "c2", { manifest: "m", artifacts: "a" }, { manifest: "m", artifacts: "b" })).toBe(false)
    expect(unchangedBy("c1", "c2", { manifest: "m", artifacts: "a" }, none2)).toBe(false)
  })

  it("one send per machine, machines in order, each module once with the first build asked", () => {
    expect(
      batchRollbacks([
        { module: "letta", machines: ["hq-4", "hq-3"], build: "b1" },
        { module: "grafana", machines: ["hq-3"], build: "g1" },
        { module: "letta", machines: ["hq-3"], build: "b2" },
      ]),
    ).toEqual([
      {
        machine: "hq-3",
        modules: [
          { module: "letta", build: "b1" },
          { module: "grafana", build: "g1" },
        ],
      },
      { machine: "hq-4", modules: [{ module: "letta", build: "b1" }] },
    ])
  })
})

describe("the gate's facts", () => {
  it("names the core's components, shortens commits to seven characters and keeps a first line", () => {
    expect(["controller", "node-engine", "node-tools", "letta"].map(coreComponent)).toEqual([
      "controller",
      "node-engine",
      "node-tools",
      "",
    ])
    expect(short("0123456789")).toBe("0123456")
    expect(firstLine("one\ntwo")).toBe("one")
    expect(firstLine("")).toBe("")
  })
})

describe("opening a release: its refusals, word for word (issue 14)", () => {
  it("refuses empty or whitespace builds and commits, a first machine named twice, and a machine the module does not run on", async () => {
    const records = {
      mesh: "hq",
      nodes: ["hq-3", "hq-4", "hq-5"],
      modules: [
        { name: "letta", build: "letta-203", commit: "a71c3d09e4" },
        { name: "grafana", build: "g-1" },
      ],
      assignments: [
        { module: "letta", node: "hq-3" },
        { module: "grafana", node: "hq-5" },
        { module: "letta", node: "hq-4" },
      ],
    }
    expect(planned(records, "letta", " ", "c", ["hq-3"])).toEqual({
      ok: false,
      problem: "--build: give the new build's id (it is empty)",
    })
    expect(planned(records, "letta", "b", " ", ["hq-3"])).toEqual({
      ok: false,
      problem: "--commit: give the commit the build was made from (it is empty)",
    })
    expect(planned(records, "letta", "b", "c", ["hq-3", "hq-4", "hq-3"])).toEqual({
      ok: false,
      problem: "--first: hq-3 is named twice",
    })
    expect(planned(records, "letta", "b", "c", ["hq-5"])).toEqual({
      ok: false,
      problem: "letta is not assigned to hq-5; it runs on hq-3, hq-4",
    })
    expect(planned({ ...records, assignments: [] }, "letta", "b", "c", ["hq-3"])).toEqual({
      ok: false,
      problem: "letta is not assigned to hq-3; it runs on no machine",
    })
    const p = planned(records, "grafana", "g-2", "c2", ["hq-5"])
    expect(p).toMatchObject({ ok: true, plan: { machines: ["hq-5"], rest: [], previousBuild: "g-1", previous: "" } })
    // No commit known for what grafana ran before: only the new build is kept.
    expect(p.ok && p.builds).toEqual([{ build: "g-2", module: "grafana", commit: "c2" }])
    expect(p.ok && p.records.modules).toEqual([
      { name: "letta", build: "letta-203", commit: "a71c3d09e4" },
      { name: "grafana", build: "g-2", commit: "c2" },
    ])
    expect(p.ok && p.records.assignments).toEqual(records.assignments)
  })
})
