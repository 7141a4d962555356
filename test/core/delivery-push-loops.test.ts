// The loops of a push (core/src/delivery/push.ts) driven in memory over a mesh that remembers what
// it was sent: `push --behind` sends only the machines not running what the mesh would send them
// (seed 002's pushBehind), the flush after a named push sends the machines now behind because of it
// (issue 057), a named push with `--wait` waits for the machine's own report, a plan's send answers
// the gate which of its machines were told (seed 003), and a replay counts an exchange left unused.
import { describe, expect, it } from "vitest"
import {
  holderListBehind,
  type PlanSend,
  type PushAsk,
  type PushEnd,
  planSendOutcome,
  pushProgram,
  replayPush,
} from "@mesh-core/core/delivery/push"
import type { ReportRecord, SentRecord } from "@mesh-core/core/delivery/questions"
import type { MeshRecords } from "@mesh-core/core/mesh/records"
import type { PlanRecord } from "@mesh-core/core/gate/plan/records"
import { runPure } from "@mesh-core/core/program"
import { appMeshOf, bounded, pushWorld } from "../support/push-world.ts"
import { appPlanOnHq3 } from "../support/plan-records.ts"

const nodes = ["hq-1", "hq-2", "hq-3", "hq-4"]

/**
 * A mesh that keeps what each machine was last sent (a declare is recorded as sent, issue 204), with
 * the reports given, a clock a sleep moves on, and a declare to a machine in `failing` refused by the bus.
 */
const mesh = (start: MeshRecords) => {
  let records = start
  const sent = new Map<string, SentRecord>()
  let reports: ReadonlyArray<ReportRecord> = []
  let reportOf: (node: string, now: number) => ReportRecord | null = () => null
  let now = 0
  let failing = new Set<string>()
  let limit = 1024 * 1024
  let plans: ReadonlyArray<PlanRecord> = []
  let onDeclare: (node: string) => void = () => {}
  const base = pushWorld(start)
  const answer = (q: Parameters<typeof base>[0]): unknown => {
    switch (q.q) {
      case "mesh-records":
        return records
      case "sent":
        return [...sent.values()]
      case "reports":
        return reports
      case "now":
        return now
      case "plans-holding":
        return plans
      case "message-limit":
        return limit
      case "sleep":
        now += q.ms
        return { ok: true }
      case "report-of":
        return reportOf(q.node, now)
      case "declare":
        onDeclare(q.node)
        if (failing.has(q.node)) return { ok: false, error: `bus refused ${q.node}` }
        sent.set(q.node, {
          node: q.node,
          digest: q.digest,
          sequence: q.sequence,
          builds: q.builds,
          ...(q.busUsersDigest === undefined ? {} : { busUsersDigest: q.busUsersDigest }),
        })
        return { ok: true }
      default:
        return base(q)
    }
  }
  const push = (ask: PushAsk) => runPure(pushProgram(ask), bounded(answer))
  return {
    push,
    sent,
    setRecords: (r: MeshRecords) => (records = r),
    setReports: (r: ReadonlyArray<ReportRecord>) => (reports = r),
    setReportOf: (f: typeof reportOf) => (reportOf = f),
    setFailing: (f: ReadonlyArray<string>) => (failing = new Set(f)),
    setLimit: (bytes: number) => (limit = bytes),
    setPlans: (p: ReadonlyArray<PlanRecord>) => (plans = p),
    setOnDeclare: (f: typeof onDeclare) => (onDeclare = f),
  }
}

const sweep: PushAsk = { node: undefined, behind: false, wait: 0 }
const behind: PushAsk = { ...sweep, behind: true }
const resultOf = (end: PushEnd | undefined) => {
  if (end === undefined || !("result" in end)) throw new Error(`no result: ${JSON.stringify(end)}`)
  return end.result
}
const toldOf = (end: PushEnd | undefined) => resultOf(end).told.map((t) => t.node)
const declaresOf = (ran: ReturnType<ReturnType<typeof mesh>["push"]>) =>
  ran.exchanges.flatMap((e) => (e.question.q === "declare" ? [e.question.node] : []))

