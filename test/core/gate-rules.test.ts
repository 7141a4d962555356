// The release gate and module health (seed 003, ADR 0236 and 0240), as properties.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { Condition, GateFacts, Reported, Statement, WitnessVerdict } from "@mesh-core/core/gate/judging/facts"
import { hearStatement, type KeptHealth } from "@mesh-core/core/gate/judging/health"
import {
  defaultGateSettings,
  type Gate,
  healthBroken,
  healthGood,
  healthNotYet,
  judgeHealth,
  judgeMoves,
  openGate,
} from "@mesh-core/core/gate/judging/judge"
import { aboutTheMachine } from "@mesh-core/core/gate/judging/conditions"
import { dedupe, gateObservation, witnessObservation } from "@mesh-core/core/gate/judging/observations"
import { batchRollbacks, type BuildFacts, unchangedBy } from "@mesh-core/core/gate/tick/rollback"
import { decideRollback } from "../support/rollback.ts"
import { released as planned } from "../support/plan-records.ts"

const machines = ["hq-1", "hq-2", "hq-3"]
const modules = ["letta", "grafana", "node-engine", "node-tools"]
const noFacts = (now: number): GateFacts => ({
  now,
  reports: {},
  engines: {},
  served: { ok: true, value: {} },
  open: { ok: true, value: [] },
  rolledBack: {},
  holder: { ok: true, value: null },
  health: { ok: true, value: {} },
})

describe("module health (ADR 0240)", () => {
  const states = fc.array(fc.record({ gap: fc.integer({ min: -3, max: 5 }), unhealthy: fc.boolean() }), {
    maxLength: 30,
  })
  it("raises module.<module>.<machine>.unhealthy on the second statement in a row that says it, and clears it on the first that does not; an older statement changes nothing", () => {
    fc.assert(
      fc.property(states, (seq) => {
        let kept: KeptHealth | null = null
        let t = 1_000
        let newest = Number.NEGATIVE_INFINITY
        let inRow = 0
        let raised = false
        for (const { gap, unhealthy } of seq) {
          t += gap * 1_000
          const s: Statement = {
            machine: "hq-3",
            at: t,
            resources: [
              {
                resource: "letta-app",
                module: "letta",
                state: unhealthy ? "unhealthy" : "healthy",
                reason: "crash loop",
              },
            ],
          }
          const w = hearStatement(kept, s)
          if (t <= newest) {
            expect(w).toEqual({ keep: undefined, raise: [], clear: [] })
            continue
          }
          kept = w.keep!
          newest = t
          inRow = unhealthy ? inRow + 1 : 0
          expect(w.raise.map((r) => r.observation.key)).toEqual(inRow === 2 ? ["module.letta.hq-3.unhealthy"] : [])
          if (inRow === 2) raised = true
          expect(w.clear).toEqual(!unhealthy && raised ? ["module.letta.hq-3.unhealthy"] : [])
          if (!unhealthy) raised = false
          expect(kept.statement.at).toBe(newest)
          expect(kept.streaks).toEqual(inRow === 0 ? {} : { letta: inRow })
        }
      }),
    )
  })
})

const condition: fc.Arbitrary<Condition> = fc
  .record({
    n: fc.nat(1000),
    raised: fc.integer({ min: 0, max: 200 }),
    scope: fc.constantFrom("machine", "module", "build"),
    on: fc.constantFrom(...machines),
    named: fc.constantFrom(...modules, "other"),
    kind: fc.constantFrom("core-behind", "disk-full", "unhealthy"),
    source: fc.constantFrom("DG", "D10", "DH"),
    also: fc.subarray(machines, { maxLength: 1 }),
  })
  .map((c) => ({
    key: `${c.scope}.${c.named}.${c.on}.${c.kind}.${c.n}`,
    source: c.source,
    raised: c.raised * 1_000,
    scope: c.scope,
    id: c.scope === "machine" ? c.on : `${c.named}.${c.on}`,
    ...(c.scope === "machine" ? {} : { machine: c.on }),
    also: c.also,
    kind: c.kind,
    summary: `${c.kind} ${c.n}`,
  }))

