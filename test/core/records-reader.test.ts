// Issue 14: the records reader refuses cleanly whatever it is given, never throws; duplicates and
// names that are not bus tokens are refused with the field that says so.
import { readFileSync } from "node:fs"
import { join } from "node:path"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { busTokenProblem, readRecordsText } from "@mesh-core/core/mesh/records"
import { releaseRow } from "@mesh-core/core/gate/operator/release"

const example = readFileSync(join(import.meta.dirname, "../../examples/mesh.json"), "utf8")
const records = JSON.parse(example)

describe("the records reader", () => {
  it("reads the shipped example", () => expect(readRecordsText(example).ok).toBe(true))

  it("random bytes: always a clean refusal or records, never a throw", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2_000 }), (bytes) => {
        const r = readRecordsText(new TextDecoder().decode(bytes))
        if (!r.ok) expect(r.problem.length).toBeGreaterThan(0)
      }),
      { numRuns: 1_000 },
    )
  })

  it("near-valid documents: one field changed to anything is read or refused naming a field, never thrown", () => {
    const anything = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.constant(null),
      fc.array(fc.string(), { maxLength: 3 }),
      fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }),
    )
    const path = fc.constantFrom(
      ["mesh"],
      ["nodes"],
      ["nodes", 0],
      ["modules", 0, "name"],
      ["modules", 0, "build"],
      ["modules"],
      ["assignments", 0, "node"],
      ["assignments", 0],
      ["assignments"],
    )
    fc.assert(
      fc.property(path, anything, (p, v) => {
        const doc = structuredClone(records)
        let at = doc
        for (const k of p.slice(0, -1)) at = at?.[k]
        if (at !== undefined && at !== null) at[p[p.length - 1]!] = v
        const r = readRecordsText(JSON.stringify(doc))
        if (!r.ok) expect(r.field.length).toBeGreaterThan(0)
      }),
      { numRuns: 1_000 },
    )
  })

  it("a name that is not a bus token, or a name twice, is refused with its field", () => {
    expect(readRecordsText(JSON.stringify({ ...records, nodes: [...records.nodes, "bad node.>"] }))).toMatchObject({
      ok: false,
      field: `nodes[${records.nodes.length}]`,
    })
    expect(readRecordsText(JSON.stringify({ ...records, nodes: [...records.nodes, records.nodes[0]] }))).toMatchObject({
      ok: false,
      field: "nodes",
    })
    expect(
      readRecordsText(JSON.stringify({ ...records, modules: [...records.modules, records.modules[0]] })),
    ).toMatchObject({ ok: false, field: "modules" })
    expect(
      readRecordsText(JSON.stringify({ ...records, assignments: [...records.assignments, records.assignments[0]] })),
    ).toMatchObject({ ok: false, field: "assignments" })
    fc.assert(
      fc.property(fc.string(), (s) => {
        expect(busTokenProblem(s) === undefined).toBe(
          s !== "" && s.length <= 128 && !/[\s.*>\u0000-\u001f\u007f]/u.test(s),
        )
      }),
    )
  })

  it("release refuses an empty build and a first machine named twice", () => {
    const r = readRecordsText(example)
    if (!r.ok) throw new Error(r.problem)
    const a = r.value.assignments[0]!
    expect(
      releaseRow(r.value, [], { module: a.module, build: "", commit: "c1", first: [a.node], then: [] }, 0),
    ).toMatchObject({
      ok: false,
      problem: expect.stringContaining("--build"),
    })
    expect(
      releaseRow(r.value, [], { module: a.module, build: "b9", commit: "c1", first: [a.node, a.node], then: [] }, 0),
    ).toMatchObject({
      ok: false,
      problem: expect.stringContaining("twice"),
    })
  })
})
