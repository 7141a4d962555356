// What a plan's judging reads (seed 003 rule 003-3, issue 26): a failed read of one input touches
// only the plans that need it, and what could not be read is never judged. The property states the
// rule from outside the code: whatever an input a plan does not need says — or that it could not be
// read at all — the plan's judging is the same. The tick's tests then show an input that could not be
// read ending the judging of the plans that need it, never failing a build at its bound, said once.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { Condition, GateFacts, Manifest, Statement, WitnessVerdict } from "@mesh-core/core/gate/judging/facts"
import type { Readable } from "@mesh-core/core/outcome"
import { type GateInput, gateInputs, inputsOfModule, inputsOfPlan } from "@mesh-core/core/gate/judging/inputs"
import { couldNotAsk } from "@mesh-core/core/gate/plan/errors"
import { entriesOf } from "@mesh-core/core/gate/plan/history"
import { judgeMoves, openGate, type Pair } from "@mesh-core/core/gate/judging/judge"
import type { PlanRecord } from "@mesh-core/core/gate/plan/records"
import type { GateFactsRecord } from "@mesh-core/core/gate/judging/facts"
import { basePlan, ok, run, settings } from "./gate-world.ts"

const machines = ["hq-1", "hq-2"]
const modules = ["controller", "node-engine", "node-tools", "letta", "grafana"]
const now = 600_000

// Drawn mostly readable and mostly healthy, so a judging often reaches the check each input feeds.
const unreadable = <A>(value: fc.Arbitrary<A>): fc.Arbitrary<Readable<A>> =>
  fc.oneof(
    { weight: 3, arbitrary: value.map((v) => ({ ok: true as const, value: v })) },
    { weight: 1, arbitrary: fc.constantFrom("store away", "bus away").map((why) => ({ ok: false as const, why })) },
  )
const why = fc.oneof(
  { weight: 3, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constantFrom("store away", "relation does not exist") },
)
const mostly = <A>(usual: A, ...others: ReadonlyArray<A>) =>
  fc.oneof({ weight: 3, arbitrary: fc.constant(usual) }, { weight: 1, arbitrary: fc.constantFrom(usual, ...others) })
const time = fc.integer({ min: 0, max: now })
const perMachine = <A>(value: fc.Arbitrary<A>): fc.Arbitrary<Readonly<Record<string, A>>> =>
  fc
    .subarray(machines)
    .chain((ms) => fc.tuple(...ms.map(() => value)).map((vs) => Object.fromEntries(ms.map((m, i) => [m, vs[i]!]))))

const manifest: fc.Arbitrary<Manifest> = fc.record({
  tools: fc.subarray(["letta", "grafana"]),
  deliveredVersions: fc.subarray(["v1", "v2"]),
})
const condition: fc.Arbitrary<Condition> = fc
  .record({
    machine: fc.constantFrom(...machines),
    scope: fc.constantFrom("machine", "module"),
    named: fc.constantFrom(...modules),
    source: fc.constantFrom("D1", "DG"),
    raised: time,
    coreBehind: fc.boolean(),
  })
  .map((c) => ({
    key: `${c.scope}.${c.named}.${c.machine}.${c.coreBehind ? "core-behind" : "x"}`,
    source: c.source,
    raised: c.raised,
    scope: c.scope,
    id: c.scope === "machine" ? c.machine : `${c.named}.${c.machine}`,
    machine: c.machine,
    also: [],
    kind: c.coreBehind ? "core-behind" : "x",
    summary: "s",
  }))
