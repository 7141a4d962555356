// Composing, delivering and judging declarations against models written from the rules (seeds 002
// and 004, novox/hq ADRs 0066 and 0207), not from the code: which machines can be composed and what
// each declaration holds, the user list, the engine's judging, and the words a push says.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { behindSelection, pushArguments, type Report, unheldReport, waitVerdict } from "@mesh-core/core/delivery/behind"
import {
  compose,
  composeAllOrNothing,
  draftAll,
  couldNotBeResolved,
  digestOf,
  indexRecords,
  membershipKey,
} from "@mesh-core/core/delivery/compose"
import { judgeArrival } from "@mesh-core/core/delivery/engine"
import { brokerFirst, deliveryActs, grantsWord, holderBehind } from "@mesh-core/core/delivery/order"
import type { MeshRecords, ModuleRecord } from "@mesh-core/core/mesh/records"
import { canonicalJson } from "@mesh-core/core/json"
import { sha256Hex } from "@mesh-core/core/sha256"
import { composeEach } from "../support/push-world.ts"
import { declared } from "../support/declared.ts"

const pool = ["hq-1", "hq-2", "hq-3", "hq-4"]
const catalogue: ReadonlyArray<ModuleRecord> = [
  { name: "broker", build: "b-1", busUsers: true, claims: ["bus"], subscribes: [">"] },
  { name: "postgres", build: "p-1", receives: ["postgres"], states: ["postgres-roles", "postgres-roles"] },
  { name: "identity", build: "i-1", receives: ["identity", "sso"], publishes: ["identity.>"] },
  {
    name: "letta",
    build: "l-1",
    requires: ["postgres", "identity"],
    publishes: ["letta.>"],
    needsSeats: ["bus", "search"],
    states: ["letta-memory"],
  },
  { name: "grafana", build: "g-1", requires: ["metrics"] },
  { name: "outline", build: "o-1", requires: ["identity"], subscribes: ["outline.in"] },
]

/** Every module of the catalogue on the pool, assigned as `assignments` say. */
const poolMesh = (assignments: MeshRecords["assignments"]): MeshRecords => ({
  mesh: "hq",
  nodes: pool,
  modules: [...catalogue],
  assignments,
})

const records: fc.Arbitrary<MeshRecords> = fc
  .record({
    modules: fc.subarray([...catalogue], { minLength: 1 }),
    assignments: fc.uniqueArray(
      fc.record({
        module: fc.constantFrom(...catalogue.map((m) => m.name), "ghost"),
        node: fc.constantFrom(...pool),
        port: fc.option(fc.nat(9), { nil: undefined }),
      }),
      { selector: (a) => `${a.module}@${a.node}`, maxLength: 12 },
    ),
  })
  .map(({ modules, assignments }) => ({
    mesh: "hq",
    nodes: pool,
    modules,
    assignments: assignments.map(({ module, node, port }) =>
      port === undefined ? { module, node } : { module, node, config: { port, host: node } },
    ),
  }))

/** What a machine's declaration must be, worked out from the records by the rules, read straight through. */
const modelOf = (r: MeshRecords, node: string) => {
  const registered = (name: string) => r.modules.find((m) => m.name === name)
  const here = r.assignments.filter((a) => a.node === node)
  const anywhere = r.assignments.map((a) => ({ a, m: registered(a.module) })).filter((x) => x.m !== undefined)
  const provided = new Set(anywhere.flatMap((x) => x.m!.receives ?? []))
  // The first module here, by name, that is not registered or lacks a provider is the machine's refusal.
  const refusal = here
    .map((a) => a.module)
    .sort()
    .map((name) => {
      const m = registered(name)
      if (m === undefined) return `${name} is assigned here but no such module is registered`
      const q = (m.requires ?? []).find((x) => !provided.has(x))
      return q === undefined ? undefined : `${name} requires ${q}, and no module assigned anywhere provides it`
    })
    .find((why) => why !== undefined)
  const seats = new Set(anywhere.flatMap((x) => x.m!.claims ?? []))
  const mods = here.map((a) => ({ a, m: registered(a.module) })).filter((x) => x.m !== undefined)
  mods.sort((x, y) => (x.m!.name < y.m!.name ? -1 : 1))
  const holder = anywhere.find((x) => (x.m!.claims ?? []).includes("bus"))?.a.node
  return {
    refusal,
    holder,
    resources: mods.map(({ a, m }) => ({
      module: m!.name,
      build: m!.build,
      config: a.config ?? {},
      receives: Object.fromEntries(
        (m!.receives ?? []).map((q) => [
          q,
          anywhere
            .filter((x) => (x.m!.requires ?? []).includes(q))
            .map((x) => `${x.m!.name}@${x.a.node}`)
            .sort(),
        ]),
      ),
    })),
    unheld: mods.flatMap(({ m }) =>
      (m!.needsSeats ?? [])
        .filter((s) => !seats.has(s))
        .map((s) => `${m!.name} needs the ${s} seat, and no module assigned anywhere holds it`),
    ),
  }
}

