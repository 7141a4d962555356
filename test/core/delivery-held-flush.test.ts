// The flush after a named push (issue 057, ADR 0083), modules a machine cannot host (seed 002's
// reportUnhostable), and the bus machine judged against what it reports running (seed 004's
// listBehind), as properties.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { Sent } from "@mesh-core/core/delivery/behind"
import { compose, digestOf, indexRecords } from "@mesh-core/core/delivery/compose"
import { flushBehind, flushRounds } from "@mesh-core/core/delivery/flush"
import { heldMachines, indexFor, viewsOf } from "@mesh-core/core/delivery/held"
import { holderBehind, runningList } from "@mesh-core/core/delivery/order"
import type { MeshRecords } from "@mesh-core/core/mesh/records"
import { leftOut, reportUnhostable, unhostableOn } from "@mesh-core/core/delivery/unhostable"
import { lettaMesh, lettaPlan } from "../support/plan-records.ts"
import { behindSelection } from "@mesh-core/core/delivery/behind"
import { declared } from "../support/declared.ts"

const nodes = ["hq-1", "hq-2", "hq-3", "hq-4"]
const moduleNames = ["letta", "grafana", "postgres", "nats"]
const caps = ["gpu", "zfs", "tpm"]

const recordsArb: fc.Arbitrary<MeshRecords> = fc
  .record({
    assignments: fc.uniqueArray(
      fc.record({ module: fc.constantFrom(...moduleNames), node: fc.constantFrom(...nodes) }),
      { selector: (a) => `${a.module}@${a.node}`, maxLength: 10 },
    ),
    builds: fc.tuple(...moduleNames.map(() => fc.constantFrom("1", "2"))),
    needs: fc.tuple(...moduleNames.map(() => fc.subarray(caps, { maxLength: 2 }))),
    requires: fc.boolean(),
  })
  .map((r) => ({
    mesh: "hq",
    nodes,
    modules: moduleNames.map((name, i) => ({
      name,
      build: `${name}-${r.builds[i]}`,
      needs: r.needs[i]!,
      ...(name === "postgres" ? { receives: ["postgres"] } : {}),
      ...(name === "grafana" && r.requires ? { requires: ["postgres"] } : {}),
      ...(name === "nats" ? { claims: ["bus"], busUsers: true } : {}),
    })),
    assignments: r.assignments,
  }))

/** What each machine was last sent: the composition of some records, or something else entirely. */
const sentArb = (records: MeshRecords) =>
  fc.tuple(...nodes.map(() => fc.constantFrom("current", "other", "never"))).map((how) => {
    const index = indexRecords(records)
    const sent = new Map<string, Sent>()
    nodes.forEach((n, i) => {
      const c = compose(index, n, 7)
      if (how[i] === "current" && c.ok) sent.set(n, { digest: c.digest, sequence: 7 })
      if (how[i] === "other") sent.set(n, { digest: "0".repeat(64), sequence: 3 })
    })
    return sent
  })

