// Who holds the bus (seed 002's seatHolders and brokerBehind; issue 28): the newest handover of the
// seat when one names a module the catalogue has, else the first module of the catalogue claiming
// it, on its first machine; and the machine sent first is that holder only when its module carries
// the bus's user list.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { indexRecords } from "@mesh-core/core/delivery/compose"
import type { MeshRecords } from "@mesh-core/core/mesh/records"
import { handOver, keepingHandovers } from "@mesh-core/core/mesh/handover"

const mod = (name: string, busUsers = true) => ({ name, build: `${name}-1`, claims: ["bus"], busUsers })
const base = (modules: MeshRecords["modules"], assignments: MeshRecords["assignments"]): MeshRecords => ({
  mesh: "hq",
  nodes: ["hq-1", "hq-2", "hq-3"],
  modules,
  assignments,
})
const handover = (module: string, node?: string) => ({
  seat: "bus",
  module,
  ...(node === undefined ? {} : { node }),
  by: "ana",
  at: "2026-12-05T10:00:00Z",
})

describe("the bus seat's holder", () => {
  it("the first claimer of the catalogue, on its first machine, whatever order the assignments come in", () => {
    const r = base(
      [mod("b2"), mod("b1")],
      [
        { module: "b1", node: "hq-1" },
        { module: "b2", node: "hq-3" },
        { module: "b2", node: "hq-2" },
      ],
    )
    expect(indexRecords(r).holder).toBe("hq-3")
  })

  it("the newest handover's module, on the machine it names when it runs there, else its first", () => {
    const assignments = [
      { module: "b1", node: "hq-1" },
      { module: "b2", node: "hq-2" },
      { module: "b2", node: "hq-3" },
    ]
    const r = base([mod("b1"), mod("b2")], assignments)
    expect(indexRecords({ ...r, handovers: [handover("b2")] }).holder).toBe("hq-2")
    expect(indexRecords({ ...r, handovers: [handover("b2", "hq-3")] }).holder).toBe("hq-3")
    expect(indexRecords({ ...r, handovers: [handover("b2", "hq-1")] }).holder).toBe("hq-2")
    expect(indexRecords({ ...r, handovers: [handover("b2"), handover("b1")] }).holder).toBe("hq-1")
    // A handover to a module the catalogue no longer has is passed over.
    expect(indexRecords({ ...r, handovers: [handover("gone")] }).holder).toBe("hq-1")
  })

  it("a holder whose module carries no user list is not sent first: it carries no grant", () => {
    const r = base([mod("b1", false)], [{ module: "b1", node: "hq-1" }])
    expect(indexRecords(r).holder).toBeUndefined()
    expect(indexRecords(r).seatHolders.get("bus")).toBe("hq-1")
  })

  it("over any catalogue and handovers: the holder is the model's", () => {
    const names = ["b1", "b2", "b3"]
    fc.assert(
      fc.property(
        fc.shuffledSubarray(names),
        fc.array(fc.record({ module: fc.constantFrom(...names), node: fc.constantFrom("hq-1", "hq-2", "hq-3") }), {
          maxLength: 6,
        }),
        fc.array(fc.constantFrom(...names, "gone"), { maxLength: 3 }),
        (catalogue, assignments, handed) => {
          const unique = assignments.filter(
            (a, i) => assignments.findIndex((b) => b.module === a.module && b.node === a.node) === i,
          )
          const r = {
            ...base(
              catalogue.map((n) => mod(n)),
              unique,
            ),
            handovers: handed.map((m) => handover(m)),
          }
          const first = (m: string) => unique.find((a) => a.module === m)?.node
          // The model: the newest handover naming a catalogued module that runs somewhere, else the
          // first catalogued module that runs somewhere.
          const byHandover = [...handed].reverse().find((m) => catalogue.includes(m) && first(m) !== undefined)
          const byCatalogue = catalogue.find((m) => first(m) !== undefined)
          const wanted = byHandover ?? byCatalogue
          expect(indexRecords(r).holder).toBe(wanted === undefined ? undefined : first(wanted))
        },
      ),
    )
  })
})

describe("mesh handover", () => {
  const r = base(
    [mod("b1"), mod("b2"), mod("b3"), { name: "app", build: "app-1" }],
    [
      { module: "app", node: "hq-1" },
      { module: "b1", node: "hq-1" },
      { module: "b2", node: "hq-2" },
      { module: "b2", node: "hq-3" },
    ],
  )
  const at = "2026-12-05T10:00:00.000Z"

  it("hands the seat to a module on a machine it runs on, kept with who and when, and the holder moves with it", () => {
    const h = handOver(r, { module: "b2", node: "hq-3", by: "ana", at })
    if (!h.ok) throw new Error(h.problem)
    expect(h.records.handovers).toEqual([{ seat: "bus", module: "b2", node: "hq-3", by: "ana", at }])
    expect(indexRecords(h.records).holder).toBe("hq-3")
    expect(h.said).toBe(
      "the bus is held by b2 on hq-3 from 2026-12-05T10:00:00.000Z, handed over by ana; the next push sends hq-3 first, with the bus's user list",
    )
    const first = handOver(r, { module: "b2", node: undefined, by: "ana", at })
    expect(first.ok && first.handover.node).toBe("hq-2")
  })

  it("refuses a module the records do not have, one claiming no bus seat, one assigned nowhere, and a machine it does not run on", () => {
    expect(handOver(r, { module: "gone", node: undefined, by: "ana", at })).toEqual({
      ok: false,
      problem: "no module named gone is in the mesh's records",
    })
    // issue 43: the bus was handed to a module that runs none
    expect(handOver(r, { module: "app", node: undefined, by: "ana", at })).toEqual({
      ok: false,
      problem: "app claims no bus seat and carries no bus user list (busUsers): it runs no bus to hold",
    })
    expect(handOver(r, { module: "b3", node: undefined, by: "ana", at })).toEqual({
      ok: false,
      problem: "b3 is assigned to no machine: a module holds the bus on a machine it runs on",
    })
    expect(handOver(r, { module: "b2", node: "hq-1", by: "ana", at })).toEqual({
      ok: false,
      problem: "b2 is not assigned to hq-1 (it runs on hq-2, hq-3)",
    })
  })

  it("a document applied without handovers keeps the store's; one with its own keeps its own", () => {
    const stored = { ...r, handovers: [handover("b2")] }
    expect(keepingHandovers(r, stored).handovers).toEqual(stored.handovers)
    expect(keepingHandovers({ ...r, handovers: [] }, stored).handovers).toEqual([])
    expect(keepingHandovers(r, undefined)).toEqual(r)
  })
})
