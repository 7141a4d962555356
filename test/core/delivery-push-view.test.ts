// A push's view case by case (push-view.ts): what is sent, left, said and refused for one push,
// each answer written out by hand from the records and plans below.
import { describe, expect, it } from "vitest"
import type { PlanRecord } from "@mesh-core/core/gate/plan/records"
import { composeAllOrNothing, draftAll } from "@mesh-core/core/delivery/compose"
import { flushesAfter, heldAside, type PushView, pushView, requestOf } from "@mesh-core/core/delivery/push-view"
import type { MeshRecords } from "@mesh-core/core/mesh/records"
import { heldMesh, lettaOnFirstTier } from "../support/plan-records.ts"
import { composeEach } from "../support/push-world.ts"
import { declared } from "../support/declared.ts"

// chat runs on hq-4 too.
const records: MeshRecords = { ...heldMesh, assignments: [...heldMesh.assignments, { module: "chat", node: "hq-4" }] }
const all = ["hq-1", "hq-2", "hq-3", "hq-4"]
const letta = lettaOnFirstTier
// grafana's plan has no earlier build: the machine of its later tier (hq-2) is left out altogether.
const grafana: PlanRecord = (() => {
  const p: PlanRecord = {
    ...letta,
    id: "grafana-9",
    module: "grafana",
    build: "grafana-9",
    tiers: [["hq-3"], ["hq-2"]],
    machines: ["hq-3"],
    sent: ["hq-3"],
  }
  delete (p as { previousBuild?: string }).previousBuild
  return p
})()
const leftWhy =
  "grafana is held by plan grafana-9, gate judging tier 1 on hq-3, and there is no earlier build of it to send meanwhile"
const sequences = new Map(all.map((n) => [n, 5]))
const builds = (s: { readonly composition: { readonly body: string } }) =>
  declared(s.composition)
    .resources.map((r) => `${r.module} ${r.build}`)
    .sort()

describe("what a push was asked, and whether it flushes after", () => {
  it("machines given is a sweep of them; a node named is named; else behind when asked, or a sweep", () => {
    expect(requestOf({ node: "hq-1", behind: true, machines: ["hq-1"] })).toEqual({ kind: "sweep" })
    expect(requestOf({ node: "hq-1", behind: true })).toEqual({ kind: "named", node: "hq-1" })
    expect(requestOf({ node: undefined, behind: true })).toEqual({ kind: "behind" })
    expect(requestOf({ node: undefined, behind: false })).toEqual({ kind: "sweep" })
  })

  it("only a named push that reached the machine it named flushes after", () => {
    expect(flushesAfter({ kind: "named", node: "hq-1" }, ["hq-1"])).toBe(true)
    expect(flushesAfter({ kind: "named", node: "hq-1" }, ["hq-2"])).toBe(false)
    expect(flushesAfter({ kind: "sweep" }, ["hq-1"])).toBe(false)
    expect(flushesAfter({ kind: "behind" }, ["hq-1"])).toBe(false)
  })
})

