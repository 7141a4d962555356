// One delivery of a push (core/src/delivery/deliver.ts), stated in the seeds' own words (seed 002's
// deliver, issueMemberships, reportUnhostable, reportUnheldPushed, couldNotBeResolved and sendTo;
// seed 004's listBehind) and against models read from the records: what each machine is sent and
// said to be sent, what the grants issue, what a machine that cannot be numbered costs, what the
// machines detect, which list the bus holder is judged by, and what is said after the sends.
import { describe, expect, it } from "vitest"
import type { MeshRecords } from "@mesh-core/core/mesh/records"
import { type PushAsk, type PushEnd, pushProgram } from "@mesh-core/core/delivery/push"
import type { PushQuestions, ReportRecord, SentRecord } from "@mesh-core/core/delivery/questions"
import { type QuestionOf, runPure } from "@mesh-core/core/program"
import { appMeshOf, bounded, pushWorld } from "../support/push-world.ts"
import { appPlanOnHq3 } from "../support/plan-records.ts"

type Q = QuestionOf<PushQuestions>

const nodes = ["hq-1", "hq-2", "hq-3", "hq-4"]

/** pushWorld over these records, with some questions answered otherwise. */
const world = (
  records: MeshRecords,
  answers: { readonly [K in Q["q"]]?: (q: Extract<Q, { q: K }>) => unknown } = {},
) => {
  const base = pushWorld(records)
  return bounded((q: Q): unknown => {
    const answer = answers[q.q] as ((q: Q) => unknown) | undefined
    return answer === undefined ? base(q) : answer(q)
  })
}

const sweep: PushAsk = { node: undefined, behind: false, wait: 0 }
const resultOf = (end: PushEnd | undefined) => {
  if (end === undefined || !("result" in end)) throw new Error(`no result: ${JSON.stringify(end)}`)
  return end.result
}
const declares = (ran: { readonly exchanges: ReadonlyArray<{ readonly question: Q }> }) =>
  ran.exchanges.flatMap((e) => (e.question.q === "declare" ? [e.question] : []))
const acts = (ran: { readonly exchanges: ReadonlyArray<{ readonly question: Q }> }) =>
  ran.exchanges.flatMap((e) =>
    e.question.q === "declare" ? [e.question.node] : e.question.q === "grant" ? ["grant"] : [],
  )
const report = (node: string, digest: string, more: Partial<ReportRecord> = {}): ReportRecord => ({
  node,
  digest,
  sequence: 1,
  outcome: "applied",
  at: 0,
  failed: [],
  ...more,
})
/** The modules assigned to a machine in the records, read straight through. */
const assignedTo = (r: MeshRecords, node: string) => r.assignments.filter((a) => a.node === node).map((a) => a.module)

