// What a release plan holds back from a push (seed 002's heldMachines, issue 259, ADR 0221), as
// properties: composed the way a push composes, no unreached machine of an undecided plan is sent
// its new build, whatever the plans' states and whatever the push was asked.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { PlanRecord } from "@mesh-core/core/gate/plan/records"
import { compose } from "@mesh-core/core/delivery/compose"
import {
  heldMachines,
  holdingLines,
  holdJson,
  indexFor,
  type PushRequest,
  viewsOf,
} from "@mesh-core/core/delivery/held"
import type { MeshRecords } from "@mesh-core/core/mesh/records"
import { heldMesh, lettaMesh, lettaOnFirstTier, lettaPlan } from "../support/plan-records.ts"
import { composeEach } from "../support/push-world.ts"
import { pushView } from "@mesh-core/core/delivery/push-view"
import { declared } from "../support/declared.ts"

const nodes = ["hq-1", "hq-2", "hq-3", "hq-4", "hq-5"]
const moduleNames = ["letta", "grafana", "node-engine"]
const states = ["open", "sending", "passed", "rolling-back", "failed"] as const

interface World {
  readonly records: MeshRecords
  readonly plans: ReadonlyArray<PlanRecord>
  readonly asked: ReadonlyArray<string>
  readonly request: PushRequest
}

const planArb = (module: string, n: number) =>
  fc
    .record({
      state: fc.constantFrom(...states),
      previousBuild: fc.constantFrom(`${module}-1`, ""),
      tiers: fc.array(fc.subarray(nodes, { minLength: 1, maxLength: 2 }), { minLength: 1, maxLength: 3 }),
      sent: fc.subarray(nodes),
      tier: fc.nat({ max: 2 }),
      sentAt: fc.integer({ min: 0, max: 50 }),
      putBackSent: fc.subarray(nodes),
    })
    .map(
      (p): PlanRecord => ({
        id: `${module}-${n}`,
        module,
        build: `${module}-${n}`,
        commit: `c${n}`,
        previous: p.previousBuild === "" ? "" : "c1",
        ...(p.previousBuild === "" ? {} : { previousBuild: p.previousBuild }),
        machines: p.tiers[0]!,
        rest: nodes.filter((x) => !p.tiers.flat().includes(x)),
        sentAt: p.sentAt * 2 + n,
        state: p.state,
        note: "",
        tiers: p.tiers,
        tier: Math.min(p.tier, p.tiers.length - 1),
        sent: p.sent,
        ...(p.state === "rolling-back" && p.previousBuild !== ""
          ? { putBack: { build: p.previousBuild, commit: "c1", machines: p.sent, sent: p.putBackSent } }
          : {}),
      }),
    )

const world: fc.Arbitrary<World> = fc
  .record({
    assignments: fc.uniqueArray(
      fc.record({ module: fc.constantFrom(...moduleNames), node: fc.constantFrom(...nodes) }),
      { selector: (a) => `${a.module}@${a.node}`, maxLength: 12 },
    ),
    registered: fc.tuple(...moduleNames.map(() => fc.constantFrom(2, 3))),
    plans: fc.tuple(
      ...moduleNames.map((m) =>
        fc
          .array(fc.constantFrom(2, 3), { maxLength: 2 })
          .chain((ns) => fc.tuple(...[...new Set(ns)].map((n) => planArb(m, n)))),
      ),
    ),
    asked: fc.subarray(nodes),
    request: fc.oneof(
      fc.constant<PushRequest>({ kind: "sweep" }),
      fc.constant<PushRequest>({ kind: "behind" }),
      fc.constant<PushRequest>({ kind: "flush" }),
      fc.constantFrom(...nodes).map((node): PushRequest => ({ kind: "named", node })),
      fc
        .record({
          module: fc.constantFrom(...moduleNames),
          n: fc.constantFrom(2, 3),
          why: fc.constantFrom("tier" as const, "rest" as const, "rollback" as const),
          machines: fc.subarray(nodes),
        })
        .map((r): PushRequest => ({ kind: "plan", plan: `${r.module}-${r.n}`, why: r.why, machines: r.machines })),
    ),
  })
  .map((w) => ({
    records: {
      mesh: "hq",
      nodes,
      modules: moduleNames.map((name, i) => ({ name, build: `${name}-${w.registered[i]}` })),
      assignments: w.assignments,
    },
    plans: w.plans.flat(),
    asked: w.asked,
    request: w.request,
  }))

/** The build a machine is sent of a module, composed as a push composes it; undefined when it is not sent. */
const sentBuild = (w: World, machine: string, module: string): string | undefined => {
  const h = heldMachines(w.plans, w.records, w.asked, w.request)
  if (!w.asked.includes(machine) || h.left.has(machine)) return undefined
  const c = compose(indexFor(w.records, viewsOf(h))(machine), machine, 1)
  if (!c.ok) return undefined
  return declared(c).resources.find((r) => r.module === module)?.build
}