describe("compose against a model of the records (ADR 0066)", () => {
  it("composes exactly the machines whose modules are registered and provided for, each with the resources the records give it", () => {
    fc.assert(
      fc.property(records, fc.constantFrom(...pool), fc.nat(1000), (r, node, seq) => {
        const want = modelOf(r, node)
        const c = compose(indexRecords(r), node, seq)
        if (want.refusal !== undefined) {
          expect(c).toEqual({ ok: false, why: want.refusal })
          return
        }
        const stray = r.assignments.find((a) => !r.modules.some((m) => m.name === a.module))
        if (node === want.holder && stray !== undefined) {
          expect(c).toEqual({
            ok: false,
            why: `the bus's user list cannot be worked out: ${stray.module} is assigned to ${stray.node} but no such module is registered`,
          })
          return
        }
        expect(c.ok).toBe(true)
        if (!c.ok) return
        expect(declared(c).resources).toEqual(want.resources)
        expect(declared(c)).toMatchObject({ mesh: "hq", node, sequence: seq })
        expect([c.sequence, c.resourceCount]).toEqual([seq, want.resources.length])
        expect(c.unheld).toEqual(want.unheld)
        expect(c.builds).toEqual(Object.fromEntries(want.resources.map((x) => [x.module, x.build])))
        expect(c.memberships.map((m) => [m.mesh, m.node, m.module])).toEqual(
          want.resources.map((x) => ["hq", node, x.module]),
        )
        for (const m of c.memberships) {
          const rec = r.modules.find((x) => x.name === m.module)!
          expect(m.states).toEqual([...new Set(rec.states ?? [])].sort())
          expect(m.receives).toEqual(want.resources.find((x) => x.module === m.module)!.receives)
        }
        // the bytes sent are the declaration, keys sorted, and the digest is of those bytes
        expect(c.body).toBe(canonicalJson(declared(c)))
        expect(c.digest).toBe(sha256Hex(c.body))
        // only the holder carries the user list: one user per assignment, and the digest of that list
        if (node === want.holder) {
          expect(declared(c).busUsers!.map((u) => u.user)).toEqual(
            r.assignments.map((a) => `${a.module}@${a.node}`).sort(),
          )
          expect(c.busUsersDigest).toBe(sha256Hex(canonicalJson(declared(c).busUsers)))
        } else {
          expect(declared(c).busUsers).toBeUndefined()
          expect(c.busUsersDigest).toBeUndefined()
        }
      }),
      { numRuns: 150 },
    )
  })

  it("the holder's declaration carries every assigned module's permissions, derived from the records", () => {
    const r = poolMesh([
      { module: "letta", node: "hq-2" },
      { module: "broker", node: "hq-1" },
      { module: "postgres", node: "hq-2" },
      { module: "identity", node: "hq-3" },
    ])
    const c = compose(indexRecords(r), "hq-1", 5)
    expect(c.ok).toBe(true)
    if (!c.ok) return
    const users = [
      { user: "broker@hq-1", publish: [], subscribe: ["$KV.memberships.hq-1.broker", ">"] },
      {
        user: "identity@hq-3",
        publish: ["identity.>", "provisioner.failing", "provisioner.recovered"],
        subscribe: ["$KV.memberships.hq-3.identity"],
      },
      {
        user: "letta@hq-2",
        publish: ["$KV.letta-memory.>", "letta.>"],
        subscribe: ["$KV.letta-memory.>", "$KV.memberships.hq-2.letta"],
      },
      {
        user: "postgres@hq-2",
        publish: ["$KV.postgres-roles.>", "provisioner.failing", "provisioner.recovered"],
        subscribe: ["$KV.memberships.hq-2.postgres", "$KV.postgres-roles.>"],
      },
    ]
    expect(declared(c).busUsers).toEqual(users)
    expect(c.busUsersDigest).toBe(sha256Hex(canonicalJson(users)))
    expect(c.unheld).toEqual([])
    const letta = compose(indexRecords(r), "hq-2", 5)
    expect(letta.ok && declared(letta).busUsers).toBe(undefined)
    expect(letta.ok && letta.unheld).toEqual(["letta needs the search seat, and no module assigned anywhere holds it"])
    expect(letta.ok && declared(letta).resources.find((x) => x.module === "postgres")!.receives).toEqual({
      postgres: ["letta@hq-2"],
    })
    expect(membershipKey("hq-2", "letta")).toBe("hq-2.letta")
    // a ghost assigned anywhere: the holder cannot work out the list, the others still compose
    const ghost = { ...r, assignments: [...r.assignments, { module: "ghost", node: "hq-4" }] }
    expect(compose(indexRecords(ghost), "hq-1", 5)).toEqual({
      ok: false,
      why: "the bus's user list cannot be worked out: ghost is assigned to hq-4 but no such module is registered",
    })
    expect(compose(indexRecords(ghost), "hq-2", 5).ok).toBe(true)
    // no holder assigned: nobody carries a list
    const noBus = { ...r, assignments: r.assignments.filter((a) => a.module !== "broker") }
    expect(indexRecords(noBus).holder).toBeUndefined()
    // the first machine claiming the seat holds it
    const two = { ...r, assignments: [...r.assignments, { module: "broker", node: "hq-4" }] }
    expect(indexRecords(two).holder).toBe("hq-1")
    expect(indexRecords({ ...r, assignments: [] }).userList).toEqual({ ok: true, text: "", digest: "" })
  })

  it("composeEach: the machines that compose are sent, in the order asked, the rest named with why; a machine owning nothing is sent and said", () => {
    fc.assert(
      fc.property(records, fc.uniqueArray(fc.constantFrom(...pool, "hq-9")), (r, names) => {
        const sequences = new Map<string, number | { error: string }>(
          names.map((n, i) => [n, i % 3 === 2 ? { error: `no sequence for ${n}` } : i + 1]),
        )
        const index = indexRecords(r)
        const { sending, refusals, said } = composeEach(index, names, sequences)
        const good = names.filter((n, i) => i % 3 !== 2 && compose(index, n, 1).ok)
        expect(sending.map((s) => s.node)).toEqual(good)
        expect(refusals).toEqual(
          names
            .filter((n) => !good.includes(n))
            .map((n) => {
              const seq = sequences.get(n)!
              return typeof seq !== "number"
                ? `${n}:\n${seq.error}`
                : `${n}:\n${(compose(index, n, seq) as { why: string }).why}`
            }),
        )
        expect(said).toEqual(
          good
            .filter((n) => !r.assignments.some((a) => a.node === n))
            .map((n) => `${n} owns nothing now — sent so it drops what it last held`),
        )
        for (const s of sending) {
          expect(declared(s.composition).sequence).toBe(sequences.get(s.node))
          expect(s.composition.sequence).toBe(sequences.get(s.node))
        }
      }),
    )
  })

  it("says what could not be resolved after the rest were sent, and all-or-nothing says it instead", () => {
    expect(couldNotBeResolved([], 3)).toBeUndefined()
    expect(couldNotBeResolved(["hq-1:\nwhy one", "hq-2:\nwhy two"], 3)).toBe(
      "2 node(s) could not be resolved and were not sent. 3 other node(s) were:\n\nhq-1:\nwhy one\n\nhq-2:\nwhy two",
    )
    const r = poolMesh([
      { module: "grafana", node: "hq-2" },
      { module: "outline", node: "hq-3" },
    ])
    const index = indexRecords(r)
    expect(composeEach(index, ["hq-4"], new Map()).refusals).toEqual(["hq-4:\nno sequence was allotted"])
    expect(
      composeAllOrNothing(
        draftAll(index, ["hq-1", "hq-2", "hq-3"]),
        ["hq-1", "hq-2", "hq-3"],
        new Map([
          ["hq-1", 1],
          ["hq-2", 2],
          ["hq-3", 3],
        ]),
      ),
    ).toEqual({
      sending: [],
      said: [],
      refused:
        "nothing was sent. 2 machine(s) could not be resolved:\n\nhq-2:\ngrafana requires metrics, and no module assigned anywhere provides it\n\nhq-3:\noutline requires identity, and no module assigned anywhere provides it",
    })
    const fine = composeAllOrNothing(draftAll(index, ["hq-1"]), ["hq-1"], new Map([["hq-1", 1]]))
    expect(fine).toMatchObject({
      said: ["hq-1 owns nothing now — sent so it drops what it last held"],
    })
    expect(fine.sending.map((s) => s.node)).toEqual(["hq-1"])
  })
})