describe("what one delivery sends and says (seed 002's deliver and issueMemberships)", () => {
  it("says each machine sent with one resource per module assigned to it, and the grants with one membership per module on every machine sent, once, after the holder and before the rest (issue 249)", () => {
    const records = appMeshOf("a1", { assignments: [{ module: "postgres", node: "hq-3" }] })
    const ran = runPure(pushProgram(sweep), world(records))
    const sent = declares(ran)
    expect(sent.map((q) => q.node)).toEqual(nodes)
    for (const q of sent) {
      const modules = assignedTo(records, q.node)
      expect((JSON.parse(q.body) as { resources: ReadonlyArray<unknown> }).resources).toHaveLength(modules.length)
      expect(ran.said.filter((l) => l.startsWith(`sent ${q.node} `))).toEqual([
        `sent ${q.node} ${modules.length} resource(s)`,
      ])
    }
    // issueMemberships: one membership for each module assigned to each machine sent.
    const grant = ran.exchanges.flatMap((e) => (e.question.q === "grant" ? [e.question] : []))
    expect(grant).toHaveLength(1)
    expect(grant[0]!.memberships.map((m) => `${m.node}.${m.module}`).sort()).toEqual(
      records.assignments.map((a) => `${a.node}.${a.module}`).sort(),
    )
    const issued = ran.said.filter((l) => l.includes("membership(s)"))
    expect(issued).toEqual([`  issued ${records.assignments.length} membership(s)`])
    const at = (line: string) => ran.said.indexOf(line)
    expect(at(issued[0]!)).toBeGreaterThan(at("sent hq-1 1 resource(s)"))
    expect(at(issued[0]!)).toBeLessThan(at("sent hq-2 1 resource(s)"))
  })

  it("says nothing issued when the grants fail, and nothing sent of a declaration the bus refused", () => {
    const refusedGrant = runPure(
      pushProgram(sweep),
      world(appMeshOf(), { grant: () => ({ ok: false, error: "the bus is away" }) }),
    )
    expect(acts(refusedGrant)).toEqual(["hq-1", "grant"])
    expect(refusedGrant.said.filter((l) => l.includes("membership(s)") || l.startsWith("sent "))).toEqual([
      "sent hq-1 1 resource(s)",
    ])
    const refusedDeclare = runPure(
      pushProgram(sweep),
      world(appMeshOf(), {
        declare: (q) => (q.node === "hq-3" ? { ok: false, error: "bus refused hq-3" } : { ok: true }),
      }),
    )
    expect(acts(refusedDeclare)).toEqual(["hq-1", "grant", "hq-2", "hq-3"])
    expect(refusedDeclare.said.filter((l) => l.startsWith("sent "))).toEqual([
      "sent hq-1 1 resource(s)",
      "sent hq-2 1 resource(s)",
    ])
    expect(resultOf(refusedDeclare.result)).toMatchObject({ error: "bus refused hq-3" })
  })

  it("tells each machine sent with the builds it carries and, when known, the builds it was last sent (seed 003's carried)", () => {
    const sent: ReadonlyArray<SentRecord> = [
      { node: "hq-3", digest: "d3", sequence: 4, builds: { app: "a0" } },
      { node: "hq-2", digest: "d2", sequence: 2, builds: { postgres: "p0" } },
    ]
    const told = resultOf(runPure(pushProgram(sweep), world(appMeshOf("a1"), { sent: () => sent })).result).told
    const byNode = new Map(told.map((t) => [t.node, t]))
    expect(byNode.get("hq-3")).toMatchObject({ builds: { app: "a1" }, before: { app: "a0" } })
    expect(byNode.get("hq-2")).toMatchObject({ builds: { postgres: "p1" }, before: { postgres: "p0" } })
    // Never sent before: nothing is known it carried.
    for (const n of ["hq-1", "hq-4"]) expect("before" in byNode.get(n)!).toBe(false)
    expect(byNode.get("hq-4")!.builds).toEqual({ app: "a1" })
  })

  it("composes from the records read once the machines are held, not from those read before (ADR 0100)", () => {
    let reads = 0
    const ran = runPure(
      pushProgram(sweep),
      world(appMeshOf("a1"), { "mesh-records": () => (++reads === 1 ? appMeshOf("a1") : appMeshOf("a2")) }),
    )
    const kinds = ran.exchanges.map((e) => e.question.q)
    expect(kinds.lastIndexOf("mesh-records")).toBeGreaterThan(kinds.indexOf("hold"))
    for (const q of declares(ran).filter((q) => q.node === "hq-3" || q.node === "hq-4"))
      expect(q.builds).toEqual({ app: "a2" })
  })

  it("on a mesh whose bus holder carries no user list, sends nothing first: the grants, then every machine in the order asked", () => {
    const records = appMeshOf()
    const noList: MeshRecords = { ...records, modules: records.modules.map((m) => ({ ...m, busUsers: false })) }
    const ran = runPure(pushProgram({ ...sweep, machines: ["hq-4", "hq-3", "hq-1"] }), world(noList))
    expect(acts(ran)).toEqual(["grant", "hq-4", "hq-3", "hq-1"])
    expect(declares(ran).every((q) => q.busUsersDigest === undefined)).toBe(true)
  })
})