describe("push --behind (seed 002's pushBehind)", () => {
  it("on a mesh never sent anything, sends every machine", () => {
    const m = mesh(appMeshOf("a1"))
    const ran = m.push(behind)
    expect(toldOf(ran.result).sort()).toEqual(nodes)
    expect(resultOf(ran.result).error).toBeUndefined()
  })

  it("right after a push, sends nothing and says every machine is doing what it was told", () => {
    const m = mesh(appMeshOf("a1"))
    m.push(sweep)
    const ran = m.push(behind)
    expect(ran.result).toEqual({ result: { told: [], refusals: [], error: undefined, held: [], flushed: [] } })
    expect(ran.said).toContain("every machine is doing what it was told")
    expect(declaresOf(ran)).toEqual([])
  })

  it("sends the machines whose declaration a new build changes, and leaves alone one whose declaration it does not", () => {
    const m = mesh(appMeshOf("a1"))
    m.push(sweep)
    m.setRecords(appMeshOf("a2"))
    const ran = m.push(behind)
    const told = toldOf(ran.result)
    expect(told).toEqual(expect.arrayContaining(["hq-3", "hq-4"]))
    expect(told).not.toContain("hq-2")
    expect(declaresOf(ran)).not.toContain("hq-2")
    expect(m.sent.get("hq-3")?.builds?.app).toBe("a2")
  })

  it("sends again a machine that refused what it was sent, though nothing changed", () => {
    const m = mesh(appMeshOf("a1"))
    m.push(sweep)
    const last = m.sent.get("hq-2")!
    m.setReports([
      {
        node: "hq-2",
        digest: last.digest,
        sequence: last.sequence,
        outcome: "refused",
        refused: "no",
        at: 0,
        failed: [],
      },
    ])
    const told = toldOf(m.push(behind).result)
    // The bus holder goes along first (issue 249); no other machine is behind.
    expect(told).toContain("hq-2")
    expect(told).not.toContain("hq-3")
    expect(told).not.toContain("hq-4")
  })

  it("leaves alone a machine a plan holds until its gate passes, and answers it as held (issue 259)", () => {
    const m = mesh(appMeshOf("a1"))
    m.push(sweep)
    m.setRecords(appMeshOf("a2"))
    m.setPlans([appPlanOnHq3(["hq-4"])])
    const ran = m.push(behind)
    const r = resultOf(ran.result)
    expect(declaresOf(ran)).not.toContain("hq-4")
    expect(r.told.map((t) => t.node)).toContain("hq-3")
    expect(JSON.stringify(r.held)).toContain("hq-4")
    expect(m.sent.get("hq-4")?.builds?.app).toBe("a1")
  })

  it("with --wait for a named machine behind, waits for its report", () => {
    const m = mesh(appMeshOf("a1"))
    m.push(sweep)
    m.setRecords(appMeshOf("a2"))
    m.setReportOf(() => null)
    const ran = m.push({ node: "hq-3", behind: true, wait: 1000 })
    expect(resultOf(ran.result).error).toMatch(/^hq-3 did not report applying what it was sent within/)
  })
})

