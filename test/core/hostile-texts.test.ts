// Records whole when kept, and every text from outside bounded (issue 43): a dangling assignment, an
// empty build, a handover to a module that runs no bus, a 100,000-character reason or name, a JSON
// nested 100,000 deep. Each refused by name, as the commands say it.
import fc from "fast-check"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import { describe, expect, it } from "vitest"
import { releaseRow } from "@mesh-core/core/gate/operator/release"
import { VerbRequest } from "@mesh-core/core/gate/plan/records"
import { jsonMaxDepth, parseJson } from "@mesh-core/core/json"
import { readRecordsText } from "@mesh-core/core/mesh/records"
import { personProblem, reasonProblem, textBounds } from "@mesh-core/core/person"

const records = {
  mesh: "hq",
  nodes: ["hq-1"],
  modules: [{ name: "letta", build: "l-1" }],
  assignments: [{ module: "letta", node: "hq-1" }],
}
const read = (doc: unknown) => readRecordsText(JSON.stringify(doc))

/** How deep a JSON value nests, counted the way the rule says: each array or object one level. */
const depthOf = (v: unknown): number =>
  typeof v === "object" && v !== null ? 1 + Math.max(0, ...Object.values(v).map(depthOf)) : 0

describe("JSON from outside", () => {
  it("a value nested no deeper than the bound reads as JSON.parse reads it, brackets inside strings not counted", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.string(), (v, s) => {
        const text = JSON.stringify([v, `${s}[[[{{{`])
        expect(parseJson(text)).toEqual({ value: JSON.parse(text) })
      }),
    )
  })
  it("a value nested deeper is refused before it is parsed, at any depth past the bound", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200_000 }), fc.boolean(), (d, arrays) => {
        const text = arrays ? `${"[".repeat(d)}${"]".repeat(d)}` : `${'{"a":'.repeat(d)}0${"}".repeat(d)}`
        const read = parseJson(text)
        if (d <= jsonMaxDepth) expect(depthOf((read as { value: unknown }).value)).toBe(d)
        else expect(read).toEqual({ problem: `nested deeper than ${jsonMaxDepth} levels` })
      }),
      { numRuns: 60 },
    )
  })
  it("a bracket in a string, after an escaped quote too, is no nesting, and a closed value counts no more", () => {
    const nested = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`
    const fits = [
      `[${nested(jsonMaxDepth - 1)},${nested(jsonMaxDepth - 1)}]`,
      `[${JSON.stringify("[".repeat(100))}]`,
      `[${JSON.stringify(`"${"{".repeat(100)}`)}]`,
    ]
    for (const text of fits) expect(parseJson(text)).toEqual({ value: JSON.parse(text) })
    // Closing brackets inside a string leave the depth as it is: 65 deep is refused.
    expect(parseJson(`[${JSON.stringify("]".repeat(10))},${nested(jsonMaxDepth)}]`)).toEqual({
      problem: `nested deeper than ${jsonMaxDepth} levels`,
    })
  })
  it("a records file nested too deep is refused as the document", () => {
    expect(readRecordsText(`{"mesh":${"[".repeat(100_000)}`)).toEqual({
      ok: false,
      field: "(document)",
      problem: "nested deeper than 64 levels",
    })
  })
})

describe("records whole when kept", () => {
  it("an assignment of a module that is not among the modules is refused by name", () => {
    expect(read({ ...records, assignments: [...records.assignments, { module: "ghost", node: "hq-1" }] })).toEqual({
      ok: false,
      field: "assignments",
      problem: "ghost is assigned to hq-1, but no module of that name is among the modules",
    })
  })
  it("a module with an empty build, or one over the bound, is refused by its field", () => {
    for (const build of ["", "  ", "b".repeat(textBounds.build + 1)])
      expect(read({ ...records, modules: [{ name: "letta", build }] })).toMatchObject({
        ok: false,
        field: "modules[0].build",
      })
    expect(read({ ...records, modules: [{ name: "letta", build: "b".repeat(textBounds.build) }] }).ok).toBe(true)
  })
})

describe("texts a person gives", () => {
  it("a name, a reason, a build: kept up to the bound, refused one character past it", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20_000 }), (n) => {
        const text = "x".repeat(n)
        expect(personProblem("--as", text) === undefined).toBe(n <= textBounds.person)
        expect(reasonProblem("--why", text) === undefined).toBe(n <= textBounds.reason)
      }),
      { numRuns: 50 },
    )
    expect(reasonProblem("--why", "")).toBeUndefined()
  })
  it("a verb on the wire with a reason or a name past the bound is refused by the controller's Schema", () => {
    const ok = (r: unknown) => Exit.isSuccess(Schema.decodeUnknownExit(VerbRequest)(r))
    const verb = { verb: "pause", plan: "letta-205", by: "ana", why: "" }
    expect(ok(verb)).toBe(true)
    expect(ok({ ...verb, why: "w".repeat(textBounds.reason) })).toBe(true)
    expect(ok({ ...verb, why: "w".repeat(textBounds.reason + 1) })).toBe(false)
    expect(ok({ ...verb, by: "a".repeat(textBounds.person + 1) })).toBe(false)
  })
  it("release --build and --commit past the bound are refused before anything is planned", () => {
    const long = "b".repeat(100_000)
    expect(
      releaseRow(records, [], { module: "letta", build: long, commit: "c1", first: ["hq-1"], then: [] }, 0),
    ).toEqual({
      ok: false,
      problem: "--build: 100000 characters, over the 1024 it may be",
    })
    expect(
      releaseRow(records, [], { module: "letta", build: "l-2", commit: long, first: ["hq-1"], then: [] }, 0),
    ).toEqual({
      ok: false,
      problem: "--commit: 100000 characters, over the 1024 it may be",
    })
  })
})