describe("a machine that cannot be numbered (seed 002's composeEach and sendTo)", () => {
  const noNumberFor = (node: string) => {
    let sequence = 0
    return world(appMeshOf(), {
      allot: (q) => (q.node === node ? { error: "the sequence store is away" } : { sequence: ++sequence }),
    })
  }

  it("is refused with the store's words; every other machine is sent, and the push ends saying how many were", () => {
    const ran = runPure(pushProgram(sweep), noNumberFor("hq-3"))
    expect(acts(ran)).toEqual(["hq-1", "grant", "hq-2", "hq-4"])
    expect(resultOf(ran.result)).toMatchObject({
      refusals: ["hq-3:\nthe sequence store is away"],
      error:
        "1 node(s) could not be resolved and were not sent. 3 other node(s) were:\n\nhq-3:\nthe sequence store is away",
    })
  })

  it("in an all-or-nothing send, none is sent, granted or prepared, the hold is let go, and the refusal names it", () => {
    const together: PushAsk = { ...sweep, machines: ["hq-3", "hq-4"], allOrNothing: true }
    const ran = runPure(pushProgram(together), noNumberFor("hq-4"))
    const kinds = ran.exchanges.map((e) => e.question.q)
    expect(kinds.filter((k) => k === "declare" || k === "grant" || k === "prepare")).toEqual([])
    expect(kinds.at(-1)).toBe("release")
    expect(ran.said.some((l) => l.endsWith("node(s) told"))).toBe(false)
    expect(resultOf(ran.result)).toEqual({
      told: [],
      refusals: [],
      error: "nothing was sent. 1 machine(s) could not be resolved:\n\nhq-4:\nthe sequence store is away",
      held: [],
    })
    // Every machine numbered: sent as a push that is not all-or-nothing sends them (the holder, behind, first).
    const fine = runPure(pushProgram(together), world(appMeshOf()))
    expect(acts(fine)).toEqual(["hq-1", "grant", "hq-3", "hq-4"])
    expect(resultOf(fine.result).error).toBeUndefined()
  })
})

describe("the modules a machine cannot host (seed 002's reportUnhostable)", () => {
  const records = appMeshOf("a1", {
    modules: [{ name: "vision", build: "v1", needs: ["gpu"] }],
    assignments: [
      { module: "vision", node: "hq-2" },
      { module: "vision", node: "hq-3" },
      { module: "vision", node: "hq-4" },
    ],
  })

  it("are left out of what it is sent, as its last report says what it detects; a machine that never said keeps every module", () => {
    // hq-3 detects a cpu and no gpu; hq-4 reported without saying what it detects; hq-2 never reported.
    const reports = [report("hq-3", "x", { detects: ["cpu"] }), report("hq-4", "y")]
    const ran = runPure(pushProgram(sweep), world(records, { reports: () => reports }))
    const builds = new Map(declares(ran).map((q) => [q.node, q.builds]))
    expect(builds.get("hq-3")).toEqual({ app: "a1" })
    expect(builds.get("hq-4")).toEqual({ app: "a1", vision: "v1" })
    expect(builds.get("hq-2")).toEqual({ postgres: "p1", vision: "v1" })
    expect(ran.said.filter((l) => l.includes("not applied"))).toEqual([
      "hq-3 not applied — vision needs gpu, and hq-3 has no detector for it: it is on the wrong machine — assign it to a machine that has gpu; until then the rest of hq-3 converges",
    ])
  })
})