const witness: fc.Arbitrary<WitnessVerdict> = fc.record({
  component: fc.constantFrom("controller", "node-engine", "node-tools"),
  outcome: fc.constantFrom("rolled-back", "halted", "unwitnessed", "nothing-to-restore"),
  from: fc.constant("5e1f0c2"),
  to: fc.constant("a71c3d0"),
  why: fc.constant("it crashed"),
  at: time,
})
const statement = (machine: string): fc.Arbitrary<Statement> =>
  fc.record({
    machine: fc.constant(machine),
    at: time,
    resources: fc.array(
      fc.record({
        resource: fc.constant("main"),
        module: fc.constantFrom(...modules),
        state: fc.constantFrom("healthy" as const, "starting" as const, "unhealthy" as const),
      }),
      { maxLength: 3 },
    ),
  })

/** Each input of a judging, drawn on its own, so one can be drawn again while the rest stay. */
const inputs = {
  reports: fc.record({
    reports: fc
      .tuple(
        ...machines.map(() =>
          fc.record({
            at: mostly<number | null>(1, null),
            current: mostly(true, false),
            outcome: mostly("applied", "converging", "failed", "refused"),
          }),
        ),
      )
      .map((rs) => Object.fromEntries(machines.map((m, i) => [m, rs[i]!]))),
    reportsUnread: why,
  }),
  conditions: fc.record({
    open: fc.oneof(
      { weight: 3, arbitrary: fc.constant({ ok: true as const, value: [] }) },
      { weight: 1, arbitrary: fc.option(unreadable(fc.array(condition, { maxLength: 4 })), { nil: undefined }) },
    ),
  }),
  discovery: fc.record({
    served: unreadable(
      perMachine(fc.record({ runtime: mostly(true, false), tools: fc.subarray(["letta", "grafana"]) })),
    ),
  }),
  lease: fc.record({
    holder: unreadable(
      fc.option(
        fc.record({ taken: time, ready: fc.option(fc.boolean(), { nil: undefined }), why: fc.constant(undefined) }),
        {
          nil: null,
        },
      ),
    ),
  }),
  statements: fc.record({
    health: unreadable(
      fc
        .tuple(statement("hq-1"), statement("hq-2"), fc.subarray(machines))
        .map(([a, b, stated]) =>
          Object.fromEntries([a, b].filter((s) => stated.includes(s.machine)).map((s) => [s.machine, s])),
        ),
    ),
  }),
  engines: fc.record({ engines: perMachine(fc.constantFrom("v1", "v2")), enginesUnread: why }),
  witnesses: fc.record({ rolledBack: perMachine(fc.array(witness, { maxLength: 2 })), witnessesUnread: why }),
  manifests: fc.record({ manifests: fc.tuple(...modules.map(() => manifest)), manifestsUnread: why }),
} satisfies Record<GateInput, fc.Arbitrary<object>>

type Drawn = Record<GateInput, object>

/** A judging's facts and the modules' manifests, out of each input drawn. */
const factsOf = (d: Drawn) => {
  const { manifests, manifestsUnread } = d.manifests as {
    readonly manifests: ReadonlyArray<Manifest>
    readonly manifestsUnread: string | undefined
  }
  const parts = gateInputs.filter((i) => i !== "manifests").map((i) => d[i])
  const facts = Object.assign({ now, manifestsUnread }, ...parts) as GateFacts
  return { facts, manifests: new Map(modules.map((name, i) => [name, manifests[i]!])) }
}

const drawn: fc.Arbitrary<Drawn> = fc.record(inputs)

