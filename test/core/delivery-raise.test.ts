// raiseTheBus's decisions (seeds 002 and 004; issue 28), stated apart from the code: the buckets and
// logs the bus must hold are every one a catalogued module declares (assigned or not), each once; what
// the bus holds that nothing declares is exactly what it holds less what is declared; the seed's words.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { declared, raisedSaid, undeclared, undeclaredSaid } from "@mesh-core/core/delivery/raise"
import type { MeshRecords } from "@mesh-core/core/mesh/records"

const name = fc.constantFrom("roles", "index", "audit", "sessions", "queries", "cache")
const module = fc.record(
  {
    name: fc.constantFrom("a", "b", "c", "d"),
    build: fc.constant("x-1"),
    states: fc.array(name, { maxLength: 4 }),
    logs: fc.array(name, { maxLength: 4 }),
  },
  { requiredKeys: ["name", "build"] },
)
const records = fc
  .array(module, { maxLength: 6 })
  .map((modules): MeshRecords => ({ mesh: "hq", nodes: ["hq-1"], modules, assignments: [] }))

describe("what the bus must hold", () => {
  it("every state and log a catalogued module declares, once each, in order; none for no records", () => {
    fc.assert(
      fc.property(records, (r) => {
        for (const [kind, got] of [
          ["states", declared(r, "states")],
          ["logs", declared(r, "logs")],
        ] as const) {
          const wanted: Array<string> = []
          for (const m of r.modules) for (const n of m[kind] ?? []) if (!wanted.includes(n)) wanted.push(n)
          expect(got).toEqual(wanted.sort())
        }
      }),
    )
    expect(declared(undefined, "states")).toEqual([])
    expect(declared(undefined, "logs")).toEqual([])
  })

  it("what nothing declares: every name held and not declared, and nothing else", () => {
    fc.assert(
      fc.property(fc.array(name), fc.array(name), (declared, held) => {
        const u = undeclared(declared, held)
        for (const n of held) expect(u.includes(n)).toBe(!declared.includes(n))
        for (const n of u) expect(held).toContain(n)
        expect(new Set(u).size).toBe(u.length)
        // Said in the bus's order of names, whatever order the bus listed them in.
        expect(u).toEqual([...u].sort())
      }),
    )
  })

  it("the seed's words", () => {
    expect(undeclaredSaid("states", [])).toBeUndefined()
    expect(undeclaredSaid("logs", [])).toBeUndefined()
    expect(undeclaredSaid("states", ["state_a", "state_b"])).toBe(
      "the bus holds state nothing declares any more, kept because it is data: state_a, state_b — removing it is a person's act",
    )
    expect(undeclaredSaid("logs", ["LOG_a"])).toBe(
      "the bus holds logs nothing declares any more, kept because they are data: LOG_a — removing one is a person's act",
    )
    expect(undeclaredSaid("logs", ["LOG_a", "LOG_b"])).toBe(
      "the bus holds logs nothing declares any more, kept because they are data: LOG_a, LOG_b — removing one is a person's act",
    )
    expect(raisedSaid({ url: "nats://bus:4222", machines: 5, buckets: 2, logs: 0 })).toBe(
      "the bus at nats://bus:4222 has its streams, 5 machine(s) can hear a declaration, 2 bucket(s) of state and 0 log(s)",
    )
  })
})