describe("the holder behind, and the order of a delivery (issue 249)", () => {
  const r = poolMesh([
    { module: "broker", node: "hq-1" },
    { module: "postgres", node: "hq-2" },
  ])
  it("the holder is behind when the list it would carry is not the one it was last sent", () => {
    const index = indexRecords(r)
    const list = compose(index, "hq-1", 1)
    const sent = list.ok ? list.busUsersDigest : undefined
    expect(holderBehind(index, ["hq-2"], sent)).toEqual({ holder: "hq-1", behind: false })
    expect(holderBehind(index, ["hq-2"], "other")).toEqual({ holder: "hq-1", behind: true })
    expect(holderBehind(index, ["hq-2"], undefined)).toEqual({ holder: "hq-1", behind: true })
    expect(holderBehind(index, ["hq-1"], "other")).toEqual({ holder: "hq-1", behind: false })
    expect(
      holderBehind(
        indexRecords({ ...r, assignments: [...r.assignments, { module: "ghost", node: "hq-3" }] }),
        ["hq-2"],
        sent,
      ),
    ).toEqual({ holder: "hq-1", behind: true })
    expect(holderBehind(indexRecords({ ...r, assignments: [] }), ["hq-2"], "x")).toEqual({
      holder: undefined,
      behind: false,
    })
  })

  it("brokerFirst with an empty holder name sends as asked", () => {
    expect(brokerFirst(["hq-2", "hq-1"], "", true)).toEqual(["hq-2", "hq-1"])
    expect(brokerFirst(["hq-2", "hq-1"], "hq-1", false)).toEqual(["hq-1", "hq-2"])
    expect(brokerFirst(["hq-2"], "hq-1", true)).toEqual(["hq-1", "hq-2"])
    expect(brokerFirst(["hq-2"], "hq-1", false)).toEqual(["hq-2"])
  })

  it("the delivery's errors, word for word", () => {
    const run = (
      holder: string | undefined,
      sending: ReadonlyArray<string>,
      grant: { ok: true } | { ok: false; error: string } | { ok: false; refused: Record<string, string> },
      declareFails?: string,
    ) => {
      const delivery = deliveryActs(holder, sending)
      let step = delivery.next()
      const acts: Array<string> = []
      while (step.done !== true) {
        const act = step.value
        acts.push(act.act === "grant" ? `grant ${act.nodes.join(",")}` : `declare ${act.node}`)
        step = delivery.next(
          act.act === "grant"
            ? grant
            : act.node === declareFails
              ? { ok: false, error: `${act.node} unreachable` }
              : { ok: true },
        )
      }
      return { acts, error: step.value, done: step.done }
    }
    expect(run("hq-1", ["hq-1", "hq-2", "hq-3"], { ok: true })).toEqual({
      acts: ["declare hq-1", "grant hq-1,hq-2,hq-3", "declare hq-2", "declare hq-3"],
      error: undefined,
      done: true,
    })
    expect(run("hq-1", ["hq-1", "hq-2"], { ok: false, error: "kv down" })).toEqual({
      acts: ["declare hq-1", "grant hq-1,hq-2"],
      error: `${grantsWord}; hq-2 not sent: kv down`,
      done: true,
    })
    expect(run("hq-1", ["hq-1"], { ok: false, error: "kv down" }).error).toBe(`${grantsWord}: kv down`)
    expect(run(undefined, ["hq-3", "hq-2"], { ok: false, refused: { "hq-3": "no room", "hq-2": "bad name" } })).toEqual(
      {
        acts: ["grant hq-3,hq-2"],
        error: `${grantsWord}; hq-3, hq-2 not sent: the memberships of hq-2, hq-3 could not be issued; the first: bad name`,
        done: true,
      },
    )
    expect(run("hq-1", ["hq-1", "hq-2"], { ok: false, refused: { "hq-1": "own" } })).toEqual({
      acts: ["declare hq-1", "grant hq-1,hq-2", "declare hq-2"],
      error: `${grantsWord}: the memberships of hq-1 could not be issued; the first: own`,
      done: true,
    })
    expect(run(undefined, ["hq-2", "hq-3", "hq-4"], { ok: true }, "hq-3")).toEqual({
      acts: ["grant hq-2,hq-3,hq-4", "declare hq-2", "declare hq-3"],
      error: "hq-3 unreachable",
      done: true,
    })
    expect(grantsWord).toBe(
      "what the machines' modules may do on the bus could not be issued, and code sent before its grants is refused there",
    )
    expect(deliveryActs("hq-1", []).next()).toEqual({ done: true, value: undefined })
  })
})