describe("whether the bus holder goes first (seed 004's listBehind, issue 249)", () => {
  // The holder runs vision too, which it cannot host: the list it is sent is composed without it.
  const records = appMeshOf("a1", {
    modules: [{ name: "vision", build: "v1", needs: ["gpu"], publishes: ["vision.>"] }],
    assignments: [{ module: "vision", node: "hq-1" }],
  })
  const detects = report("hq-1", "never", { outcome: "failed", detects: ["cpu"] })
  /** What a sweep sent each machine, as the store records it. */
  const swept = () => {
    const ran = runPure(pushProgram(sweep), world(records, { reports: () => [detects] }))
    return declares(ran).map(
      (q): SentRecord => ({
        node: q.node,
        digest: q.digest,
        sequence: q.sequence,
        builds: q.builds,
        ...(q.busUsersDigest === undefined ? {} : { busUsersDigest: q.busUsersDigest }),
      }),
    )
  }
  const namedPush = (reports: ReadonlyArray<ReportRecord>, sent: ReadonlyArray<SentRecord>) =>
    acts(runPure(pushProgram({ ...sweep, node: "hq-3" }), world(records, { reports: () => reports, sent: () => sent })))

  it("is not added once it reports applying the declaration it was last sent, judged by the list composed for it", () => {
    const sent = swept()
    expect(sent.find((s) => s.node === "hq-1")?.builds).toEqual({ broker: "b1" })
    const applied = sent.map((s) => report(s.node, s.digest, s.node === "hq-1" ? { detects: ["cpu"] } : {}))
    expect(namedPush(applied, sent)).toEqual(["grant", "hq-3"])
  })

  it("is added first while it has not reported applying what it was last sent, though that carried the list composed now", () => {
    const sent = swept()
    const notApplied = sent.map((s) =>
      s.node === "hq-1" ? report(s.node, s.digest, { outcome: "failed", detects: ["cpu"] }) : report(s.node, s.digest),
    )
    expect(namedPush(notApplied, sent)).toEqual(["hq-1", "grant", "hq-3"])
  })

  it("is added first, composed with what a plan holds, by a push that names no machine: only a push naming one leaves it (seed 002)", () => {
    // A plan of app a2 has reached hq-3 only; hq-1 runs app too and is held at a1.
    const held = appMeshOf("a2", { assignments: [{ module: "app", node: "hq-1" }] })
    const plan = appPlanOnHq3(["hq-1", "hq-4"])
    const ran = runPure(pushProgram({ ...sweep, machines: ["hq-2"] }), world(held, { "plans-holding": () => [plan] }))
    expect(acts(ran)).toEqual(["hq-1", "grant", "hq-2"])
    expect(declares(ran)[0]!.builds).toEqual({ app: "a1", broker: "b1" })
    expect(ran.said).toContain(
      "hq-1: app stays at a1, held by plan app-2, gate judging tier 1 on hq-3; it is sent the new build once that gate passes",
    )
    expect(ran.said.some((l) => l.includes("holds the bus, and the user list"))).toBe(false)
  })
})

describe("the unmet seat dependencies, said after the sends (seed 002's reportUnheldPushed, ADR 0207)", () => {
  const records = appMeshOf("a1", {
    modules: [{ name: "finder", build: "f1", needsSeats: ["search"] }],
    assignments: [
      { module: "finder", node: "hq-3" },
      { module: "finder", node: "hq-4" },
    ],
  })
  const unmet = "finder needs the search seat, and no module assigned anywhere holds it"
  const afterTold = (said: ReadonlyArray<string>) => said.slice(said.indexOf("4 node(s) told") + 1)

  it("a sweep says one line for each machine lacking something, after it says how many were told, and returns none", () => {
    const ran = runPure(pushProgram(sweep), world(records))
    expect(afterTold(ran.said)).toEqual([
      "hq-3: 1 unmet seat dependenc(ies) — see `status`",
      "hq-4: 1 unmet seat dependenc(ies) — see `status`",
    ])
    expect("unheld" in resultOf(ran.result)).toBe(false)
  })

  it("a push naming a machine says every line for it", () => {
    const ran = runPure(pushProgram({ ...sweep, node: "hq-3" }), world(records))
    const said = ran.said.slice(ran.said.findIndex((l) => l.endsWith("node(s) told")) + 1)
    expect(said.slice(0, 3)).toEqual(["", "hq-3 has 1 unmet seat dependenc(ies) (novox/hq ADR 0207):", `  ${unmet}`])
    expect(ran.said.some((l) => l.startsWith("hq-3: 1 unmet"))).toBe(false)
  })

  it("a push sent by serve says none of them and returns each machine's sent, for serve to say each change once", () => {
    const ran = runPure(pushProgram({ ...sweep, served: true }), world(records))
    expect(afterTold(ran.said)).toEqual([])
    expect(resultOf(ran.result).unheld).toEqual(
      new Map([
        ["hq-1", []],
        ["hq-2", []],
        ["hq-3", [unmet]],
        ["hq-4", [unmet]],
      ]),
    )
  })
})