describe("the flush after a named push (issue 057, ADR 0083)", () => {
  it("flushes no machine handled, none a plan leaves out, none whose last send is what it should be; once flushed as asked, the next round finds nothing", () => {
    const world = recordsArb.chain((records) =>
      fc.record({
        records: fc.constant(records),
        sent: sentArb(records),
        handled: fc.subarray(nodes, { maxLength: 2 }),
        left: fc.subarray(nodes, { maxLength: 1 }),
      }),
    )
    fc.assert(
      fc.property(world, ({ records, sent, handled, left }) => {
        const index = indexRecords(records)
        const leftMap = new Map(left.map((n) => [n, "held by plan x"]))
        const f = flushBehind(() => index, nodes, sent, new Set(handled), leftMap, 1)
        for (const n of f.flush) {
          expect(handled).not.toContain(n)
          expect(left).not.toContain(n)
          const c = compose(index, n, sent.get(n)?.sequence ?? 0)
          expect(c.ok && sent.get(n)?.digest === c.digest).toBe(false)
        }
        // Flushing sends each its composition now (a new sequence), recorded as sent.
        const after = new Map(sent)
        for (const n of f.flush) {
          const c = compose(index, n, 9)
          if (c.ok) after.set(n, { digest: c.digest, sequence: 9 })
        }
        expect(flushBehind(() => index, nodes, after, new Set([...handled, ...f.flush]), leftMap, 2).flush).toEqual([])
        expect(flushBehind(() => index, nodes, after, new Set(handled), leftMap, 2).flush).toEqual([])
        // What a round dealt with is what it flushed and the machines it named and left, each said once:
        // the next round, given them as handled, says nothing of them again.
        const leftSaid = f.said.filter((l) => l.includes("is not flushed")).map((l) => l.split(" ")[0]!)
        expect([...f.handled].sort()).toEqual([...f.flush, ...leftSaid].sort())
        for (const n of leftSaid) expect(left).toContain(n)
        const next = flushBehind(() => index, nodes, after, new Set([...handled, ...f.handled]), leftMap, 2)
        for (const n of f.handled) expect(next.said.some((l) => l.startsWith(`${n} `))).toBe(false)
      }),
      { numRuns: 300 },
    )
  })

  it("a machine behind only because a plan's build waits for its gate is not flushed; one behind for another reason is, with the plan's previous build", () => {
    const before: MeshRecords = {
      mesh: "hq",
      nodes,
      modules: [
        { name: "letta", build: "letta-204" },
        { name: "grafana", build: "grafana-1" },
      ],
      assignments: [
        { module: "letta", node: "hq-3" },
        { module: "letta", node: "hq-4" },
        { module: "letta", node: "hq-2" },
      ],
    }
    const sent = new Map<string, Sent>()
    for (const n of ["hq-2", "hq-3", "hq-4"]) {
      const c = compose(indexRecords(before), n, 1)
      if (c.ok) sent.set(n, { digest: c.digest, sequence: 1 })
    }
    // letta-205 released to hq-3; grafana newly assigned to hq-2
    const now: MeshRecords = {
      ...before,
      modules: [
        { name: "letta", build: "letta-205" },
        { name: "grafana", build: "grafana-1" },
      ],
      assignments: [...before.assignments, { module: "grafana", node: "hq-2" }],
    }
    const plan = lettaPlan({
      machines: ["hq-3"],
      rest: ["hq-2", "hq-4"],
      sent: ["hq-3"],
    })
    const h = heldMachines([plan], now, nodes, { kind: "flush" })
    const indexOf = indexFor(now, viewsOf(h))
    const f = flushBehind(indexOf, nodes, sent, new Set(["hq-3"]), h.left, 1)
    expect(f.flush).toEqual(["hq-1", "hq-2"])
    const hq2 = compose(indexOf("hq-2"), "hq-2", 2)
    expect(hq2.ok && declared(hq2).resources.map((r) => `${r.module} ${r.build}`)).toEqual([
      "grafana grafana-1",
      "letta letta-204",
    ])
    // Without the plan's holding, the gated build would have gone to hq-4 with the flush.
    expect(flushBehind(() => indexRecords(now), nodes, sent, new Set(["hq-3"]), new Map(), 1).flush).toContain("hq-4")
    expect(flushBehind(indexOf, nodes, sent, new Set(["hq-3"]), h.left, flushRounds).said.at(-1)).toBe(
      "still behind after 3 rounds of flushing: hq-1, hq-2 — `push --behind` sends them",
    )
  })
})

describe("modules a machine cannot host (seed 002's reportUnhostable)", () => {
  it("exactly the modules whose needs the machine does not detect are left out of what it is sent, and named once each; the rest of it converges; a machine that never said what it detects loses nothing", () => {
    const world = recordsArb.chain((records) =>
      fc.record({
        records: fc.constant(records),
        detected: fc.tuple(...nodes.map(() => fc.option(fc.subarray(caps), { nil: undefined }))),
      }),
    )
    fc.assert(
      fc.property(world, ({ records, detected }) => {
        const seen = new Map<string, ReadonlySet<string>>()
        nodes.forEach((n, i) => {
          if (detected[i] !== undefined) seen.set(n, new Set(detected[i]))
        })
        const u = unhostableOn(records, nodes, seen)
        const views = viewsOf({ pins: new Map(), left: new Map(), holds: [] }, leftOut(u))
        const indexOf = indexFor(records, views)
        for (const node of nodes) {
          const has = seen.get(node)
          const assigned = records.assignments.filter((a) => a.node === node).map((a) => a.module)
          const cannot = assigned.filter(
            (m) =>
              has !== undefined && (records.modules.find((x) => x.name === m)!.needs ?? []).some((c) => !has.has(c)),
          )
          expect((u.get(node) ?? []).map((x) => x.module).sort()).toEqual([...cannot].sort())
          const lines = reportUnhostable(node, u.get(node) ?? [])
          for (const m of cannot)
            expect(lines.some((l) => l.startsWith(`${node} not applied — ${m} needs `))).toBe(true)
          const c = compose(indexOf(node), node, 1)
          const plain = compose(indexRecords(records), node, 1)
          if (c.ok && plain.ok) {
            const modules = declared(c).resources.map((r) => r.module)
            expect(modules.filter((m) => cannot.includes(m))).toEqual([])
            expect(modules.sort()).toEqual(
              declared(plain)
                .resources.map((r) => r.module)
                .filter((m) => !cannot.includes(m))
                .sort(),
            )
          }
        }
      }),
      { numRuns: 300 },
    )
  })
})

