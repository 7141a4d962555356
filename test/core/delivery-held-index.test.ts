// The index each machine of a held push is composed from (held.ts indexFor), against its definition:
// the records indexed whole, with the machine's pinned builds and without the modules it cannot host.
// indexFor shares one index per set of pins and, when leaving a module out moves nothing else a
// machine's draft reads, changes only that machine's assignments; neither may change a declaration.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { compose, indexRecords } from "@mesh-core/core/delivery/compose"
import { heldMachines, holdingLines, indexFor, type View } from "@mesh-core/core/delivery/held"
import { lettaPlan } from "../support/plan-records.ts"
import type { MeshRecords, ModuleRecord } from "@mesh-core/core/mesh/records"

const nodes = ["hq-1", "hq-2", "hq-3", "hq-4"]
// Providers and consumers of two requirements, the bus and its seat (held by a module with the bus's
// user list or by one without), one seat needed: leaving any of
// them out of a machine can move what another module's draft reads.
const catalogue: ReadonlyArray<ModuleRecord> = [
  // First in the catalogue, so it holds the bus seat where assigned, and carries no user list.
  { name: "warden", build: "warden-2", claims: ["bus"] },
  { name: "broker", build: "broker-2", claims: ["bus"], busUsers: true, subscribes: ["mesh.>"] },
  { name: "pg", build: "pg-2", receives: ["postgres"], states: ["roles"] },
  { name: "app", build: "app-2", requires: ["postgres"], needsSeats: ["bus"], publishes: ["app.>"] },
  { name: "cache", build: "cache-2", receives: ["cache"], requires: ["postgres"] },
  { name: "chat", build: "chat-2", requires: ["cache"], needs: ["gpu"] },
  { name: "relay", build: "relay-2", claims: ["bus"], busUsers: true },
]
const names = catalogue.map((m) => m.name)

const world = fc.record({
  assignments: fc.uniqueArray(fc.record({ module: fc.constantFrom(...names), node: fc.constantFrom(...nodes) }), {
    selector: (a) => `${a.module}@${a.node}`,
    maxLength: 14,
  }),
  // A records file may hand the seat to any module it has (only `mesh handover` asks for one that runs a bus).
  handover: fc.option(fc.record({ module: fc.constantFrom(...names), node: fc.constantFrom(...nodes) })),
  views: fc.dictionary(
    fc.constantFrom(...nodes),
    fc.record({ pinned: fc.subarray(names), without: fc.subarray(names) }),
  ),
})

/** The definition: what a machine is composed from, indexed whole. */
const definition = (records: MeshRecords, node: string, view: View | undefined) =>
  view === undefined
    ? indexRecords(records)
    : indexRecords({
        ...records,
        modules: records.modules.map((m) => (view.pins.has(m.name) ? { ...m, build: view.pins.get(m.name)! } : m)),
        assignments: records.assignments.filter((a) => a.node !== node || !view.without.has(a.module)),
      })

