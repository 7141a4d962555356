// What the gate keeps and says of the builds a tier's send carried with its own module (seed 003's
// passCarried, rules 003-15/17; issue 26), stated from the rules and not from the code's formula:
// each carried build once, with its own commit and the machines it was carried to, decided as the
// plan's gate decided; when that gate failed, put back only if every machine it was carried to had a
// build of it before. A verdict the store did not keep is said; one kept by another controller is
// that controller's to say; one kept here is said and sent as the event `verdict`.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { runPure } from "@mesh-core/core/program"
import type { Question } from "@mesh-core/core/controller/catalogue"
import type { Gate } from "@mesh-core/core/gate/judging/judge"
import type { CarriedRecord, PlanRecord } from "@mesh-core/core/gate/plan/records"
import { carriedBack, carriedVerdicts, noneRunsIt, tierMovedWords } from "@mesh-core/core/gate/tick/carried"
import { basePlan } from "./gate-world.ts"

const gate: Gate = {
  component: "",
  machines: ["hq-1", "hq-2"],
  from: "a71c3d09e4",
  to: "5e1f0c2a9b",
  since: 1_000,
  passes: 2,
  last: "",
  failing: [],
  verdict: "passed",
  why: "healthy 2 times over 3s",
  took: "3s",
  carried: [],
  rollback: "",
}

// Each module's builds are named after it, so a build's name says whose it is.
const modules = ["cortex", "node-engine", "broker"]
const commitOf = (build: string) => `c-${build}`
const carriedArb = fc.array(
  fc.record({
    node: fc.constantFrom("hq-1", "hq-2", "hq-3"),
    module: fc.constantFrom(...modules),
    version: fc.constantFrom("1", "2"),
    before: fc.option(fc.constantFrom("b0", "b1"), { nil: undefined }),
  }),
  { maxLength: 6 },
)
const toCarried = (c: {
  node: string
  module: string
  version: string
  before: string | undefined
}): CarriedRecord => ({
  node: c.node,
  module: c.module,
  build: `${c.module}-${c.version}`,
  ...(c.before === undefined ? {} : { before: c.before }),
})

/** How the store and the bus answer, for a build by name. */
interface World {
  /** The builds whose records the store answers; undefined: the builds cannot be read. */
  readonly known: ReadonlyArray<string> | undefined
  readonly keep: (build: string) => "mine" | "theirs" | "refused"
  readonly busDown: boolean
}

const carrying = (carried: ReadonlyArray<CarriedRecord>, decided: "passed" | "failed", world: World) => {
  const plan: PlanRecord = { ...basePlan, carried }
  const asked: Array<Question> = []
  const r = runPure(carriedVerdicts(plan, gate, 5_000, decided), (q: Question) => {
    asked.push(q)
    switch (q.q) {
      case "builds":
        return world.known === undefined
          ? { ok: false, why: "connect ECONNREFUSED" }
          : {
              ok: true,
              value: world.known.map((build) => ({
                build,
                module: build.replace(/-\d$/, ""),
                commit: commitOf(build),
              })),
            }
      case "record-verdict": {
        const k = world.keep(q.verdict.build)
        return k === "refused" ? { ok: false, why: "deadlock detected" } : { ok: true, mine: k === "mine" }
      }
      case "publish":
        return world.busDown ? { ok: false, why: "no responders" } : { ok: true }
      default:
        throw new Error(`not asked of carriedVerdicts: ${q.q}`)
    }
  })
  return { asked, said: r.said }
}