describe("the bus machine judged against what it reports running (seed 004's listBehind)", () => {
  it("behind unless it reports applying the declaration it was last sent and that declaration carried the list composed now; an empty list is never behind; a list that cannot be worked out always is", () => {
    const arb = fc.record({
      list: fc.constantFrom("", '[{"user":"a"}]', '[{"user":"b"}]'),
      composedOk: fc.boolean(),
      reported: fc.option(
        fc.record({ digest: fc.constantFrom("d1", "d2"), outcome: fc.constantFrom("applied", "failed", "refused") }),
        { nil: undefined },
      ),
      sent: fc.option(
        fc.record({
          digest: fc.constantFrom("d1", "d2"),
          list: fc.constantFrom("", '[{"user":"a"}]', '[{"user":"b"}]'),
        }),
        { nil: undefined },
      ),
    })
    fc.assert(
      fc.property(arb, ({ list, composedOk, reported, sent }) => {
        const running = runningList(
          reported,
          sent === undefined
            ? undefined
            : { digest: sent.digest, busUsersDigest: sent.list === "" ? undefined : digestOf(sent.list) },
        )
        const { index } = busHolderMesh()
        const userList = composedOk
          ? { ok: true as const, text: list, digest: list === "" ? "" : digestOf(list) }
          : { ok: false as const, why: "not worked out" }
        const { behind } = holderBehind({ ...index, userList }, ["hq-2"], running)
        const carries =
          reported?.outcome === "applied" && sent !== undefined && sent.digest === reported.digest && sent.list === list
        expect(behind).toBe(!composedOk || (list !== "" && !carries))
      }),
    )
  })

  /** hq-1 holds the bus (nats, with its users), hq-2 runs letta; what hq-1 is composed as now. */
  const busHolderMesh = () => {
    const records: MeshRecords = {
      mesh: "hq",
      nodes,
      modules: [
        { name: "nats", build: "n1", claims: ["bus"], busUsers: true },
        { name: "letta", build: "l1" },
      ],
      assignments: [
        { module: "nats", node: "hq-1" },
        { module: "letta", node: "hq-2" },
      ],
    }
    const index = indexRecords(records)
    const c = compose(index, "hq-1", 4)
    if (!c.ok) throw new Error(c.why)
    return { index, c }
  }

  it("the holder among the machines asked is never added; one that does not run the list composed now is", () => {
    const { index, c } = busHolderMesh()
    expect(holderBehind(index, ["hq-1", "hq-2"], undefined)).toEqual({ holder: "hq-1", behind: false })
    expect(
      holderBehind(
        index,
        ["hq-2"],
        runningList({ digest: c.digest, outcome: "applied" }, { digest: c.digest, busUsersDigest: c.busUsersDigest }),
      ),
    ).toEqual({ holder: "hq-1", behind: false })
    // sent it, but it refused: it does not run it
    expect(
      holderBehind(
        index,
        ["hq-2"],
        runningList({ digest: c.digest, outcome: "refused" }, { digest: c.digest, busUsersDigest: c.busUsersDigest }),
      ),
    ).toEqual({ holder: "hq-1", behind: true })
  })

  it("within one push, a holder this push already sent the list composed now is not sent again for not having answered yet; sent another list, it is", () => {
    const { index, c } = busHolderMesh()
    // no report yet: not known to run it, so behind, unless this push has just sent it that very list
    expect(holderBehind(index, ["hq-2"], runningList(undefined, undefined))).toEqual({ holder: "hq-1", behind: true })
    expect(holderBehind(index, ["hq-2"], c.busUsersDigest)).toEqual({
      holder: "hq-1",
      behind: false,
    })
    expect(holderBehind(index, ["hq-2"], digestOf("an older list"))).toEqual({
      holder: "hq-1",
      behind: true,
    })
  })
})