describe("the flush after a named push (issue 057)", () => {
  it("sends the other machines now behind because of it, once each, and names them as flushed", () => {
    const m = mesh(appMeshOf("a1"))
    m.push(sweep)
    m.setRecords(appMeshOf("a2"))
    const ran = m.push({ node: "hq-3", behind: false, wait: 0 })
    const r = resultOf(ran.result)
    expect(r.error).toBeUndefined()
    expect(r.told.map((t) => t.node)).toEqual(expect.arrayContaining(["hq-3", "hq-4"]))
    expect(r.flushed).toContain("hq-4")
    expect(r.flushed).not.toContain("hq-3")
    const declares = declaresOf(ran)
    expect(declares.filter((n) => n === "hq-4")).toHaveLength(1)
    expect(declares.filter((n) => n === "hq-3")).toHaveLength(1)
    // Everything the flush sent is now what the mesh would send: a push --behind finds nothing.
    expect(toldOf(m.push(behind).result)).toEqual([])
  })

  it("stops at a send that fails, with its error, and tells what was told before it", () => {
    const m = mesh(appMeshOf("a1"))
    m.push(sweep)
    m.setRecords(appMeshOf("a2"))
    m.setFailing(["hq-4"])
    const ran = m.push({ node: "hq-3", behind: false, wait: 0 })
    const r = resultOf(ran.result)
    expect(r.error).toContain("hq-4")
    expect(r.told.map((t) => t.node)).toContain("hq-3")
    expect(r.flushed).not.toContain("hq-4")
    // Not sent again and again: the flush ends at the error.
    expect(declaresOf(ran).filter((n) => n === "hq-4")).toHaveLength(1)
  })

  // A chain: each machine runs a module of its own, and sending one changes the next one's build
  // (as a flushed send may change another machine), so each round finds one more machine behind.
  const chain = (onSend: (node: string) => void = () => {}) => {
    const builds: Record<string, string> = { "hq-3": "a2", "hq-4": "a1", "hq-5": "a1", "hq-6": "a1" }
    const machines = [...nodes, "hq-5", "hq-6"]
    const recordsOf = (): MeshRecords => ({
      mesh: "t",
      nodes: machines,
      modules: [
        ...appMeshOf("a1").modules.filter((x) => x.name !== "app"),
        ...machines.slice(2).map((n) => ({ name: `app-${n}`, build: builds[n]!, publishes: [`${n}.>`] })),
      ],
      assignments: [
        { module: "broker", node: "hq-1" },
        { module: "postgres", node: "hq-2" },
        ...machines.slice(2).map((n) => ({ module: `app-${n}`, node: n })),
      ],
    })
    builds["hq-3"] = "a1"
    const m = mesh(recordsOf())
    m.push(sweep)
    builds["hq-3"] = "a2"
    m.setRecords(recordsOf())
    const next: Record<string, string> = { "hq-3": "hq-4", "hq-4": "hq-5", "hq-5": "hq-6" }
    m.setOnDeclare((node) => {
      onSend(node)
      const n = next[node]
      if (n === undefined || builds[n] === "a2") return
      builds[n] = "a2"
      m.setRecords(recordsOf())
    })
    return m
  }

  it("flushes round after round as sends change other machines, and after three rounds says what is still behind", () => {
    const m = chain()
    const ran = m.push({ node: "hq-3", behind: false, wait: 0 })
    const r = resultOf(ran.result)
    expect(r.error).toBeUndefined()
    expect(r.flushed).toEqual(["hq-4", "hq-5"])
    expect(r.told.map((t) => t.node)).toEqual(expect.arrayContaining(["hq-3", "hq-4", "hq-5"]))
    expect(declaresOf(ran)).not.toContain("hq-6")
    expect(ran.said.some((l) => l.startsWith("still behind after 3 rounds of flushing: hq-6"))).toBe(true)
  })

  it("does not start another round after a send that failed", () => {
    const m = chain()
    m.setFailing(["hq-4"])
    const ran = m.push({ node: "hq-3", behind: false, wait: 0 })
    expect(resultOf(ran.result).error).toContain("hq-4")
    expect(declaresOf(ran)).not.toContain("hq-5")
  })

  it("answers a flushed machine's refusal among the push's refusals", () => {
    // After the named machine is sent, the bus takes no declaration as large as the next one (issue 28).
    const m = chain((node) => {
      if (node === "hq-3") m.setLimit(10)
    })
    const r = resultOf(m.push({ node: "hq-3", behind: false, wait: 0 }).result)
    expect(JSON.stringify(r.refusals)).toContain("hq-4")
  })

  it("a sweep push flushes nothing", () => {
    const m = mesh(appMeshOf("a1"))
    m.push(sweep)
    m.setRecords(appMeshOf("a2"))
    expect(resultOf(m.push(sweep).result).flushed ?? []).toEqual([])
  })
})