/** The model: the newest plan of a module (sentAt is distinct per module here). */
const newest = (w: World, module: string) =>
  w.plans.filter((p) => p.module === module).sort((a, b) => b.sentAt - a.sentAt)[0]

/** The machines a plan's own tier send reaches: those it asks that are of the tier being judged. */
const ownTierSend = (w: World, p: PlanRecord): ReadonlyArray<string> =>
  w.request.kind === "plan" && w.request.plan === p.id && w.request.why === "tier"
    ? w.request.machines.filter((m) => p.tiers![p.tier!]!.includes(m))
    : []

/**
 * The machines that may run a plan's new build, by its state, as issue 9 states it: until its gate
 * passes, only those it reached (and, while it is open, the tier its own send reaches); once it
 * passed, all; while it is put back, none.
 */
const mayRunNewBuild = (w: World, p: PlanRecord, machine: string): boolean => {
  switch (p.state) {
    case "sending":
    case "passed":
      return true
    case "rolling-back":
      return false
    case "failed":
      return p.sent!.includes(machine)
    case "open":
      return p.sent!.includes(machine) || ownTierSend(w, p).includes(machine)
  }
}

describe("a plan holds its machines (seed 002's heldMachines, ADR 0221)", () => {
  it("no plan in any state lets a machine it has not reached be sent its new build before its gate passes, whatever the push asked", () => {
    fc.assert(
      fc.property(world, (w) => {
        for (const module of moduleNames) {
          // The newest plan of a module is the one that holds (an older one was superseded by it).
          const p = newest(w, module)
          if (p === undefined) continue
          for (const machine of nodes) {
            if (mayRunNewBuild(w, p, machine)) continue
            expect(
              sentBuild(w, machine, module),
              `${machine} was sent ${p.build} of a ${p.state} plan under ${JSON.stringify(w.request)}`,
            ).not.toBe(p.build)
          }
        }
      }),
      { numRuns: 500 },
    )
  })

  it("a plan's own tier send reaches only its tier: a machine it asks beyond the tier is not sent the new build", () => {
    const records = lettaMesh("letta-205")
    const plan = lettaPlan({
      machines: ["hq-3"],
      tiers: [["hq-3"], ["hq-4"]],
      tier: 0,
      sent: [],
    })
    const h = heldMachines([plan], records, ["hq-3", "hq-4"], {
      kind: "plan",
      plan: "letta-205",
      why: "tier",
      machines: ["hq-3", "hq-4"],
    })
    expect(h.holds.map((x) => `${x.machine} ${x.build}`)).toEqual(["hq-4 letta-204"])
  })

  it("no unreached machine of an undecided plan is sent its new build, by any push; a plan's own tier send reaches that tier's machines only", () => {
    fc.assert(
      fc.property(world, (w) => {
        for (const module of moduleNames) {
          const p = newest(w, module)
          if (p === undefined || p.state !== "open") continue
          const reached = new Set([...p.sent!, ...ownTierSend(w, p)])
          for (const machine of nodes) {
            if (reached.has(machine)) continue
            expect(
              sentBuild(w, machine, module),
              `${machine} was sent ${p.build} under ${JSON.stringify(w.request)}`,
            ).not.toBe(p.build)
          }
        }
      }),
      { numRuns: 400 },
    )
  })

  it("a failed plan's build is sent nowhere new, and while it is put back it is sent nowhere at all", () => {
    fc.assert(
      fc.property(world, (w) => {
        for (const module of moduleNames) {
          const p = newest(w, module)
          if (p === undefined || (p.state !== "failed" && p.state !== "rolling-back")) continue
          for (const machine of nodes) {
            if (p.state === "failed" && p.sent!.includes(machine)) continue
            expect(sentBuild(w, machine, module)).not.toBe(p.build)
          }
        }
      }),
      { numRuns: 300 },
    )
  })

  it("a plan whose gate passed holds nothing, an older plan of a module holds nothing, and a held machine is named with the plan that holds it", () => {
    fc.assert(
      fc.property(world, (w) => {
        const h = heldMachines(w.plans, w.records, w.asked, w.request)
        for (const hold of h.holds) {
          const p = w.plans.find((x) => x.id === hold.plan)!
          expect(p).toBe(newest(w, p.module))
          expect(["open", "failed", "rolling-back"]).toContain(p.state)
          expect(hold.why).toContain(`held by plan ${p.id}`)
          expect(w.asked).toContain(hold.machine)
        }
        // Everything not held is composed as registered.
        for (const machine of w.asked) {
          for (const module of moduleNames) {
            if (h.holds.some((x) => x.machine === machine && x.module === module)) continue
            const b = sentBuild(w, machine, module)
            if (b !== undefined) expect(b).toBe(w.records.modules.find((m) => m.name === module)!.build)
          }
        }
      }),
      { numRuns: 300 },
    )
  })

  it("says it: the machine, the build it stays at, and why; a machine with no earlier build to send meanwhile is left, named", () => {
    const records = lettaMesh("letta-205")
    const plan = lettaPlan({
      machines: ["hq-3"],
      rest: ["hq-4"],
      sent: ["hq-3"],
    })
    const h = heldMachines([plan], records, ["hq-3", "hq-4"], { kind: "behind" })
    expect(holdingLines(h)).toEqual([
      "hq-4: letta stays at letta-204, held by plan letta-205, gate judging on hq-3; it is sent the new build once that gate passes",
    ])
    const first = heldMachines(
      [{ ...plan, previousBuild: undefined as never }].map(({ previousBuild: _, ...p }) => p),
      records,
      ["hq-4"],
      { kind: "sweep" },
    )
    expect(holdingLines(first)).toEqual([
      "hq-4 not sent: letta is held by plan letta-205, gate judging on hq-3, and there is no earlier build of it to send meanwhile",
    ])
  })
})