const facts: fc.Arbitrary<GateFacts> = fc
  .record({
    open: fc.array(condition, { maxLength: 12 }),
    outcome: fc.constantFrom("applied", "applied", "failed", "refused", "converging"),
    state: fc.constantFrom("healthy", "starting", "unhealthy"),
    stated: fc.integer({ min: 0, max: 200 }),
  })
  .map(({ open, outcome, state, stated }) => ({
    ...noFacts(300_000),
    reports: Object.fromEntries(machines.map((m) => [m, { at: 1, current: true, outcome } satisfies Reported])),
    open: { ok: true, value: open },
    health: {
      ok: true,
      value: Object.fromEntries(
        machines.map((m) => [
          m,
          {
            machine: m,
            at: stated * 1_000,
            resources: [{ resource: "r", module: "letta", state, reason: "x" }],
          } satisfies Statement,
        ]),
      ),
    },
  }))

describe("judging", () => {
  it("indexing the open conditions once per judging answers exactly what the seed's rescan of every condition for every module answers", () => {
    fc.assert(
      fc.property(
        facts,
        fc.integer({ min: 0, max: 200 }),
        fc.subarray(
          machines.flatMap((n) => modules.map((m) => ({ module: m, node: n }))),
          { minLength: 1 },
        ),
        (f, since, pairs) => {
          const g = openGate("letta", machines, "aaaaaaa1", "bbbbbbb2", since * 1_000, pairs)
          const indexed = judgeMoves(g, [], f, new Map())
          const rescanned = judgeMoves(g, [], f, new Map(), defaultGateSettings, true)
          expect(indexed).toEqual(rescanned)
        },
      ),
      { numRuns: 500 },
    )
  })

  it("judgeHealth: a witness's verdict since the send is broken; no current report is not yet; failed or refused is broken", () => {
    const f = noFacts(100_000)
    expect(judgeHealth("letta", "", { tools: [], deliveredVersions: [] }, "hq-3", 0, f).health).toBe(healthNotYet)
    const failed = { ...f, reports: { "hq-3": { at: 1, current: true, outcome: "refused" } } }
    expect(judgeHealth("letta", "", { tools: [], deliveredVersions: [] }, "hq-3", 0, failed)).toEqual({
      health: healthBroken,
      why: "hq-3 refused what it was sent",
    })
    const witness: WitnessVerdict = {
      component: "node-engine",
      outcome: "rolled-back",
      from: "abcdef0123",
      to: "9876543",
      why: "crashed",
      at: 50_000,
    }
    const witnessed = { ...f, rolledBack: { "hq-3": [witness, { ...witness, outcome: "unwitnessed" }] } }
    expect(
      judgeHealth("node-engine", "node-engine", { tools: [], deliveredVersions: [] }, "hq-3", 0, witnessed).health,
    ).toBe(healthBroken)
    expect(
      judgeHealth("node-engine", "node-engine", { tools: [], deliveredVersions: [] }, "hq-3", 60_000, witnessed).health,
    ).toBe(healthNotYet)
    const stale = { ...f, reports: { "hq-3": { at: 1, current: false, outcome: "applied" } } }
    expect(judgeHealth("letta", "", { tools: [], deliveredVersions: [] }, "hq-3", 0, stale).why).toBe(
      "hq-3 has not reported on what it was sent",
    )
  })

  it("an engine that states nothing is judged as before; one still starting makes the gate wait; a gate's own conditions are no evidence", () => {
    const applied = { ...noFacts(100_000), reports: { "hq-3": { at: 1, current: true, outcome: "applied" } } }
    const m = { tools: [], deliveredVersions: [] }
    expect(judgeHealth("letta", "", m, "hq-3", 0, applied).health).toBe(healthGood)
    const starting = {
      ...applied,
      health: {
        ok: true as const,
        value: {
          "hq-3": {
            machine: "hq-3",
            at: 5,
            resources: [{ resource: "letta-app", module: "letta", state: "starting" as const }],
          },
        },
      },
    }
    expect(judgeHealth("letta", "", m, "hq-3", 0, starting)).toEqual({
      health: healthNotYet,
      why: "letta-app of letta on hq-3 is still starting",
    })
    const own = {
      ...applied,
      open: {
        ok: true as const,
        value: [
          {
            key: "build.letta.hq-3.rolled-back",
            source: "DG",
            raised: 5,
            scope: "build",
            id: "letta.hq-3",
            machine: "hq-3",
            also: [],
            kind: "rolled-back",
            summary: "",
          },
        ],
      },
    }
    expect(judgeHealth("letta", "", m, "hq-3", 0, own).health).toBe(healthGood)
    const unreadable = { ...applied, health: { ok: false as const, why: "store down" } }
    expect(judgeHealth("letta", "", m, "hq-3", 0, unreadable).health).toBe(healthNotYet)
  })

  it("aboutTheMachine sorts machine-level conditions into the moved module they name, the core when it is core-behind and the send moved the engine or node tools, or the machine as a whole (issue 281)", () => {
    const c = (id: string, kind: string): Condition => ({
      key: `machine.${id}.${kind}`,
      source: "D10",
      raised: 10,
      scope: "machine",
      id,
      machine: "hq-3",
      also: [],
      kind,
      summary: kind,
    })
    const f = { ...noFacts(0), open: { ok: true as const, value: [] } }
    const named = aboutTheMachine("hq-3", ["letta", "grafana"], 0, f, [c("hq-3.letta", "disk-full")])
    expect([...named.on.keys()]).toEqual(["letta"])
    const coreMoved = aboutTheMachine("hq-3", ["letta", "node-engine"], 0, f, [c("hq-3", "core-behind")])
    expect([...coreMoved.on.keys()]).toEqual(["node-engine"])
    expect(coreMoved.on.get("node-engine")).toContain("(its settle window runs to the gate's bound)")
    const coreNotMoved = aboutTheMachine("hq-3", ["letta"], 0, f, [c("hq-3", "core-behind")])
    expect(coreNotMoved.on.size + coreNotMoved.whole.length).toBe(0)
    expect(aboutTheMachine("hq-3", ["letta"], 0, f, [c("hq-3", "disk-full")]).whole).toBe(
      "hq-3 as a whole: raised since it was sent: machine.hq-3.disk-full — disk-full",
    )
  })
})

