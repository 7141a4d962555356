// What a plan's tier send moves beside its own module (seed 003's Carried, passCarried and running
// filter, rules 003-14/15/17; unchangedBy by artifacts, 003-23/24; issue 26). Stated from the rules:
// a module whose build the send changed on a machine moved with the plan's and is judged with it
// there, and passes with its gate; a machine told a declaration without the module is not judged on
// it; two builds that made the same artifacts from the same manifest are the same thing.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { planSendOutcome, type PushEnd } from "@mesh-core/core/delivery/push"
import { afterTierPass, afterTierSend, carriedPairs, judgedOn } from "@mesh-core/core/gate/plan/plan"
import { heldMachines } from "@mesh-core/core/delivery/held"
import type { PlanRecord } from "@mesh-core/core/gate/plan/records"
import { type BuildFacts, unchangedBy } from "@mesh-core/core/gate/tick/rollback"
import { carriedBuilds } from "@mesh-core/core/gate/tick/carried"
import { releaseRow } from "@mesh-core/core/gate/operator/release"
import type { Question } from "@mesh-core/core/controller/catalogue"
import type { VerdictRecord } from "@mesh-core/core/gate/plan/records"
import { basePlan, ok, run, type Step, worldFacts } from "./gate-world.ts"

const modules = ["letta", "cortex", "broker"]
const builds = ["b1", "b2", "b3"]
const buildsArb = fc.dictionary(fc.constantFrom(...modules), fc.constantFrom(...builds), { maxKeys: 3 })
const toldArb = fc.uniqueArray(
  fc.record({
    node: fc.constantFrom("hq-1", "hq-2", "hq-3", "hq-4"),
    builds: fc.option(buildsArb, { nil: undefined }),
    before: fc.option(buildsArb, { nil: undefined }),
  }),
  { selector: (t) => t.node },
)

describe("what a plan's send answers beside the machines told (delivery's planSendOutcome)", () => {
  it("without: exactly the machines asked and told whose declaration does not carry the module; carried: each other module whose build changed where the build before is known", () => {
    fc.assert(
      fc.property(toldArb, fc.subarray(["hq-1", "hq-2", "hq-3", "hq-4"], { minLength: 1 }), (told, asked) => {
        const end: PushEnd = {
          result: {
            told: told.map((t) => ({
              node: t.node,
              sequence: 1,
              digest: "d",
              resources: 1,
              ...(t.builds === undefined ? {} : { builds: t.builds }),
              ...(t.before === undefined ? {} : { before: t.before }),
            })),
            refusals: [],
            error: undefined,
          },
        }
        const o = planSendOutcome({ plan: "p", module: "letta", why: "tier", machines: asked }, end)
        const ours = told.filter((t) => asked.includes(t.node))
        for (const t of ours) {
          // A declaration whose builds are not known (sent by hand) is judged as carrying the module.
          const lacks = t.builds !== undefined && !("letta" in t.builds)
          expect(o.without?.includes(t.node) ?? false).toBe(lacks)
          for (const m of ["cortex", "broker"]) {
            const moved =
              t.builds !== undefined && t.before !== undefined && m in t.builds && t.builds[m] !== t.before[m]
            const named = (o.carried ?? []).filter((c) => c.node === t.node && c.module === m)
            const before = t.before?.[m]
            expect(named).toEqual(
              moved
                ? [{ node: t.node, module: m, build: t.builds![m], ...(before === undefined ? {} : { before }) }]
                : [],
            )
          }
        }
        // The plan's own module is never carried, and nothing is said of a machine not asked.
        expect((o.carried ?? []).some((c) => c.module === "letta")).toBe(false)
        expect([...(o.without ?? []), ...(o.carried ?? []).map((c) => c.node)].every((n) => asked.includes(n))).toBe(
          true,
        )
      }),
    )
  })

  it("a refused push tells nothing and carries nothing", () => {
    expect(planSendOutcome({ plan: "p", module: "letta", why: "tier", machines: ["hq-1"] }, { refused: "no" })).toEqual(
      { told: [], error: "no" },
    )
  })
})