describe("the index a held push composes each machine from", () => {
  it("composes every machine as the records indexed whole with its pins and without what it cannot host", () => {
    fc.assert(
      fc.property(world, (w) => {
        const records: MeshRecords = {
          mesh: "m",
          nodes,
          modules: catalogue,
          assignments: w.assignments,
          ...(w.handover === null
            ? {}
            : { handovers: [{ seat: "bus", ...w.handover, by: "ann", at: "2026-12-06T07:00:00Z" }] }),
        }
        const views = new Map(
          Object.entries(w.views).map(([node, v]): [string, View] => [
            node,
            { pins: new Map(v.pinned.map((m) => [m, `${m}-1`])), without: new Set(v.without) },
          ]),
        )
        const indexOf = indexFor(records, views)
        for (const node of nodes) {
          const got = compose(indexOf(node), node, 7)
          const want = compose(definition(records, node, views.get(node)), node, 7)
          expect(JSON.stringify(got), node).toBe(JSON.stringify(want))
        }
      }),
      { numRuns: 300 },
    )
  })

  it("two machines pinned differently are each composed with their own pins, whichever is asked first", () => {
    const records: MeshRecords = {
      mesh: "m",
      nodes,
      modules: catalogue,
      assignments: nodes.map((node) => ({ module: "app", node })).concat([{ module: "pg", node: "hq-1" }]),
    }
    const views = new Map<string, View>([
      ["hq-2", { pins: new Map([["app", "app-1"]]), without: new Set() }],
      ["hq-3", { pins: new Map([["app", "app-0"]]), without: new Set() }],
      [
        "hq-4",
        {
          pins: new Map([
            ["pg", "pg-1"],
            ["app", "app-0"],
          ]),
          without: new Set(),
        },
      ],
    ])
    const indexOf = indexFor(records, views)
    const builds = (node: string) => {
      const c = compose(indexOf(node), node, 1)
      return c.ok ? c.builds : c.why
    }
    expect([builds("hq-3"), builds("hq-2"), builds("hq-4"), builds("hq-1")]).toEqual([
      { app: "app-0" },
      { app: "app-1" },
      { app: "app-0" },
      { app: "app-2", pg: "pg-2" },
    ])
  })

  it("a machine that cannot host the only module holding a seat its others need says the seat is unheld", () => {
    const records: MeshRecords = {
      mesh: "m",
      nodes: ["hq-1", "hq-2"],
      modules: catalogue,
      assignments: [
        { module: "warden", node: "hq-1" },
        { module: "app", node: "hq-1" },
        { module: "pg", node: "hq-2" },
      ],
    }
    const views = new Map<string, View>([["hq-1", { pins: new Map(), without: new Set(["warden"]) }]])
    const c = compose(indexFor(records, views)("hq-1"), "hq-1", 1)
    expect(c.ok && c.unheld).toEqual(["app needs the bus seat, and no module assigned anywhere holds it"])
    expect(c.ok && c.builds).toEqual({ app: "app-2" })
  })

  it("a seat handed to a module its machine cannot host leaves with it: a module there that needs the seat finds it unheld", () => {
    // No module claims the bus: the handover alone puts its seat on hq-1 (a records file may name any module).
    const records: MeshRecords = {
      mesh: "m",
      nodes: ["hq-1", "hq-2"],
      modules: catalogue.filter((m) => ["app", "chat", "pg"].includes(m.name)),
      assignments: ["app", "chat", "pg"].map((module) => ({ module, node: "hq-1" })),
      handovers: [{ seat: "bus", module: "chat", node: "hq-1", by: "ann", at: "2026-12-06T07:00:00Z" }],
    }
    const views = new Map<string, View>([["hq-1", { pins: new Map(), without: new Set(["chat"]) }]])
    const c = compose(indexFor(records, views)("hq-1"), "hq-1", 1)
    expect(c.ok && c.unheld).toEqual(["app needs the bus seat, and no module assigned anywhere holds it"])
    expect(c.ok && c.builds).toEqual({ app: "app-2", pg: "pg-2" })
  })

  // Seed 003-15/17 (issue 40): a failed gate puts back what its tier's send carried; while the carried
  // build is still the registered one, every push keeps each such machine at the build it had.
  it("what a failed gate's send carried is held at the build its machine had, said as put back, while that build is registered", () => {
    const records: MeshRecords = {
      mesh: "hq",
      nodes: ["hq-3", "hq-4"],
      modules: [
        { name: "letta", build: "letta-204" },
        { name: "grafana", build: "grafana-11" },
      ],
      assignments: ["hq-3", "hq-4"].flatMap((node) => [
        { module: "letta", node },
        { module: "grafana", node },
      ]),
    }
    const failed = lettaPlan({
      state: "failed",
      machines: ["hq-4"],
      sent: ["hq-4"],
      putBack: { build: "letta-204", commit: "b", machines: ["hq-4"], sent: ["hq-4"] },
      carried: [
        { node: "hq-4", module: "grafana", build: "grafana-11", before: "grafana-10" },
        { node: "hq-3", module: "grafana", build: "grafana-11" },
      ],
    })
    const h = heldMachines([failed], records, ["hq-3", "hq-4"], { kind: "sweep" })
    const why = "put back by plan letta-205: grafana-11 was carried with letta letta-205 and failed its gate with it"
    expect(h.holds).toEqual([{ machine: "hq-4", module: "grafana", plan: "letta-205", build: "grafana-10", why }])
    expect([...h.pins]).toEqual([["hq-4", new Map([["grafana", "grafana-10"]])]])
    expect(holdingLines(h)).toEqual([`hq-4: grafana stays at grafana-10, ${why} — a newer build of it replaces it`])
    // A newer build of the carried module registered: nothing of it is held any more.
    const newer = { ...records, modules: [records.modules[0]!, { name: "grafana", build: "grafana-12" }] }
    expect(heldMachines([failed], newer, ["hq-3", "hq-4"], { kind: "sweep" }).holds).toEqual([])
    // Not asked, not held.
    expect(heldMachines([failed], records, ["hq-3"], { kind: "sweep" }).holds).toEqual([])
    // The carried build under a plan of its own that has not reached the machine: that plan holds it,
    // and a machine's module is held once, by one plan, at one build (one line each).
    const grafanaPlan = lettaPlan({
      id: "grafana-11",
      module: "grafana",
      build: "grafana-11",
      previousBuild: "grafana-9",
      machines: ["hq-2"],
      sent: [],
    })
    const both = heldMachines([failed, grafanaPlan], records, ["hq-3", "hq-4"], { kind: "sweep" })
    expect(both.holds.map((x) => `${x.machine} ${x.module} ${x.build} ${x.plan}`)).toEqual([
      "hq-3 grafana grafana-9 grafana-11",
      "hq-4 grafana grafana-9 grafana-11",
    ])
    expect(both.pins.get("hq-4")).toEqual(new Map([["grafana", "grafana-9"]]))
  })
})