describe("a carried build's verdict: kept once per build, decided with the plan's gate", () => {
  it("each build once, in the order first carried, with its own commit, every machine it went to, and put back only where each of them had a build of it before", () => {
    fc.assert(
      fc.property(
        carriedArb,
        fc.constantFrom("passed" as const, "failed" as const),
        fc.option(fc.subarray(["cortex-1", "cortex-2", "node-engine-1", "node-engine-2", "broker-1", "broker-2"]), {
          nil: undefined,
        }),
        fc.func(fc.constantFrom("mine" as const, "theirs" as const, "refused" as const)),
        fc.boolean(),
        (raw, decided, known, keep, busDown) => {
          const carried = raw.map(toCarried)
          const { asked, said } = carrying(carried, decided, { known, keep, busDown })
          // The model: the distinct builds in order, each with the machines it went to.
          const order: Array<string> = []
          const to = new Map<string, Array<string>>()
          const everyHadOne = new Map<string, boolean>()
          for (const c of carried) {
            if (!to.has(c.build)) {
              order.push(c.build)
              to.set(c.build, [])
              everyHadOne.set(c.build, true)
            }
            if (!to.get(c.build)!.includes(c.node)) to.get(c.build)!.push(c.node)
            if (c.before === undefined) everyHadOne.set(c.build, false)
          }
          if (order.length === 0) {
            expect(asked).toEqual([])
            expect(said).toEqual([])
            return
          }
          expect(asked[0]).toEqual({ q: "builds", builds: order })
          const kept = asked.flatMap((q) => (q.q === "record-verdict" ? [q.verdict] : []))
          expect(kept).toEqual(
            order.map((build) => {
              const module = build.replace(/-\d$/, "")
              const machines = to.get(build)!
              return {
                build,
                module,
                commit: known?.includes(build) === true ? commitOf(build) : "",
                // A carried build is judged from the build its machines ran, not from the plan's.
                previous: "",
                plan: "letta-205",
                machines,
                verdict: decided,
                rollback: decided === "passed" ? "" : everyHadOne.get(build) ? "rolled-back" : "not-rolled-back",
                why: `carried with letta letta-205 to ${machines.join(", ")} and judged with it there; ${decided} with its gate (healthy 2 times over 3s)`,
                component: module === "node-engine" ? "node-engine" : "",
                judgingFrom: 1_000,
              }
            }),
          )
          const events = asked.flatMap((q) => (q.q === "publish" ? [q] : []))
          expect(events.map((e) => e.body["build"])).toEqual(order.filter((b) => keep(b) === "mine"))
          for (const e of events) {
            const v = kept.find((k) => k.build === e.body["build"])!
            expect(e.event).toBe("verdict")
            expect(e.body).toEqual({
              event: "verdict",
              at: new Date(5_000).toISOString(),
              plan: "letta-205",
              module: v.module,
              build: v.build,
              commit: v.commit,
              previous: "",
              verdict: decided,
              decided: "gate",
              machines: v.machines,
              ...(v.component === "" ? {} : { component: v.component }),
              why: v.why,
              took: "3s",
              show: "mesh-controller plans show letta-205",
            })
          }
          expect(said).toEqual(
            kept.flatMap((v) => {
              const named = `[gate] letta-205: ${v.module} ${v.build}`
              const k = keep(v.build)
              if (k === "refused")
                return [`${named} ${decided} with its gate, and its verdict could not be kept: deadlock detected`]
              if (k === "theirs") return []
              return [
                `${named} ${v.why}`,
                ...(busDown ? [`${named}'s verdict (${decided}) could NOT be said on the bus: no responders`] : []),
              ]
            }),
          )
        },
      ),
    )
  })
})

describe("a failed gate puts a carried build back per module", () => {
  it("two modules' builds of one name are two builds: one whose machines each had a build of it is put back, the other not", () => {
    const carried = [
      { node: "hq-1", module: "cortex", build: "x1", before: "x0" },
      { node: "hq-2", module: "broker", build: "x1" },
      { node: "hq-2", module: "cortex", build: "x2" },
    ]
    const { asked } = carrying(carried, "failed", { known: [], keep: () => "theirs", busDown: false })
    const kept = asked.flatMap((q) => (q.q === "record-verdict" ? [q.verdict] : []))
    expect(kept.map((v) => [v.module, v.build, v.rollback])).toEqual([
      ["cortex", "x1", "rolled-back"],
      ["broker", "x1", "not-rolled-back"],
      ["cortex", "x2", "not-rolled-back"],
    ])
  })
})

describe("what a plan's notes say of what its sends moved", () => {
  it("a failed gate's note names each carried build going back to the one its machine had; one with none before is not named", () => {
    const carried = [
      { node: "hq-1", module: "cortex", build: "c7", before: "c6" },
      { node: "hq-1", module: "broker", build: "k2" },
      { node: "hq-2", module: "cortex", build: "c7", before: "c5" },
    ]
    expect(carriedBack({ ...basePlan, carried })).toBe(
      ", with what its send carried: cortex c7 → c6 on hq-1, cortex c7 → c5 on hq-2",
    )
    expect(carriedBack({ ...basePlan, carried: [{ node: "hq-1", module: "broker", build: "k2" }] })).toBe("")
    expect(carriedBack(basePlan)).toBe("")
  })

  it("a tier's note names the machines told a declaration without the module, and each carried build with the machines it went to", () => {
    const p: PlanRecord = {
      ...basePlan,
      without: ["hq-2", "hq-3"],
      carried: [
        { node: "hq-1", module: "cortex", build: "c7" },
        { node: "hq-4", module: "cortex", build: "c7", before: "c6" },
        { node: "hq-1", module: "broker", build: "k2" },
      ],
    }
    expect(tierMovedWords(p)).toBe(
      "; hq-2, hq-3 not judged: told a declaration without letta; carried with it and judged with it: cortex c7 on hq-1, hq-4; broker k2 on hq-1",
    )
    expect(tierMovedWords({ ...p, carried: [] })).toBe("; hq-2, hq-3 not judged: told a declaration without letta")
    expect(tierMovedWords({ ...p, without: [] })).toBe(
      "; carried with it and judged with it: cortex c7 on hq-1, hq-4; broker k2 on hq-1",
    )
    expect(tierMovedWords(basePlan)).toBe("")
  })

  it("a tier none of whose machines runs the module any more names each of its machines", () => {
    const second = { ...basePlan, tier: 1 } // tier 2: hq-2, hq-3
    expect(noneRunsIt(second, { machines: [] })).toBe(
      "none of tier 2's machines (hq-2, hq-3) runs letta any more: each was told a declaration without it, so there is nothing to judge it on",
    )
    expect(noneRunsIt(second, { machines: ["hq-3"] })).toBeUndefined()
  })
})