describe("a tier's sends, kept with the plan until its gate opens", () => {
  const plan = { ...basePlan, tier: 1, sent: ["hq-1"] } // tier 2: hq-2, hq-3
  it("the newest word on a machine replaces the one before; a machine of another tier says nothing; the next tier starts with none", () => {
    const first = afterTierSend(plan, ["hq-2", "hq-4"], {
      without: ["hq-2", "hq-4"],
      carried: [
        { node: "hq-2", module: "cortex", build: "c7" },
        { node: "hq-4", module: "cortex", build: "c7" },
      ],
    })
    expect(first.without).toEqual(["hq-2"])
    expect(first.carried).toEqual([{ node: "hq-2", module: "cortex", build: "c7" }])
    const second = afterTierSend(first, ["hq-3", "hq-2"], {
      carried: [{ node: "hq-3", module: "broker", build: "k2" }],
    })
    expect(second.without).toBeUndefined()
    expect(second.carried).toEqual([{ node: "hq-3", module: "broker", build: "k2" }])
    expect(judgedOn(first)).toEqual(["hq-3"])
    expect(judgedOn(second)).toEqual(["hq-2", "hq-3"])
    expect(carriedPairs(second)).toEqual([{ module: "broker", node: "hq-3" }])
    const next = afterTierPass({ ...first, sent: ["hq-1", "hq-2", "hq-3"] })
    expect(next.tier).toBe(2)
    expect(next.carried).toBeUndefined()
    expect(next.without).toBeUndefined()
  })

  it("each carried build once, with every machine it was carried to", () => {
    expect(
      carriedBuilds([
        { node: "hq-2", module: "cortex", build: "c7" },
        { node: "hq-3", module: "cortex", build: "c7" },
        { node: "hq-3", module: "cortex", build: "c7" },
        { node: "hq-3", module: "broker", build: "k2" },
      ]),
    ).toEqual([
      { module: "cortex", build: "c7", machines: ["hq-2", "hq-3"] },
      { module: "broker", build: "k2", machines: ["hq-3"] },
    ])
  })
})

/** The gate world, its tier sends carrying cortex c7 to hq-1, and cortex stated as `state` there. */
const carrying = (
  state: "healthy" | "starting" | "unhealthy",
  more: { readonly without?: ReadonlyArray<string>; readonly kept?: ReadonlyArray<VerdictRecord> } = {},
) => {
  const steps: Array<Step> = [ok, ok, ok, ok]
  return run(steps, basePlan, {
    answer: (q: Question, _step, now) => {
      if (q.q === "send-plan" && q.why === "tier" && q.machines.includes("hq-1"))
        return {
          told: q.machines,
          carried: [{ node: "hq-1", module: "cortex", build: "c7" }],
          ...(more.without === undefined ? {} : { without: more.without }),
        }
      if (q.q === "record-verdict" && more.kept?.some((v) => v.build === q.verdict.build) === true)
        return { ok: true, mine: false }
      if (q.q === "gate-facts") {
        const statement = {
          machine: "hq-1",
          at: now - 5,
          resources: [{ resource: "cortex-0", module: "cortex", state }],
        }
        return { ...worldFacts(now), health: { ok: true, value: { "hq-1": statement } } }
      }
      return undefined
    },
  })
}