describe("which inputs a plan's judging reads (inputsOfModule)", () => {
  it("an input a plan does not need, whatever it says or whether it could be read at all, changes nothing of its judging", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...modules),
        fc.option(fc.constantFrom(...modules), { nil: undefined }),
        drawn,
        drawn,
        fc.integer({ min: 0, max: now }),
        fc.integer({ min: 0, max: 2 }),
        (module, carried, a, b, since, passes) => {
          const pairs: ReadonlyArray<Pair> = machines.map((node) => ({ module, node }))
          const gate = {
            ...openGate(
              module,
              machines,
              "a71c3d0",
              "5e1f0c2",
              since,
              carried === undefined ? [] : [{ module: carried, node: "hq-2" }],
            ),
            passes,
          }
          const first = factsOf(a)
          const needs = inputsOfPlan(module, gate.carried, first.manifests)
          // Every input the plan does not need drawn again, independently.
          const mixed = { ...a }
          for (const input of gateInputs) if (!needs.has(input)) mixed[input] = b[input]
          const second = factsOf(mixed)
          const s = { ...settings, bound: 300_000, settle: 120_000 }
          expect(judgeMoves(gate, pairs, second.facts, second.manifests, s)).toEqual(
            judgeMoves(gate, pairs, first.facts, first.manifests, s),
          )
          // And what it could not ask of them is never said against it.
          expect(couldNotAsk(second.facts, needs)).toEqual(couldNotAsk(first.facts, needs))
        },
      ),
      { numRuns: 400 },
    )
  })

  it("what each module reads, as judgeHealth reads it", () => {
    const of = (module: string, m?: Manifest) => [...inputsOfModule(module, m)].sort()
    const none: Manifest = { tools: [], deliveredVersions: [] }
    expect(of("controller", none)).toEqual(["conditions", "lease", "reports", "witnesses"])
    expect(of("node-engine", none)).toEqual(["conditions", "engines", "manifests", "reports", "witnesses"])
    expect(of("node-tools", none)).toEqual(["conditions", "discovery", "reports", "witnesses"])
    expect(of("letta", none)).toEqual(["conditions", "manifests", "reports", "statements"])
    expect(of("letta", { tools: ["letta"], deliveredVersions: [] })).toEqual([
      "conditions",
      "discovery",
      "manifests",
      "reports",
      "statements",
    ])
    // A manifest that could not be read may name tools: who serves them is needed too.
    expect(of("letta")).toEqual(["conditions", "discovery", "manifests", "reports", "statements"])
    expect([...inputsOfPlan("letta", [{ module: "controller" }], new Map([["letta", none]]))].sort()).toEqual([
      "conditions",
      "lease",
      "manifests",
      "reports",
      "statements",
      "witnesses",
    ])
  })
})

// ---- the tick: a failed read ends the judging of the plans that need it, and only theirs ----

const unread = (patch: (f: GateFactsRecord) => GateFactsRecord) => (q: { q: string }, _s: number, now: number) =>
  q.q === "gate-facts" ? patch(factsAt(now)) : undefined
const factsAt = (now: number): GateFactsRecord => ({
  now,
  engines: {},
  served: { ok: true, value: {} },
  open: { ok: true, value: [] },
  rolledBack: {},
  holder: { ok: true, value: null },
  health: { ok: true, value: {} },
  reports: Object.fromEntries(
    ["hq-1", "hq-2", "hq-3", "hq-4", "hq-5"].map((m) => [m, { at: now - 10, current: true, outcome: "applied" }]),
  ),
})
const oneTier: PlanRecord = { ...basePlan, tiers: [["hq-1"]] }
const judgingWords = (p: PlanRecord) => entriesOf(p.history).flatMap((e) => (e.kind === "judging" ? [e.word] : []))

describe("a failed read touches only the plans that need it", () => {
  it("the lease and the bus's discovery that cannot be read are no input of a module without tools: it is judged, and passes", () => {
    const r = run([ok, ok, ok, ok], oneTier, {
      answer: unread((f) => ({
        ...f,
        holder: { ok: false, why: "the lease bucket timed out" },
        served: { ok: false, why: "no responders" },
      })),
    })
    expect(r.plan.state).toBe("passed")
    expect(judgingWords(r.plan)).toEqual(["healthy", "healthy"])
    expect(r.said.join("\n")).not.toContain("could not ask")
  })

  it("the controller's own release, with who holds the lease unread, could not ask: never judged without it", () => {
    const ctl: PlanRecord = { ...oneTier, id: "controller-9", module: "controller", build: "controller-9" }
    const r = run([ok, ok, ok], ctl, {
      settings: { ...settings, errorLimit: 10 },
      answer: unread((f) => ({ ...f, holder: { ok: false, why: "the lease bucket timed out" } })),
    })
    expect(r.plan.state).toBe("open")
    expect(judgingWords(r.plan)).toEqual(["could-not-ask", "could-not-ask"])
  })
})