describe("a named push's --wait", () => {
  const digestTold = (end: PushEnd | undefined, node: string) => resultOf(end).told.find((t) => t.node === node)!.digest
  const report = (node: string, digest: string, outcome: ReportRecord["outcome"], extra = {}): ReportRecord => ({
    node,
    digest,
    sequence: 1,
    outcome,
    at: 0,
    failed: [],
    ...extra,
  })

  it("ends when the machine reports applying exactly what it was sent, and says so", () => {
    const m = mesh(appMeshOf("a1"))
    const first = m.push({ node: "hq-3", behind: false, wait: 0 })
    const digest = digestTold(first.result, "hq-3")
    m.setRecords(appMeshOf("a1"))
    // The same records compose the same bytes under a new sequence: answer with whatever was sent last.
    m.setReportOf((node, now) => (now >= 500 ? report(node, m.sent.get(node)!.digest, "applied") : null))
    const ran = m.push({ node: "hq-3", behind: false, wait: 5000 })
    expect(resultOf(ran.result).error).toBeUndefined()
    expect(ran.said).toContain("hq-3 applied it")
    expect(digest).not.toBe("")
    // It waited: it slept until the report came, and asked for it more than once.
    expect(ran.exchanges.filter((e) => e.question.q === "report-of").length).toBeGreaterThan(1)
  })

  it("ends at once with the machine's own refusal of what it was sent", () => {
    const m = mesh(appMeshOf("a1"))
    m.setReportOf((node) => report(node, m.sent.get(node)!.digest, "refused", { refused: "disk full" }))
    const ran = m.push({ node: "hq-3", behind: false, wait: 5000 })
    expect(resultOf(ran.result).error).toBe("hq-3 refused what it was sent: disk full")
    expect(ran.exchanges.filter((e) => e.question.q === "sleep")).toHaveLength(0)
  })

  it("does not take a report of another declaration for this one, and gives up after the time asked", () => {
    const m = mesh(appMeshOf("a1"))
    m.setReportOf((node) => report(node, "an older digest", "applied"))
    const ran = m.push({ node: "hq-3", behind: false, wait: 1000 })
    expect(resultOf(ran.result).error).toMatch(/^hq-3 did not report applying what it was sent within/)
    const slept = ran.exchanges.filter((e) => e.question.q === "sleep").length
    expect(slept * 250).toBeGreaterThanOrEqual(1000)
    expect(slept * 250).toBeLessThanOrEqual(1500)
  })

  it("is not asked of a push that names no machine, nor of one told with no time to wait", () => {
    for (const ask of [
      { ...sweep, wait: 1000 },
      { node: "hq-3", behind: false, wait: 0 },
    ]) {
      const m = mesh(appMeshOf("a1"))
      m.setReportOf(() => {
        throw new Error("asked for a report")
      })
      expect(resultOf(m.push(ask).result).error).toBeUndefined()
    }
  })

  it("does not wait after a send that failed: the failure is the answer", () => {
    const m = mesh(appMeshOf("a1"))
    m.setFailing(["hq-3"])
    m.setReportOf(() => {
      throw new Error("asked for a report")
    })
    expect(resultOf(m.push({ node: "hq-3", behind: false, wait: 1000 }).result).error).toContain("hq-3")
  })
})

describe("what a plan's send answers the gate (seed 003)", () => {
  const s: PlanSend = { plan: "app-2", why: "tier", machines: ["hq-3", "hq-4"], module: "app" }
  const told = (node: string, builds: Record<string, string>) => ({
    node,
    sequence: 1,
    digest: `d-${node}`,
    resources: 1,
    builds,
  })
  const end = (t: ReadonlyArray<ReturnType<typeof told>>, error?: string): PushEnd => ({
    result: { told: t, refusals: [], error, held: [], flushed: [] },
  })

  it("names only its own machines as told, in the order it asked them", () => {
    const out = planSendOutcome(
      s,
      end([told("hq-1", { broker: "b1" }), told("hq-4", { app: "a2" }), told("hq-3", { app: "a2" })]),
    )
    expect(out).toEqual({ told: ["hq-3", "hq-4"] })
  })

  it("is an error when a machine it asked was not told, though the push itself had none", () => {
    const out = planSendOutcome(s, end([told("hq-3", { app: "a2" }), told("hq-1", { app: "a2" })]))
    expect(out).toEqual({ told: ["hq-3"], error: "not every machine was told" })
  })

  it("names each other module whose build a machine told now carries, with the build before only when it was known", () => {
    const t = { ...told("hq-3", { app: "a2", web: "w2", cache: "c1" }), before: { app: "a1", cache: "c0" } }
    const out = planSendOutcome({ ...s, machines: ["hq-3"] }, end([t]))
    expect(out).toStrictEqual({
      told: ["hq-3"],
      carried: [
        { node: "hq-3", module: "web", build: "w2" },
        { node: "hq-3", module: "cache", build: "c1", before: "c0" },
      ],
    })
  })

  it("keeps the push's own error", () => {
    expect(planSendOutcome(s, end([told("hq-3", { app: "a2" })], "bus down"))).toEqual({
      told: ["hq-3"],
      error: "bus down",
    })
    expect(planSendOutcome(s, end([told("hq-3", { app: "a2" }), told("hq-4", { app: "a2" })], "bus down"))).toEqual({
      told: ["hq-3", "hq-4"],
      error: "bus down",
    })
    expect(planSendOutcome(s, { refused: "no records" })).toEqual({ told: [], error: "no records" })
  })
})