describe("a module the tier's send carried is judged with the plan's own, and passes with it", () => {
  it("the gate opens with it, judged on its machine, and the plan says what was carried", () => {
    const r = carrying("healthy")
    const opened = r.saves.find((s) => s.plan.gate !== undefined)!.plan
    expect(opened.gate!.carried).toEqual([{ module: "cortex", node: "hq-1" }])
    expect(opened.note).toContain("carried with it and judged with it: cortex c7 on hq-1")
  })

  it("not yet healthy where it was carried: the tier does not pass, and what is wanting names it", () => {
    const r = carrying("starting")
    expect(r.verdicts).toEqual([])
    expect(r.plan.tier ?? 0).toBe(0)
    expect(r.plan.gate!.failing).toEqual(["cortex"])
    expect(r.plan.gate!.last).toContain("cortex")
  })

  it("healthy: the tier passes, and the carried build's verdict is kept as passed with it and said as the event verdict", () => {
    const r = carrying("healthy")
    expect(r.plan.tier).toBe(1)
    const cortex = r.verdicts.filter((v) => v.module === "cortex")
    expect(cortex).toEqual([
      expect.objectContaining({ build: "c7", plan: "letta-205", machines: ["hq-1"], verdict: "passed", rollback: "" }),
    ])
    expect(cortex[0]!.why).toContain("carried with letta letta-205 to hq-1")
    const events = r.acts.flatMap((a) => (a.q.q === "publish" && a.q.event === "verdict" ? [a.q.body] : []))
    expect(events).toEqual([
      expect.objectContaining({ module: "cortex", build: "c7", verdict: "passed", decided: "gate" }),
    ])
    // The next tier's gate carries nothing its own sends did not.
    expect(r.plan.carried).toBeUndefined()
  })

  it("a carried build whose verdict was kept already keeps it: nothing kept again, nothing said", () => {
    const kept: VerdictRecord = {
      build: "c7",
      module: "cortex",
      commit: "",
      previous: "",
      plan: "cortex-c7",
      machines: ["hq-1"],
      verdict: "passed",
      rollback: "",
      why: "",
      component: "",
      judgingFrom: 0,
    }
    const r = carrying("healthy", { kept: [kept] })
    expect(r.plan.tier).toBe(1)
    expect(r.verdicts.filter((v) => v.module === "cortex")).toEqual([])
    expect(r.acts.some((a) => a.q.q === "publish" && JSON.stringify(a.q.body).includes('"c7"'))).toBe(false)
  })
})

describe("a failed gate puts back what its send moved (003-15/17, issue 40)", () => {
  const carried = [
    { node: "hq-1", module: "cortex", build: "c7", before: "c6" },
    { node: "hq-1", module: "broker", build: "k2" },
  ]
  const failing = () =>
    run([ok, { kind: "tick", reaches: ["hq-1", "hq-2", "hq-3", "hq-4", "hq-5"], refuse: ["hq-1"] }, ok], basePlan, {
      answer: (q: Question) =>
        q.q === "send-plan" && q.why === "tier" && q.machines.includes("hq-1")
          ? { told: q.machines, carried }
          : undefined,
    })

  it("each carried build is kept failed with the plan's, put back where its machine had a build (else said for a person), and the rollback's note names it", () => {
    const r = failing()
    expect(r.plan.state).toBe("failed")
    expect(r.verdicts.filter((v) => v.module !== "letta").map((v) => [v.build, v.verdict, v.rollback])).toEqual([
      ["c7", "failed", "rolled-back"],
      ["k2", "failed", "not-rolled-back"],
    ])
    const rollbacks = r.acts.filter((a) => a.q.q === "send-plan" && a.q.why === "rollback")
    expect(rollbacks).toHaveLength(1)
    expect(r.plan.note).toContain("with what its send carried: cortex c7 → c6 on hq-1")
    expect(r.plan.note).not.toContain("broker k2 →")
  })

  const tierOf = fc.constantFrom("hq-1", "hq-2", "hq-3")
  const carriedArb = fc.array(
    fc.record({
      node: tierOf,
      module: fc.constantFrom("cortex", "broker"),
      build: fc.constantFrom("b1", "b2"),
      before: fc.option(fc.constantFrom("b0", "b1"), { nil: undefined }),
    }),
    { maxLength: 5 },
  )
  it("every push composes each carried build with the build its machine had, while it is still the one registered and the plan's module was put back; never otherwise", () => {
    fc.assert(
      fc.property(
        carriedArb,
        fc.constantFrom("b1", "b2"),
        fc.constantFrom("b1", "b2"),
        fc.subarray(["hq-1", "hq-2", "hq-3"]),
        fc.boolean(),
        (moved, cortex, broker, asked, putBack) => {
          const plan: PlanRecord = {
            ...basePlan,
            state: "failed",
            carried: moved.map(({ before, ...c }) => (before === undefined ? c : { ...c, before })),
            ...(putBack
              ? { putBack: { build: "letta-204", commit: "a71c3d09e4", machines: ["hq-1"], sent: ["hq-1"] } }
              : {}),
          }
          const records = {
            mesh: "hq",
            nodes: ["hq-1", "hq-2", "hq-3"],
            modules: [
              { name: "letta", build: "letta-204", commit: "a71c3d09e4" },
              { name: "cortex", build: cortex, commit: "c" },
              { name: "broker", build: broker, commit: "k" },
            ],
            assignments: [],
          }
          const h = heldMachines([plan], records, asked, { kind: "sweep" })
          const registered: Record<string, string> = { cortex, broker }
          const want = new Map<string, string>()
          if (putBack)
            for (const c of moved)
              if (c.before !== undefined && registered[c.module] === c.build && asked.includes(c.node))
                if (!want.has(`${c.node} ${c.module}`)) want.set(`${c.node} ${c.module}`, c.before)
          const got = new Map([...h.pins].flatMap(([m, on]) => [...on].map(([mod, b]) => [`${m} ${mod}`, b] as const)))
          expect(got).toEqual(want)
          expect(h.left.size).toBe(0)
        },
      ),
    )
  })
})