describe("a push's view (push-view.ts)", () => {
  it("sends no machine a plan leaves out, composes each held machine with its pinned builds, and says every hold", async () => {
    fc.assert(
      fc.property(world, (w) => {
        const v = pushView(w.records, w.plans, w.asked, w.request)
        const sequences = new Map(w.asked.map((n) => [n, 5]))
        const { sending } = composeEach(v.indexOf, v.sendable, sequences)
        for (const s of sending) {
          expect(v.holding.left.has(s.node)).toBe(false)
          for (const r of declared(s.composition).resources) {
            const pin = v.holding.pins.get(s.node)?.get(r.module)
            expect(r.build).toBe(pin ?? w.records.modules.find((m) => m.name === r.module)!.build)
          }
        }
        for (const h of v.holding.holds) {
          // A machine left out is said once, as left; every other hold is said with its why.
          const line = v.holding.left.has(h.machine)
            ? `${h.machine} not sent: `
            : `${h.machine}: ${h.module} stays at ${h.build}, ${h.why}`
          expect(v.said.some((l) => l.startsWith(line))).toBe(true)
        }
      }),
      { numRuns: 200 },
    )
  })

  it("a dry run's send composes the machines it asks with its build, and no other machine; a machine a plan leaves out stays out", async () => {
    fc.assert(
      fc.property(world, fc.constantFrom(...moduleNames), (w, module) => {
        const dry = { module, build: `${module}-dry` }
        const v = pushView(w.records, w.plans, w.asked, w.request, new Map(), dry)
        const { sending } = composeEach(v.indexOf, v.sendable, new Map(w.asked.map((n) => [n, 5])))
        for (const s of sending) {
          const on = declared(s.composition).resources.find((r) => r.module === module)
          if (on !== undefined) expect(on.build).toBe(dry.build)
        }
        for (const m of v.holding.left.keys()) expect(v.sendable).not.toContain(m)
        // Another push, not the dry run's, never composes its build anywhere.
        const other = pushView(w.records, w.plans, nodes, { kind: "sweep" })
        for (const s of composeEach(other.indexOf, other.sendable, new Map(nodes.map((n) => [n, 5]))).sending) {
          expect(declared(s.composition).resources.map((r) => r.build)).not.toContain(dry.build)
        }
      }),
      { numRuns: 200 },
    )
  })
})