describe("reports that could not be read (003-3)", () => {
  // The bound is 10s; the gate judges every 1.1s. Reports unread from the first judging on, for 20 judgings.
  const away = (steps: number) => (_q: { q: string }, step: number) => step >= 1 && step <= steps
  const reportsAway = (steps: number) => (q: { q: string }, step: number, now: number) =>
    q.q === "gate-facts" && away(steps)(q, step)
      ? { ...factsAt(now), reports: {}, reportsUnread: 'relation "reports" does not exist\n    at query' }
      : undefined

  it("end each judging: the bound is not run on them, the build is never failed by them, the history says could-not-ask", () => {
    const r = run(
      Array.from({ length: 21 }, () => ok),
      oneTier,
      {
        settings: { ...settings, errorLimit: 100 },
        answer: reportsAway(20),
      },
    )
    expect(r.at[20]! - r.at[1]!).toBeGreaterThan(settings.bound)
    expect(r.plan.state).toBe("open")
    expect(r.verdicts).toEqual([])
    expect(judgingWords(r.plan)).toEqual(Array.from({ length: 20 }, () => "could-not-ask"))
    expect(entriesOf(r.plan.history).at(-1)).toMatchObject({
      why: 'what the machines reported cannot be read: relation "reports" does not exist',
    })
  })

  it("are said once, not a line per judging, and again when what could not be read changes", () => {
    const r = run(
      Array.from({ length: 6 }, () => ok),
      oneTier,
      {
        settings: { ...settings, errorLimit: 100 },
        answer: (q, step, now) =>
          q.q !== "gate-facts" || step === 0
            ? undefined
            : step <= 3
              ? { ...factsAt(now), reports: {}, reportsUnread: "store away" }
              : { ...factsAt(now), open: { ok: false, why: "store away" } },
      },
    )
    expect(r.said.filter((l) => l.includes("could not ask"))).toEqual([
      "[gate] letta-205: could not ask (1 of 100 in a row before it is paused): what the machines reported cannot be read: store away",
      "[gate] letta-205: could not ask (4 of 100 in a row before it is paused): what is wrong cannot be read: store away",
    ])
  })

  it("once readable again, the build healthy all along passes: what could not be read cost it nothing but time", () => {
    const r = run(
      Array.from({ length: 10 }, () => ok),
      oneTier,
      {
        settings: { ...settings, errorLimit: 100, bound: 3_000 },
        answer: reportsAway(5),
      },
    )
    expect(r.plan.state).toBe("passed")
    expect(judgingWords(r.plan)).toEqual([...Array.from({ length: 5 }, () => "could-not-ask"), "healthy", "healthy"])
  })

  it("a witness's verdict read beside them is evidence still: the core component fails its gate", () => {
    const engine: PlanRecord = { ...oneTier, id: "node-engine-8", module: "node-engine", build: "node-engine-8" }
    const r = run([ok, ok], engine, {
      answer: (q, step, now) =>
        q.q === "gate-facts" && step === 1
          ? {
              ...factsAt(now),
              reports: {},
              reportsUnread: "store away",
              rolledBack: {
                "hq-1": [
                  {
                    component: "node-engine",
                    outcome: "rolled-back",
                    from: "5e1f0c2",
                    to: "a71c3d0",
                    why: "it crashed",
                    at: now - 1,
                  },
                ],
              },
            }
          : undefined,
    })
    expect(r.verdicts.map((v) => [v.build, v.verdict, v.why])).toEqual([
      ["node-engine-8", "failed", "the witness on hq-1 judged the node-engine 5e1f0c2 and rolled-back: it crashed"],
    ])
  })
})