describe("a push replayed from its exchanges", () => {
  it("counts each recorded exchange the replay never reached as differing", () => {
    const m = mesh(appMeshOf("a1"))
    const ask: PushAsk = { node: "hq-3", behind: false, wait: 0 }
    const ran = m.push(ask)
    const exchanges = ran.exchanges.map(
      (e) => JSON.parse(JSON.stringify({ q: e.question, a: e.answer })) as { q: { q: string }; a: unknown },
    )
    expect(replayPush(ask, exchanges).differed).toBe(0)
    const extra = [...exchanges, { q: { q: "now" }, a: 0 }, { q: { q: "sent" }, a: [] }]
    expect(replayPush(ask, extra).differed).toBe(2)
  })

  it("ends at a question the recording cannot answer, having said nothing, counted once", () => {
    const out = replayPush(sweep, [])
    expect(out.end).toBeUndefined()
    expect(out.said).toStrictEqual([])
    expect(out.differed).toBe(1)
  })

  it("does not take a recording whose answer is not what the question asks for as a difference: it fails", () => {
    expect(() =>
      replayPush({ ...sweep, node: "hq-3" }, [
        { q: { q: "mesh-records" }, a: appMeshOf("a1") },
        { q: { q: "machines" }, a: 7 },
      ]),
    ).toThrow()
  })

  it("takes an act recorded with its fields in another order as the same act; a question that is not an act never differs", () => {
    const m = mesh(appMeshOf("a1"))
    const ask: PushAsk = { node: "hq-3", behind: false, wait: 1000 }
    m.setReportOf((node) => ({
      node,
      digest: m.sent.get(node)!.digest,
      sequence: 1,
      outcome: "applied",
      at: 0,
      failed: [],
    }))
    const ran = m.push(ask)
    const exchanges = ran.exchanges.map((e) => {
      const q: Record<string, unknown> = JSON.parse(JSON.stringify(e.question))
      // Fields reversed: the same question, spelled in another order (as a log read back may hold it).
      const reversed = Object.fromEntries(Object.entries(q).reverse()) as { q: string }
      // A question asked of another machine than recorded is answered all the same: only acts are compared.
      const asked = reversed.q === "report-of" ? { ...reversed, node: "hq-9" } : reversed
      return { q: asked, a: JSON.parse(JSON.stringify(e.answer ?? null)) as unknown }
    })
    expect(exchanges.some((e) => e.q.q === "declare")).toBe(true)
    expect(exchanges.some((e) => e.q.q === "report-of")).toBe(true)
    expect(replayPush(ask, exchanges).differed).toBe(0)
  })
})

describe("the gate's holder-list: whether the bus holder runs the user list composed now (seed 004's listBehind)", () => {
  const applied = (m: ReturnType<typeof mesh>, node: string): Map<string, ReportRecord> => {
    const last = m.sent.get(node)!
    return new Map([
      [node, { node, digest: last.digest, sequence: last.sequence, outcome: "applied", at: 0, failed: [] }],
    ])
  }

  it("is not behind once the holder reports applying the declaration that carried the list", () => {
    const m = mesh(appMeshOf("a1"))
    m.push(sweep)
    expect(holderListBehind(appMeshOf("a1"), "hq-1", [], m.sent, applied(m, "hq-1"))).toBe(false)
  })

  it("is behind while the holder has not reported applying it, or when the records give it another list", () => {
    const m = mesh(appMeshOf("a1"))
    m.push(sweep)
    expect(holderListBehind(appMeshOf("a1"), "hq-1", [], m.sent, new Map())).toBe(true)
    const more: MeshRecords = {
      ...appMeshOf("a1"),
      modules: [...appMeshOf("a1").modules, { name: "web", build: "w1", publishes: ["web.>"] }],
      assignments: [...appMeshOf("a1").assignments, { module: "web", node: "hq-4" }],
    }
    expect(holderListBehind(more, "hq-1", [], m.sent, applied(m, "hq-1"))).toBe(true)
  })
})