// ---- a model of a gate over random histories ----

type Event =
  | { readonly kind: "report"; readonly outcome: string }
  | { readonly kind: "statement"; readonly state: "healthy" | "starting" | "unhealthy" }
  | { readonly kind: "condition"; readonly scope: "machine" | "module" }
  | { readonly kind: "witness" }
  | { readonly kind: "nothing" }

const event: fc.Arbitrary<Event> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc
      .constantFrom("applied", "applied", "applied", "converging", "failed")
      .map((outcome) => ({ kind: "report" as const, outcome })),
  },
  {
    weight: 4,
    arbitrary: fc
      .constantFrom("healthy", "healthy", "healthy", "starting", "unhealthy")
      .map((state) => ({ kind: "statement" as const, state: state as "healthy" })),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom("machine", "module")
      .map((scope) => ({ kind: "condition" as const, scope: scope as "machine" })),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "witness" as const }) },
  { weight: 6, arbitrary: fc.constant({ kind: "nothing" as const }) },
)
const history = fc.array(fc.record({ gap: fc.integer({ min: 1_000, max: 40_000 }), event, judge: fc.boolean() }), {
  minLength: 1,
  maxLength: 80,
})

describe("a gate over random histories of reports, conditions, statements and witness verdicts", () => {
  it("never passes before gateSettle nor with fewer than gatePasses healthy judgings in a row, never passes a module (other than the core, judged by its own health definitions) that the statement it judges says unhealthy, and always has a verdict by gateBound plus one gateEvery", () => {
    fc.assert(
      fc.property(history, fc.constantFrom("letta", "node-engine"), (steps, module) => {
        const s = defaultGateSettings
        const since = 0
        let g: Gate = openGate(module, ["hq-3"], "aaaaaaa", "bbbbbbb", since)
        let t = since
        let lastJudgedAt = since
        let report: Reported | undefined
        let statement: Statement | undefined
        const open: Array<Condition> = []
        const witnesses: Array<WitnessVerdict> = []
        let healthyInRow = 0
        let verdictAt: number | undefined
        for (const step of [
          ...steps,
          ...Array.from({ length: 20 }, () => ({ gap: 40_000, event: { kind: "nothing" as const }, judge: true })),
        ]) {
          t += step.gap
          const e = step.event
          if (e.kind === "report") report = { at: t, current: true, outcome: e.outcome }
          if (e.kind === "statement")
            statement = {
              machine: "hq-3",
              at: t,
              resources: [{ resource: `${module}-main`, module, state: e.state, reason: "exit 137" }],
            }
          if (e.kind === "condition")
            open.push({
              key: `c${t}`,
              source: "D1",
              raised: t,
              scope: e.scope,
              id: e.scope === "machine" ? "hq-3" : `${module}.hq-3`,
              machine: "hq-3",
              also: [],
              kind: "x",
              summary: "x",
            })
          if (e.kind === "witness")
            witnesses.push({
              component: "node-engine",
              outcome: "rolled-back",
              from: "bbbbbbb",
              to: "aaaaaaa",
              why: "died",
              at: t,
            })
          if (!step.judge && t - lastJudgedAt < s.every) continue
          const f: GateFacts = {
            ...noFacts(t),
            reports: report === undefined ? {} : { "hq-3": report },
            open: { ok: true, value: [...open] },
            rolledBack: { "hq-3": [...witnesses] },
            health: { ok: true, value: statement === undefined ? {} : { "hq-3": statement } },
          }
          const before = g
          const r = judgeMoves(g, [{ module, node: "hq-3" }], f, new Map())
          g = r.gate
          if (before.verdict !== "") {
            expect(g).toBe(before) // a verdict once given is kept
            continue
          }
          if (!r.judged) continue
          lastJudgedAt = t
          healthyInRow = r.worst === healthGood ? healthyInRow + 1 : 0
          if (g.verdict === "passed") {
            expect(t - since).toBeGreaterThanOrEqual(s.settle)
            expect(healthyInRow).toBeGreaterThanOrEqual(s.passes)
            if (module === "letta" && statement !== undefined && statement.at >= since)
              expect(statement.resources.every((x) => x.state === "healthy")).toBe(true)
          }
          if (g.verdict !== "" && verdictAt === undefined) verdictAt = t
        }
        expect(g.verdict).not.toBe("")
        expect(verdictAt! - since).toBeLessThanOrEqual(s.bound + s.every)
      }),
      { numRuns: 300 },
    )
  })
})