describe("a delivery of more machines than are drafted and numbered at once (issue 41)", () => {
  // 2,500 machines, none holding the bus: every 7th carries a configuration too large for the limit
  // below, every 11th also runs a module nobody registered. Spread over every thousand machines, so
  // what the whole delivery says and asks is stated here of all of them together, as the seed's
  // deliver takes them (measure all, number all, compose all).
  const names = Array.from({ length: 2_500 }, (_, i) => `m-${String(i).padStart(4, "0")}`)
  const large = (i: number) => i % 7 === 3
  const ghost = (i: number) => i % 11 === 5
  const records: MeshRecords = {
    mesh: "t",
    nodes: names,
    modules: [{ name: "app", build: "a1" }],
    assignments: names.flatMap((node, i) => [
      { module: "app", node, ...(large(i) ? { config: { pad: "x".repeat(2_000) } } : {}) },
      ...(ghost(i) ? [{ module: "ghost", node }] : []),
    ]),
  }
  const limit = 1_500
  const run = (o: PushAsk) => runPure(pushProgram(o), world(records, { "message-limit": () => limit }))
  const over = names.filter((_, i) => large(i) && !ghost(i))
  const unresolved = names.filter((_, i) => ghost(i))

  it("numbers every machine that fits once, in order, refuses the rest, over the limit first, and says each over-limit line before any send", () => {
    const ran = run(sweep)
    const allotted = ran.exchanges.flatMap((e) => (e.question.q === "allot" ? [e.question.node] : []))
    expect(allotted).toEqual(names.filter((n) => !over.includes(n)))
    expect(declares(ran).map((q) => q.node)).toEqual(names.filter((n) => !over.includes(n) && !unresolved.includes(n)))
    const overSaid = ran.said.filter((l) => l.includes("over the"))
    expect(overSaid.map((l) => l.split("'")[0])).toEqual(over)
    const firstSend = ran.said.findIndex((l) => l.startsWith("sent "))
    expect(ran.said.indexOf(overSaid.at(-1)!)).toBeLessThan(firstSend)
    const error = resultOf(ran.result).error!
    const refused = [...error.matchAll(/^(m-\d{4}):$/gm)].map((m) => m[1])
    expect(refused).toEqual([...over, ...unresolved])
    expect(error).toMatch(new RegExp(`^${over.length + unresolved.length} node\\(s\\) could not be resolved`))
  })

  it("all or nothing: two machines that cannot be resolved, in the first thousand and the last, and nothing is sent; every machine was numbered first", () => {
    const fitting = { ...records, assignments: records.assignments.filter((a) => a.config === undefined) }
    const last = names.at(-1)!
    const withGhost = {
      ...fitting,
      assignments: [
        ...fitting.assignments.filter((a) => a.module !== "ghost"),
        { module: "ghost", node: "m-0005" },
        { module: "ghost", node: last },
      ],
    }
    const ran = runPure(
      pushProgram({ ...sweep, machines: names, allOrNothing: true }),
      world(withGhost, { "message-limit": () => limit }),
    )
    expect(declares(ran)).toEqual([])
    expect(ran.exchanges.filter((e) => e.question.q === "allot")).toHaveLength(names.length)
    const end = ran.result
    const error = end !== undefined && "result" in end ? end.result.error : undefined
    expect(error).toMatch(
      /^nothing was sent\. 2 machine\(s\) could not be resolved:\n\nm-0005:\nghost is assigned here.*\n\nm-2499:\nghost is assigned here/,
    )
  })
})
