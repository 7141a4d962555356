// The bus's user list and each requirement's consumers are in the order of the names, `module@node`,
// sorted as text (seed 002 sorts both): a model sorting the names themselves, against records whose
// names are built to trip an order taken any other way: modules one a prefix of another (`a`, `a-`,
// `ab`), machines named like modules, and modules whose name holds an `@`, which interleave with
// others (`a` on `b` is `a@b`, as is the start of `a@b` on `x`).
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { indexRecords } from "@mesh-core/core/delivery/compose"
import type { MeshRecords } from "@mesh-core/core/mesh/records"
import { usersOf } from "../support/declared.ts"

const sortedAsText = (names: ReadonlyArray<string>) => [...names].sort()

const meshOf = (consumers: ReadonlyArray<string>, assignments: MeshRecords["assignments"]): MeshRecords => ({
  mesh: "m",
  nodes: [...new Set(assignments.map((a) => a.node))],
  modules: [
    { name: "broker", build: "b", busUsers: true, claims: ["bus"] },
    { name: "db", build: "d", receives: ["db"] },
    ...consumers.map((name) => ({ name, build: "c", requires: ["db"] })),
  ],
  assignments,
})

const consumerNames = ["a", "a-", "ab", "a@b", "b", "b@", "app1", "app10"]
const records = (withAt: boolean) =>
  fc
    .record({
      consumers: fc.subarray(
        consumerNames.filter((n) => withAt || !n.includes("@")),
        { minLength: 1 },
      ),
      nodes: fc.array(fc.string({ unit: fc.constantFrom("a", "b", "x", "@", "-", "1"), minLength: 1, maxLength: 3 }), {
        minLength: 1,
        maxLength: 8,
      }),
    })
    .chain(({ consumers, nodes }) =>
      fc
        .array(fc.record({ module: fc.constantFrom(...consumers, "db"), node: fc.constantFrom(...nodes) }), {
          maxLength: 25,
        })
        .map((rest) => meshOf(consumers, [{ module: "broker", node: nodes[0]! }, ...rest])),
    )

const namesOf = (r: MeshRecords) => r.assignments.map((a) => `${a.module}@${a.node}`)
const consumersModel = (r: MeshRecords) =>
  sortedAsText(
    r.assignments.filter((a) => a.module !== "db" && a.module !== "broker").map((a) => `${a.module}@${a.node}`),
  )

describe("the user list and the consumers, in the order of their names", () => {
  for (const withAt of [false, true])
    it(`are the names sorted as text${withAt ? ", when a module's name holds an @" : ""}`, () => {
      fc.assert(
        fc.property(records(withAt), (r) => {
          const index = indexRecords(r)
          expect(index.userList.ok && usersOf(index.userList).map((u) => u.user)).toEqual(sortedAsText(namesOf(r)))
          const consumers = consumersModel(r)
          expect(index.consumersOf.get("db") ?? []).toEqual(consumers)
        }),
        { numRuns: 300 },
      )
    })

  it("interleaves a module named with an @ with the one its name starts with", () => {
    const r = meshOf(
      ["a", "a@b", "a-"],
      [
        { module: "a", node: "c" },
        { module: "a@b", node: "x" },
        { module: "broker", node: "b" },
        { module: "a-", node: "b" },
        { module: "a", node: "b" },
      ],
    )
    const index = indexRecords(r)
    expect(index.consumersOf.get("db")).toEqual(["a-@b", "a@b", "a@b@x", "a@c"])
    expect(index.userList.ok && usersOf(index.userList).map((u) => u.user)).toEqual([
      "a-@b",
      "a@b",
      "a@b@x",
      "a@c",
      "broker@b",
    ])
  })

  it("puts a module before another its name is the start of, as the names sort (`app10@` before `app1@`)", () => {
    const r = meshOf(
      ["app1", "app10"],
      [
        { module: "broker", node: "m" },
        { module: "app1", node: "m" },
        { module: "app10", node: "m" },
      ],
    )
    expect(indexRecords(r).consumersOf.get("db")).toEqual(["app10@m", "app1@m"])
  })

  it("subscribes each user to its module's subjects and its own membership, sorted, each once", () => {
    const membership = "$KV.memberships.n.a"
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.constantFrom(membership, ">", "$KV.a.>", "$KV.z", "a.in", "!", "~"), { maxLength: 5 }),
        (subscribes) => {
          const r: MeshRecords = {
            mesh: "m",
            nodes: ["n"],
            modules: [{ name: "a", build: "1", busUsers: true, claims: ["bus"], subscribes }],
            assignments: [{ module: "a", node: "n" }],
          }
          const index = indexRecords(r)
          expect(index.userList.ok && usersOf(index.userList)[0]!.subscribe).toEqual(
            sortedAsText([...new Set([...subscribes, membership])]),
          )
        },
      ),
      { numRuns: 200 },
    )
  })
})