describe("one push's view", () => {
  it("the machines sendable are those asked less those left out, in the order asked", () => {
    expect(pushView(records, [letta, grafana], ["hq-4", "hq-2", "hq-1"], { kind: "sweep" }).sendable).toEqual([
      "hq-4",
      "hq-1",
    ])
    expect(pushView(records, [], ["hq-4", "hq-2"], { kind: "sweep" }).sendable).toEqual(["hq-4", "hq-2"])
  })

  it("each machine is composed in the order named, from its own pins", () => {
    const v = pushView(records, [letta], all, { kind: "sweep" })
    const { sending, refusals } = composeEach(v.indexOf, ["hq-2", "hq-1"], sequences)
    expect(refusals).toEqual([])
    expect(sending.map((s) => [s.node, builds(s)])).toEqual([
      ["hq-2", ["chat chat-4", "grafana grafana-9", "letta letta-204"]],
      ["hq-1", ["letta letta-205"]],
    ])
  })

  it("a machine whose sequence cannot be read is refused, the others still composed", () => {
    const v = pushView(records, [], all, { kind: "sweep" })
    const r = composeEach(
      v.indexOf,
      ["hq-1", "hq-4"],
      new Map<string, number | { readonly error: string }>([
        ["hq-1", { error: "KV down" }],
        ["hq-4", 5],
      ]),
    )
    expect(r.sending.map((s) => s.node)).toEqual(["hq-4"])
    expect(r.refusals).toHaveLength(1)
    expect(r.refusals[0]).toContain("hq-1")
  })

  it("a dry run's build is pinned on the machines asked, beside what a plan pins there; not on a machine left out", () => {
    const v = pushView(records, [letta, grafana], ["hq-2", "hq-4"], { kind: "sweep" }, new Map(), {
      module: "chat",
      build: "chat-dry",
    })
    expect(v.sendable).toEqual(["hq-4"])
    expect(composeEach(v.indexOf, ["hq-4"], sequences).sending.map(builds)).toEqual([["chat chat-dry"]])
    const w = pushView(records, [letta], ["hq-2"], { kind: "sweep" }, new Map(), { module: "chat", build: "chat-dry" })
    expect(composeEach(w.indexOf, ["hq-2"], sequences).sending.map(builds)).toEqual([
      ["chat chat-dry", "grafana grafana-9", "letta letta-204"],
    ])
    const unasked = pushView(records, [letta], ["hq-4"], { kind: "sweep" }, new Map(), {
      module: "chat",
      build: "chat-dry",
    })
    // hq-2 not asked: neither held nor pinned the dry run's build
    expect(composeEach(unasked.indexOf, ["hq-2"], sequences).sending.map(builds)).toEqual([
      ["chat chat-4", "grafana grafana-9", "letta letta-205"],
    ])
  })
})

/** The all-or-nothing send of a view: a machine a plan leaves out counts as not resolved. */
const allOrNothing = (v: PushView, names: ReadonlyArray<string>, sequences: Parameters<typeof composeEach>[2]) =>
  composeAllOrNothing(draftAll(v.indexOf, names), names, sequences, v.holding.left)

describe("the all-or-nothing send", () => {
  it("every machine named is sent when each resolves", () => {
    const v = pushView(records, [letta], all, { kind: "sweep" })
    const r = allOrNothing(v, ["hq-1", "hq-4"], sequences)
    expect(r.refused).toBeUndefined()
    expect(r.sending.map((s) => s.node)).toEqual(["hq-1", "hq-4"])
  })

  it("a machine a plan leaves out refuses the whole send, named with why, and nothing is sent or said", () => {
    const v = pushView(records, [letta, grafana], all, { kind: "sweep" })
    expect(allOrNothing(v, ["hq-1", "hq-2"], sequences)).toEqual({
      sending: [],
      said: [],
      refused: `nothing was sent. 1 machine(s) could not be resolved:\n\nhq-2:\n${leftWhy}`,
    })
  })

  it("a machine that cannot be composed refuses it too, counted with the machines left out", () => {
    const v = pushView(records, [letta, grafana], all, { kind: "sweep" })
    const r = allOrNothing(v, ["hq-2", "hq-1"], new Map([["hq-1", { error: "KV down" }]]))
    expect(r.sending).toEqual([])
    expect(
      r.refused?.startsWith(`nothing was sent. 2 machine(s) could not be resolved:\n\nhq-2:\n${leftWhy}\n\n`),
    ).toBe(true)
  })
})

describe("what push --behind says of the machines it did not select", () => {
  it("the holds of machines not selected, said; those selected are said when sent", () => {
    const v = pushView(records, [letta, grafana], all, { kind: "behind" })
    expect(heldAside(v, []).said).toEqual([
      "hq-2 not sent: grafana is held by plan grafana-9, gate judging tier 1 on hq-3, and there is no earlier build of it to send meanwhile",
    ])
    expect(
      heldAside(v, [])
        .holds.map((h) => `${h.machine} ${h.module}`)
        .sort(),
    ).toEqual(["hq-2 grafana", "hq-2 letta"])
    expect(heldAside(v, ["hq-2"])).toEqual({ holds: [], said: [] })
    const lettaOnly = pushView(records, [letta], all, { kind: "behind" })
    expect(heldAside(lettaOnly, ["hq-1"]).said).toEqual(heldAside(lettaOnly, []).said)
    expect(heldAside(lettaOnly, ["hq-1"]).said).toHaveLength(1)
    expect(heldAside(lettaOnly, ["hq-1"]).said[0]!.startsWith("hq-2: letta stays at letta-204, ")).toBe(true)
  })
})