describe("the rollback, as a value", () => {
  const move = { module: "letta", machines: ["hq-3"], build: "build-9", previous: "aaaaaaa111", commit: "bbbbbbb222" }
  it("decides in the seed's order, asking for each fact only when it needs it", () => {
    const none = { unchanged: false }
    expect(decideRollback(move, "w", { ...none, unchanged: true })).toMatchObject({
      rollback: "unchanged",
    })
    expect(decideRollback({ ...move, build: "" }, "w", none)).toMatchObject({
      rollback: "not-rolled-back",
    })
    expect(() => decideRollback(move, "w", none)).toThrow("asked: record-verdict")
    expect(decideRollback(move, "w", { ...none, recorded: "already-kept" })).toMatchObject({
      rollback: "already-kept",
    })
    expect(decideRollback({ ...move, previous: "" }, "w", { ...none, recorded: "recorded" })).toMatchObject({
      rollback: "not-rolled-back",
      said: expect.stringContaining("first build of letta"),
    })
    expect(() => decideRollback(move, "w", { ...none, recorded: "recorded" })).toThrow("asked: previous-build")
    expect(
      decideRollback(move, "w", { ...none, recorded: "recorded", previousBuild: { found: false, why: "gone" } }),
    ).toMatchObject({ rollback: "not-rolled-back", said: "NOT put back: gone" })
    expect(
      decideRollback(move, "w", {
        ...none,
        recorded: "recorded",
        previousBuild: { found: true, build: "build-8", commit: "aaaaaaa111" },
      }),
    ).toEqual({ rollback: "restore", build: "build-8", commit: "aaaaaaa111" })
  })

  it("a send unchanged by the same commit, the same source or the same artifacts from the same manifest is no verdict on its build (issue 280)", () => {
    // What the build records say of each commit's build.
    const built: Readonly<Record<string, BuildFacts>> = {
      c1: { source: "s" },
      c2: { source: "s" },
      c3: { manifest: "m", artifacts: "a" },
      c4: { manifest: "m", artifacts: "a" },
      c5: { manifest: "n", artifacts: "a" },
    }
    const unchanged = (from: string, to: string) => unchangedBy(from, to, built[from], built[to])
    expect([
      unchanged("c1", "c1"),
      unchanged("c1", "c2"),
      unchanged("c3", "c4"),
      unchanged("c3", "c5"),
      unchanged("", "c1"),
    ]).toEqual([true, true, true, false, false])
  })

  it("puts back every module a failed send put back in one send per machine", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            module: fc.constantFrom(...modules),
            machines: fc.subarray(machines, { minLength: 1 }),
            build: fc.constantFrom("b1", "b2"),
          }),
        ),
        (restores) => {
          const sends = batchRollbacks(restores)
          expect(new Set(sends.map((s) => s.machine)).size).toBe(sends.length)
          for (const r of restores)
            for (const m of r.machines)
              expect(sends.find((s) => s.machine === m)!.modules.map((x) => x.module)).toContain(r.module)
        },
      ),
    )
  })

  it("says a failed gate as build.<module>.<machine>.rolled-back (warning), core.<component>.<machine>.rolled-back (urgent), rollback-failed (urgent, for a person), and witness verdicts with the seed's severities", () => {
    const build = gateObservation("letta", "", ["hq-3"], "rolled-back", "w", "", "bbbbbbb222", "aaaaaaa111")
    expect(build).toMatchObject({ key: "build.letta.hq-3.rolled-back", severity: "warning" })
    expect(build.resolver).toBeUndefined()
    expect(gateObservation("node-engine", "node-engine", ["hq-3"], "rolled-back", "w", "", "b", "a")).toMatchObject({
      key: "core.node-engine.hq-3.rolled-back",
      severity: "urgent",
    })
    expect(gateObservation("letta", "", ["hq-3"], "not-rolled-back", "w", "gone", "b", "a")).toMatchObject({
      key: "build.letta.hq-3.rollback-failed",
      severity: "urgent",
      resolver: "operator",
    })
    const w = (outcome: string) =>
      witnessObservation("hq-3", { component: "node-engine", outcome, from: "f", to: "t", why: "x", at: 0 })
    expect(
      ["rolled-back", "not-reversible", "restore-failed", "halted", "nothing-to-restore", "unwitnessed"].map((o) => [
        w(o).key,
        w(o).severity,
      ]),
    ).toEqual([
      ["core.node-engine.hq-3.rolled-back", "urgent"],
      ["core.node-engine.hq-3.not-reversible", "urgent"],
      ["core.node-engine.hq-3.restore-failed", "urgent"],
      ["core.node-engine.hq-3.halted", "urgent"],
      ["core.node-engine.hq-3.nothing-to-restore", "warning"],
      ["core.node-engine.hq-3.unwitnessed", "warning"],
    ])
    const o = gateObservation("letta", "", ["hq-3"], "rolled-back", "w", "", "b", "a")
    expect(dedupe([o, { ...o, summary: "later" }, w("halted")]).map((x) => x.summary)).toEqual([
      o.summary,
      w("halted").summary,
    ]) // one per key, the first
  })
})