describe("the running filter: a machine told a declaration without the module is not judged on it", () => {
  it("none of the tier runs it: never passed on no evidence, never failed: the judging could not ask, and past the error limit the plan is paused for a person", () => {
    const steps: Array<Step> = Array.from({ length: 12 }, () => ok)
    const r = run(steps, basePlan, {
      answer: (q: Question) =>
        q.q === "send-plan" && q.why === "tier" ? { told: q.machines, without: q.machines } : undefined,
    })
    const opened = r.saves.find((s) => s.plan.gate !== undefined)!.plan
    expect(opened.gate!.machines).toEqual([])
    expect(opened.note).toContain("hq-1 not judged: told a declaration without letta")
    const words = r.ticks.flatMap((t) => t.result.judgings.map((j) => j.word))
    expect(words.length).toBeGreaterThan(0)
    expect(new Set(words)).toEqual(new Set(["could-not-ask"]))
    expect(r.plan.state).toBe("open")
    expect(r.plan.gate!.verdict).toBe("")
    expect(r.plan.paused?.why).toContain(
      "none of tier 1's machines (hq-1) runs letta any more: each was told a declaration without it",
    )
    expect(r.verdicts).toEqual([])
  })

  it("a machine of the tier without it is left out; the others are judged and pass", () => {
    const start = { ...basePlan, tiers: [["hq-1", "hq-2"], ["hq-4"]] }
    const r = run([ok, ok, ok, ok, ok], start, {
      answer: (q: Question) =>
        q.q === "send-plan" && q.why === "tier" && q.machines.includes("hq-2")
          ? { told: q.machines, without: ["hq-2"] }
          : undefined,
    })
    const opened = r.saves.find((s) => s.plan.gate !== undefined)!.plan
    expect(opened.gate!.machines).toEqual(["hq-1"])
    expect(r.plan.tier).toBe(1)
  })
})