describe("push --behind during an open plan (issue 259)", () => {
  it("a machine behind only because a plan's build waits for its gate is not asked; composed as registered, it would have been", async () => {
    const before = lettaMesh("letta-204")
    const now: MeshRecords = { ...before, modules: [{ name: "letta", build: "letta-205" }] }
    const sent = new Map<string, Sent>()
    for (const n of before.nodes) {
      const c = compose(indexRecords(before), n, 1)
      if (c.ok) sent.set(n, { digest: c.digest, sequence: 1 })
    }
    const plan = lettaPlan({
      machines: ["hq-3"],
      rest: ["hq-4"],
      sent: ["hq-3"],
    })
    const h = heldMachines([plan], now, now.nodes, { kind: "behind" })
    expect(behindSelection(indexFor(now, viewsOf(h)), now.nodes, new Map(), sent, 0).asked).toEqual(["hq-3"])
    expect(behindSelection(indexRecords(now), now.nodes, new Map(), sent, 0).asked).toEqual(["hq-3", "hq-4"])
  })
})

describe("what a push says of them, word for word", () => {
  it("each capability a module lacks, once per machine; the flush and the machines a plan leaves", () => {
    expect(
      reportUnhostable("hq-2", [
        { module: "letta", missing: ["gpu", "zfs"] },
        { module: "grafana", missing: ["tpm"] },
      ]),
    ).toEqual([
      "hq-2 not applied — letta needs gpu, and hq-2 has no detector for it: it is on the wrong machine — assign it to a machine that has gpu; until then the rest of hq-2 converges",
      "hq-2 not applied — letta needs zfs, and hq-2 has no detector for it: it is on the wrong machine — assign it to a machine that has zfs; until then the rest of hq-2 converges",
      "hq-2 not applied — grafana needs tpm, and hq-2 has no detector for it: it is on the wrong machine — assign it to a machine that has tpm; until then the rest of hq-2 converges",
    ])
    const records: MeshRecords = {
      mesh: "hq",
      nodes,
      modules: [
        { name: "letta", build: "letta-1", needs: ["gpu"] },
        { name: "outline", build: "outline-1" },
      ],
      assignments: [
        { module: "letta", node: "hq-1" },
        { module: "letta", node: "hq-2" },
        { module: "outline", node: "hq-1" },
      ],
    }
    expect([
      ...unhostableOn(
        records,
        ["hq-1", "hq-2", "hq-3"],
        new Map([
          ["hq-1", new Set(["zfs"])],
          ["hq-2", new Set(["gpu"])],
        ]),
      ),
    ]).toEqual([["hq-1", [{ module: "letta", missing: ["gpu"] }]]])
    // An assignment of a module the records do not have asks nothing of the machine.
    expect(
      unhostableOn(
        { ...records, assignments: [{ module: "gone", node: "hq-1" }] },
        ["hq-1"],
        new Map([["hq-1", new Set<string>()]]),
      ).size,
    ).toBe(0)
    const index = indexRecords(records)
    const f = flushBehind(
      () => index,
      ["hq-1", "hq-2", "hq-3"],
      new Map(),
      new Set(),
      new Map([["hq-2", "held by plan letta-2, gate judging on hq-1"]]),
      1,
    )
    expect(f).toEqual({
      flush: ["hq-1", "hq-3"],
      said: [
        "hq-2 is behind as a consequence of this push and is not flushed: held by plan letta-2, gate judging on hq-1",
        "flushing 2 machine(s) behind as a consequence of this push: hq-1, hq-3",
      ],
      handled: ["hq-2", "hq-1", "hq-3"],
    })
    // After the last round: nothing more is flushed, what is still behind is said; nothing behind, nothing said.
    const last = flushBehind(() => index, ["hq-1", "hq-3"], new Map(), new Set(), new Map(), flushRounds)
    expect(last).toEqual({
      flush: [],
      said: ["still behind after 3 rounds of flushing: hq-1, hq-3 — `push --behind` sends them"],
      handled: [],
    })
    const none = flushBehind(() => index, [], new Map(), new Set(), new Map(), flushRounds)
    expect(none).toEqual({ flush: [], said: [], handled: [] })
  })
})