describe("opening a release", () => {
  it("sends the first machines, keeps the rest for the gate, and remembers what the first ran before; refuses what it cannot do", async () => {
    const records = {
      mesh: "hq",
      nodes: ["hq-3", "hq-4"],
      modules: [{ name: "letta", build: "letta-203", commit: "a71c3d09e4" }],
      assignments: [
        { module: "letta", node: "hq-3" },
        { module: "letta", node: "hq-4" },
      ],
    }
    const p = planned(records, "letta", "letta-204", "5e1f0c2a9b", ["hq-3"])
    expect(p).toMatchObject({
      ok: true,
      plan: { machines: ["hq-3"], rest: ["hq-4"], previousBuild: "letta-203", previous: "a71c3d09e4" },
    })
    expect(p.ok && p.records.modules[0]).toEqual({ name: "letta", build: "letta-204", commit: "5e1f0c2a9b" })
    expect(planned(records, "grafana", "g", "c", ["hq-3"])).toEqual({
      ok: false,
      problem: "no module named grafana is registered",
    })
    expect(planned(records, "letta", "letta-204", "c", ["hq-9"])).toEqual({
      ok: false,
      problem: "letta is not assigned to hq-9; it runs on hq-3, hq-4",
    })
    expect(planned(records, "letta", "letta-203", "c", ["hq-3"])).toEqual({
      ok: false,
      problem: "letta is at letta-203 already",
    })
  })
})