describe("push --behind, --wait and the engine", () => {
  const r = poolMesh([
    { module: "broker", node: "hq-1" },
    { module: "grafana", node: "hq-2" },
  ])
  it("a machine never sent is behind; one that cannot be composed is left out; a long failure is said with its date", () => {
    const index = indexRecords(r)
    const c1 = compose(index, "hq-1", 4)
    const sent = new Map([["hq-1", { digest: c1.ok ? c1.digest : "", sequence: 4 }]])
    expect(behindSelection(index, ["hq-1", "hq-2", "hq-3"], new Map(), sent, 0)).toEqual({ asked: ["hq-3"], said: [] })
    expect(behindSelection(index, ["hq-1", "hq-2"], new Map(), sent, 0)).toEqual({
      asked: [],
      said: ["every machine is doing what it was told"],
    })
    const refused: Report = {
      node: "hq-1",
      digest: "d",
      sequence: 4,
      outcome: "refused",
      at: Date.parse("2026-10-05T06:07:08Z"),
      refused: "x",
      failed: [],
    }
    expect(behindSelection(index, ["hq-1"], new Map([["hq-1", refused]]), sent, refused.at + 6 * 3_600_000)).toEqual({
      asked: ["hq-1"],
      said: [],
    })
    expect(
      behindSelection(index, ["hq-1"], new Map([["hq-1", refused]]), sent, refused.at + 6 * 3_600_000 + 1),
    ).toEqual({
      asked: ["hq-1"],
      said: [
        "hq-1 has been refused since 2026-10-05 06:07 UTC; pushing again anyway, but the cause is unlikely to be timing",
      ],
    })
    expect(
      behindSelection(index, ["hq-1"], new Map([["hq-1", { ...refused, outcome: "applied" }]]), sent, 0).asked,
    ).toEqual([])
  })

  it("waiting: nothing sent is done at once; a report of another digest waits until the deadline", () => {
    const rep: Report = {
      node: "hq-2",
      digest: "d1",
      sequence: 3,
      outcome: "refused",
      at: 0,
      failed: [],
    }
    expect(waitVerdict("hq-2", "", undefined, 0, 10, 10)).toEqual({ done: true, ok: true, said: "" })
    expect(waitVerdict("hq-2", "d1", rep, 0, 10, 10)).toEqual({
      done: true,
      ok: false,
      error: "hq-2 refused what it was sent: ",
    })
    expect(waitVerdict("hq-2", "d1", undefined, 10, 10, 90_000)).toEqual({ done: false })
    expect(waitVerdict("hq-2", "d1", { ...rep, digest: "d0" }, 11, 10, 90_000)).toEqual({
      done: true,
      ok: false,
      error: "hq-2 did not report applying what it was sent within 1m30s (it may still be converging; check `status`)",
    })
  })

  it("the seed's push arguments", () => {
    expect(pushArguments([], false)).toEqual({ node: undefined, waitMs: 0 })
    expect(pushArguments([], true)).toEqual({ node: undefined, waitMs: 0 })
    expect(pushArguments(["hq-1"], false)).toEqual({ node: "hq-1", waitMs: 0 })
    expect(pushArguments(["hq-1"], true)).toEqual({
      problem: "push <node> or push --behind, not both: one names a machine and the other asks which machines need one",
    })
    expect(pushArguments(["hq-1", "hq-2"], false)).toEqual({
      problem: "push [<node>] [--behind] — one node, or all of them",
    })
  })

  it("unmet seats: nothing for a machine not asked", () => {
    expect(unheldReport(true, ["hq-9"], new Map([["hq-3", ["x"]]]))).toEqual([])
    expect(unheldReport(false, ["hq-3"], new Map([["hq-3", ["x"]]]))).toEqual([
      "hq-3: 1 unmet seat dependenc(ies) — see `status`",
    ])
  })

  it("the engine applies what is signed, for it, and not older than what it applied; each refusal says why", () => {
    const body = (d: unknown) => JSON.stringify(d)
    const decl = {
      mesh: "hq",
      node: "hq-2",
      sequence: 7,
      resources: [
        { module: "grafana", build: "g-1" },
        { module: "letta", build: "l-1" },
      ],
    }
    const ok = judgeArrival({ lastApplied: 7 }, "hq-2", { body: body(decl), signatureVerifies: true }, new Set())
    expect(ok).toEqual({
      memory: { lastApplied: 7 },
      outcome: "applied",
      digest: sha256Hex(body(decl)),
      sequence: 7,
      failed: [],
      builds: [
        { module: "grafana", build: "g-1" },
        { module: "letta", build: "l-1" },
      ],
    })
    expect(digestOf(body(decl))).toBe(sha256Hex(body(decl)))
    expect(
      judgeArrival(
        { lastApplied: undefined },
        "hq-2",
        { body: body(decl), signatureVerifies: true },
        new Set(["letta"]),
      ),
    ).toMatchObject({ outcome: "failed", failed: ["letta"], memory: { lastApplied: 7 } })
    const refused = (memory: { lastApplied: number | undefined }, text: string, verifies = true) => {
      const j = judgeArrival(memory, "hq-2", { body: text, signatureVerifies: verifies }, new Set())
      expect(j).toMatchObject({
        outcome: "refused",
        memory,
        failed: [],
        builds: [],
        digest: sha256Hex(text),
      })
      return [j.refused, j.sequence]
    }
    expect(refused({ lastApplied: 1 }, body(decl), false)).toEqual([
      "the signature does not verify against the controller's key: not from the controller",
      -1,
    ])
    expect(refused({ lastApplied: 1 }, "{")).toEqual(["the declaration is not JSON", -1])
    expect(refused({ lastApplied: 1 }, body({ ...decl, sequence: "7" }))).toEqual([
      "the declaration has no sequence or no resources",
      -1,
    ])
    expect(refused({ lastApplied: 1 }, body({ ...decl, resources: {} }))).toEqual([
      "the declaration has no sequence or no resources",
      -1,
    ])
    expect(refused({ lastApplied: 1 }, body({ ...decl, node: "hq-3" }))).toEqual([
      "the declaration is for hq-3, not hq-2",
      7,
    ])
    expect(refused({ lastApplied: 8 }, body(decl))).toEqual([
      "sequence 7 is lower than 8, the last applied: an older declaration replayed",
      7,
    ])
  })

  it("the body sent is the declaration in canonical JSON", () => {
    expect(
      canonicalJson({
        mesh: "hq",
        node: "hq-1",
        sequence: 2,
        resources: [{ module: "m", build: "b", config: { z: 1, a: [2, { y: null, b: "c" }] }, receives: {} }],
      }),
    ).toBe(
      '{"mesh":"hq","node":"hq-1","resources":[{"build":"b","config":{"a":[2,{"b":"c","y":null}],"z":1},"module":"m","receives":{}}],"sequence":2}',
    )
  })
})