describe("what each plan holds, case by case", () => {
  const records = heldMesh
  const all = ["hq-1", "hq-2", "hq-3", "hq-4"]
  const letta = lettaOnFirstTier
  const holds = (plans: ReadonlyArray<PlanRecord>, request: PushRequest = { kind: "sweep" }) =>
    heldMachines(plans, records, all, request).holds.map((x) => `${x.machine} ${x.module} ${x.build}`)

  it("only the machines its module is assigned to, and only while its build is the registered one", () => {
    expect(holds([letta])).toEqual(["hq-2 letta letta-204"])
    expect(holds([{ ...letta, build: "letta-206" }])).toEqual([])
  })

  it("a tier's send of its own open plan reaches the tier; another plan's, another kind of send, or a failed plan's does not", () => {
    const onTier2 = { ...letta, tier: 1 }
    expect(holds([onTier2], { kind: "plan", plan: "letta-205", why: "tier", machines: ["hq-2"] })).toEqual([])
    expect(holds([onTier2], { kind: "plan", plan: "letta-205", why: "rest", machines: ["hq-2"] })).toEqual([
      "hq-2 letta letta-204",
    ])
    expect(holds([onTier2], { kind: "plan", plan: "grafana-9", why: "tier", machines: ["hq-2"] })).toEqual([
      "hq-2 letta letta-204",
    ])
    expect(holds([onTier2], { kind: "named", node: "hq-2" })).toEqual(["hq-2 letta letta-204"])
    expect(
      holds([{ ...onTier2, state: "failed" }], { kind: "plan", plan: "letta-205", why: "tier", machines: ["hq-2"] }),
    ).toEqual(["hq-2 letta letta-204"])
  })

  it("a rollback pins every machine to the build it puts back, else the previous one; with neither the machine is left", () => {
    const putBack = { build: "letta-203", commit: "a", machines: ["hq-1", "hq-2"], sent: [] }
    expect(holds([{ ...letta, state: "rolling-back", putBack }])).toEqual([
      "hq-1 letta letta-203",
      "hq-2 letta letta-203",
    ])
    expect(holds([{ ...letta, state: "rolling-back" }])).toEqual(["hq-1 letta letta-204", "hq-2 letta letta-204"])
    // Once put back, the plan is failed: a machine it never reached was never sent the new build, so
    // it stays at the previous one, whatever build the rollback put back elsewhere.
    expect(holds([{ ...letta, state: "failed", putBack }])).toEqual(["hq-2 letta letta-204"])
    const none: PlanRecord = { ...letta, state: "rolling-back" }
    delete (none as { previousBuild?: string }).previousBuild
    const h = heldMachines([none], records, all, { kind: "sweep" })
    expect([...h.left.keys()]).toEqual(["hq-1", "hq-2"])
    expect(h.pins.size).toBe(0)
  })

  it("a machine one plan leaves is left, with the first plan's reason, and pinned by none; its lines name it once", () => {
    const noPrevious = (p: PlanRecord): PlanRecord => {
      const q = { ...p }
      delete (q as { previousBuild?: string }).previousBuild
      return q
    }
    const grafana = noPrevious({
      ...letta,
      id: "grafana-9",
      module: "grafana",
      build: "grafana-9",
      tiers: [["hq-3"], ["hq-2"]],
      sent: ["hq-3"],
    })
    const chat = noPrevious({
      ...letta,
      id: "chat-4",
      module: "chat",
      build: "chat-4",
      tiers: [["hq-4"], ["hq-2"]],
      sent: [],
    })
    const h = heldMachines([letta, grafana, chat], records, all, { kind: "sweep" })
    expect([...h.left]).toEqual([
      [
        "hq-2",
        "grafana is held by plan grafana-9, gate judging tier 1 on hq-3, and there is no earlier build of it to send meanwhile",
      ],
    ])
    expect(h.pins.has("hq-2")).toBe(false)
    expect(holdingLines(h)).toEqual([
      "hq-2 not sent: grafana is held by plan grafana-9, gate judging tier 1 on hq-3, and there is no earlier build of it to send meanwhile",
    ])
    expect(holdJson(h.holds.find((x) => x.module === "grafana")!)).toEqual({
      machine: "hq-2",
      module: "grafana",
      plan: "grafana-9",
      build: null,
      why: "held by plan grafana-9, gate judging tier 1 on hq-3",
    })
    expect(holdJson(h.holds.find((x) => x.module === "letta")!).build).toBe("letta-204")
  })

  it("each machine is composed with its own pins, and a module left out of one machine stays on the others", () => {
    const views = viewsOf(
      {
        pins: new Map([
          ["hq-1", new Map([["letta", "letta-204"]])],
          ["hq-3", new Map([["grafana", "grafana-8"]])],
        ]),
        left: new Map(),
        holds: [],
      },
      new Map([["hq-2", ["chat"]]]),
    )
    expect(views.get("hq-1")!.without.size).toBe(0)
    const withChat4: MeshRecords = {
      ...records,
      assignments: [...records.assignments, { module: "chat", node: "hq-4" }],
    }
    const indexOf = indexFor(withChat4, views)
    const build = (node: string, module: string) => indexOf(node).records.modules.find((m) => m.name === module)!.build
    expect([
      build("hq-1", "letta"),
      build("hq-1", "grafana"),
      build("hq-3", "letta"),
      build("hq-3", "grafana"),
    ]).toEqual(["letta-204", "grafana-9", "letta-205", "grafana-8"])
    const modulesSent = (node: string) => {
      const c = compose(indexOf(node), node, 1)
      return c.ok ? declared(c).resources.map((r) => r.module) : c.why
    }
    expect(modulesSent("hq-2")).not.toContain("chat")
    expect(modulesSent("hq-2").length).toBeGreaterThan(0)
    expect(modulesSent("hq-4")).toContain("chat")
  })
})
