// The records document's refusals, word for word (issue 14): each names the field and the problem,
// as `mesh apply FILE` says them.
import { describe, expect, it } from "vitest"
import {
  busTokenProblem,
  checkRecords,
  configOf,
  decodeRecords,
  readRecordsText,
  recordsFileMaxBytes,
} from "@mesh-core/core/mesh/records"

const records = {
  mesh: "hq",
  nodes: ["hq-1", "hq-2"],
  modules: [
    { name: "letta", build: "l-1" },
    { name: "grafana", build: "g-1" },
  ],
  assignments: [
    { module: "letta", node: "hq-1", config: { port: 1 } },
    { module: "grafana", node: "hq-2" },
  ],
}
const read = (doc: unknown) => readRecordsText(JSON.stringify(doc))

describe("the records document", () => {
  it("reads a good one whole", () => {
    expect(read(records)).toEqual({ ok: true, value: records })
    expect(configOf(records.assignments[0]!)).toEqual({ port: 1 })
    expect(configOf(records.assignments[1]!)).toEqual({})
    expect(recordsFileMaxBytes).toBe(8_388_608)
  })

  it("names the field and the problem of each refusal", () => {
    expect(readRecordsText("{")).toMatchObject({
      ok: false,
      field: "(document)",
      problem: expect.stringMatching(/^not JSON: ./),
    })
    expect(read({ ...records, nodes: ["hq-1", "hq 2"] })).toEqual({
      ok: false,
      field: "nodes[1]",
      problem: '"hq 2" is not a bus subject token (no spaces, dots, * or >)',
    })
    expect(read({ ...records, modules: [{ name: "", build: "b" }] })).toEqual({
      ok: false,
      field: "modules[0].name",
      problem: "empty",
    })
    expect(read({ ...records, nodes: ["hq-1", "hq-2", "hq-1"] })).toEqual({
      ok: false,
      field: "nodes",
      problem: "hq-1 is named twice",
    })
    expect(read({ ...records, modules: [...records.modules, { name: "letta", build: "l-2" }] })).toEqual({
      ok: false,
      field: "modules",
      problem: "letta is named twice",
    })
    expect(read({ ...records, assignments: [...records.assignments, { module: "letta", node: "hq-1" }] })).toEqual({
      ok: false,
      field: "assignments",
      problem: "letta on hq-1 is assigned twice",
    })
    expect(read({ ...records, assignments: [{ module: "letta", node: "hq-9" }] })).toEqual({
      ok: false,
      field: "assignments",
      problem: "letta is assigned to hq-9, which is not among the nodes",
    })
    expect(checkRecords(records)).toEqual({ ok: true, value: records })
    // One module holds the bus (issue 28): a second, or a third, claiming it is refused, naming them.
    const claiming = (name: string) => ({ name, build: `${name}-1`, claims: ["bus"] })
    expect(read({ ...records, modules: [...records.modules, claiming("broker-a"), claiming("broker-b")] })).toEqual(
      expect.objectContaining({ ok: false, field: "modules" }),
    )
    const three = checkRecords({
      ...records,
      modules: [claiming("b1"), claiming("b2"), claiming("b3"), { name: "other", build: "o-1", claims: ["metrics"] }],
      assignments: [],
    })
    expect(three).toEqual({
      ok: false,
      field: "modules",
      problem:
        'b1, b2 and b3 each claim the bus seat; one module holds the bus: name it in the document\'s handovers, e.g. "handovers": [{"seat": "bus", "module": "b1", "by": "YOUR NAME", "at": "NOW (RFC 3339)"}]',
    })
    expect(checkRecords({ ...records, modules: [claiming("b1")], assignments: [] })).toMatchObject({ ok: true })
    // While the bus moves, two may claim it once the document keeps a handover to one of them; a
    // handover to a module that does not claim it settles nothing.
    const moving = { ...records, modules: [claiming("b1"), claiming("b2")], assignments: [] }
    const to = (module: string) => ({ seat: "bus", module, by: "ana", at: "2026-12-05T10:00:00Z" })
    expect(checkRecords({ ...moving, handovers: [to("b2")] })).toMatchObject({ ok: true })
    expect(checkRecords({ ...moving, handovers: [to("b2"), to("x9")] })).toMatchObject({ ok: false, field: "modules" })
    const bad = decodeRecords({ ...records, mesh: 5 })
    expect(bad.ok).toBe(false)
    expect(!bad.ok && bad.field).toBe("mesh")
    expect(decodeRecords(5)).toMatchObject({ ok: false, field: "(document)" })
  })

  it("a bus token: not empty, at most 128 characters, no space, dot, star, > or control character", () => {
    expect(
      ["", "a".repeat(129), "a".repeat(128), "a.b", "a*", "a>", "a\tb", "a\u007f", "hq-1_x"].map(busTokenProblem),
    ).toEqual([
      "empty",
      "longer than 128 characters",
      undefined,
      '"a.b" is not a bus subject token (no spaces, dots, * or >)',
      '"a*" is not a bus subject token (no spaces, dots, * or >)',
      '"a>" is not a bus subject token (no spaces, dots, * or >)',
      '"a\\tb" is not a bus subject token (no spaces, dots, * or >)',
      '"a\u007f" is not a bus subject token (no spaces, dots, * or >)',
      undefined,
    ])
  })
})