describe("unchanged by the send: the same artifacts from the same manifest (seed 003's unchangedBy)", () => {
  const b = (commit: string, extra: BuildFacts) => ({ build: `letta-${commit}`, module: "letta", commit, ...extra })
  it("the same manifest and artifacts is unchanged; either one different, or either not known, is changed", () => {
    fc.assert(
      fc.property(
        fc.option(fc.constantFrom("m1", "m2"), { nil: undefined }),
        fc.option(fc.constantFrom("a1", "a2"), { nil: undefined }),
        fc.option(fc.constantFrom("m1", "m2"), { nil: undefined }),
        fc.option(fc.constantFrom("a1", "a2"), { nil: undefined }),
        (mf, af, mt, at) => {
          const facts = (m: string | undefined, a: string | undefined) =>
            m === undefined || a === undefined ? {} : { manifest: m, artifacts: a }
          const same = mf !== undefined && af !== undefined && mf === mt && af === at
          expect(unchangedBy("c1", "c2", b("c1", facts(mf, af)), b("c2", facts(mt, at)))).toBe(same)
        },
      ),
    )
  })

  it("each build's facts are its own record's, never the other's (issue 280)", () => {
    expect(unchangedBy("c1", "c2", b("c1", { source: "s1" }), b("c2", { source: "s2" }))).toBe(false)
    expect(unchangedBy("c1", "c2", b("c1", { source: "s" }), b("c2", { source: "s" }))).toBe(true)
    // The sent build's source alone is never read as the one before's.
    expect(unchangedBy("c1", "c2", undefined, b("c2", { source: "s" }))).toBe(false)
    expect(unchangedBy("c1", "c2", b("c1", { source: "s" }), undefined)).toBe(false)
  })

  const refusedTick: Step = { kind: "tick", reaches: ["hq-1", "hq-2", "hq-3", "hq-4", "hq-5"], refuse: ["hq-1"] }
  const withArtifacts = (prev: string, next: string) => (q: Question) =>
    q.q === "builds"
      ? {
          ok: true,
          value: [
            { build: "letta-204", module: "letta", commit: "a71c3d09e4", manifest: "m1", artifacts: prev },
            { build: "letta-205", module: "letta", commit: "5e1f0c2a9b", manifest: "m1", artifacts: next },
          ],
        }
      : undefined

  it("a failed gate over a send between builds with the same artifacts leaves it as it was: nothing marked, nothing put back", () => {
    const r = run([ok, refusedTick], basePlan, { answer: withArtifacts("a1", "a1") })
    expect(r.plan).toMatchObject({ state: "failed", gate: { rollback: "unchanged" } })
    expect(r.acts.some((a) => a.q.q === "set-build" || a.q.q === "set-rollback")).toBe(false)
  })

  it("other artifacts: the build is put back", () => {
    const r = run([ok, refusedTick, ok, ok], basePlan, { answer: withArtifacts("a1", "a2") })
    expect(r.plan.gate?.rollback).toBe("rolled-back")
    expect(r.acts.some((a) => a.q.q === "set-build")).toBe(true)
  })

  it("release keeps both fingerprints with the build, and refuses one without the other", () => {
    const records = {
      mesh: "hq",
      nodes: ["hq-1"],
      modules: [{ name: "letta", build: "letta-204", commit: "a71c3d09e4" }],
      assignments: [{ module: "letta", node: "hq-1" }],
    }
    const inputs = { module: "letta", build: "letta-205", commit: "c", first: ["hq-1"], then: [] }
    const row = releaseRow(records, [], { ...inputs, manifest: "m1", artifacts: "a1" }, 0)
    expect(row.ok && row.builds.at(-1)).toEqual({
      build: "letta-205",
      module: "letta",
      commit: "c",
      manifest: "m1",
      artifacts: "a1",
    })
    const alone = releaseRow(records, [], { ...inputs, artifacts: "a1" }, 0)
    expect(alone.ok ? "" : alone.problem).toBe(
      "--artifacts without --manifest: the artifacts a build made are the same thing only from the same manifest, so give both or neither",
    )
    const other = releaseRow(records, [], { ...inputs, manifest: "m1" }, 0)
    expect(other.ok ? "" : other.problem).toContain("--manifest without --artifacts")
  })
})
