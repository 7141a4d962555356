// A push is a program of the delivery area (core/src/delivery/push.ts, issue 25): it asks its
// catalogue's questions, sends in the order issue 249 asks, and a recording of its exchanges
// replays to the same sends; a composition that changed is counted as differing, in a push's own
// replay and in a controller's day whose send-plan answers carry the push's exchanges.
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { canonicalJson } from "@mesh-core/core/json"
import { runPure } from "@mesh-core/core/program"
import {
  declaredByHand,
  type PlanSend,
  planSendAsk,
  type PushAsk,
  pushProgram,
  replayPush,
} from "@mesh-core/core/delivery/push"
import { pushQuestions } from "@mesh-core/core/delivery/questions"
import type { MeshRecords } from "@mesh-core/core/mesh/records"
import type { PlanRecord } from "@mesh-core/core/gate/plan/records"
import { replayControllerLog } from "../support/replay-controller.ts"
import { pushWorld } from "../support/push-world.ts"
import { appPlanOnHq3 } from "../support/plan-records.ts"

const meshOf = (nodes: ReadonlyArray<string>, appBuild = "a1", app = "app"): MeshRecords => ({
  mesh: "t",
  nodes: [...nodes],
  modules: [
    { name: "broker", build: "b1", busUsers: true, claims: ["bus"], subscribes: ["mesh.>"] },
    { name: "postgres", build: "p1", receives: ["postgres"], states: ["roles"] },
    { name: app, build: appBuild, requires: ["postgres"], publishes: ["app.>"] },
  ],
  assignments: [
    { module: "broker", node: nodes[0]! },
    { module: "postgres", node: nodes[1]! },
    ...nodes.slice(2).map((node) => ({ module: app, node })),
  ],
})

const recordPush = (ask: PushAsk, records: MeshRecords) => {
  const ran = runPure(pushProgram(ask), pushWorld(records))
  return {
    ran,
    exchanges: ran.exchanges.map(
      (e) => JSON.parse(JSON.stringify({ q: e.question, a: e.answer })) as { q: { q: string }; a: unknown },
    ),
  }
}

const sweep: PushAsk = { node: undefined, behind: false, wait: 0 }
const nodes = ["hq-1", "hq-2", "hq-3", "hq-4"]

describe("a push as a program (issue 25)", () => {
  it("sends the machine holding the bus first, then the grants, then every other declaration (issue 249)", () => {
    const { ran } = recordPush(sweep, meshOf(nodes))
    const acts = ran.exchanges.map((e) => e.question).filter((q) => q.q === "declare" || q.q === "grant")
    expect(acts.map((q) => (q.q === "declare" ? q.node : "grant"))).toEqual(["hq-1", "grant", "hq-2", "hq-3", "hq-4"])
    expect(ran.result).toMatchObject({ result: { error: undefined, refusals: [] } })
    expect(ran.said.slice(-2)).toEqual(["", "4 node(s) told"])
    // Held before numbering, numbered before composing, let go after the last send (ADR 0100, issue 204).
    const kinds = ran.exchanges.map((e) => e.question.q)
    expect(kinds.indexOf("hold")).toBeLessThan(kinds.indexOf("allot"))
    expect(kinds.lastIndexOf("allot")).toBeLessThan(kinds.indexOf("declare"))
    expect(kinds.at(-1)).toBe("release")
  })

  it("is refused before holding anything when the mesh has no records, or the machine named is not in them", () => {
    expect(runPure(pushProgram(sweep), (q) => (q.q === "mesh-records" ? null : [])).result).toEqual({
      refused: "the mesh has no records yet: give them with mesh-controller mesh apply FILE",
    })
    expect(runPure(pushProgram({ ...sweep, node: "hq-9" }), pushWorld(meshOf(nodes))).result).toEqual({
      refused: "no machine named hq-9 is in the mesh's records",
    })
  })

  it("replays from its recorded exchanges to the same sends, and counts a changed composition as differing", () => {
    const { ran, exchanges } = recordPush(sweep, meshOf(nodes))
    const same = replayPush(sweep, exchanges)
    expect(same.differed).toBe(0)
    expect(same.acts.map(canonicalJson)).toEqual(
      ran.exchanges.filter((e) => pushQuestions[e.question.q].act).map((e) => canonicalJson(e.question)),
    )
    expect(same.end).toEqual(JSON.parse(JSON.stringify(ran.result)))
    expect(same.said).toEqual(ran.said)

    // The records as read changed: the machines running app are composed with another build.
    const changed = exchanges.map((e) => (e.q.q === "mesh-records" ? { ...e, a: meshOf(nodes, "a2") } : e))
    const replayed = replayPush(sweep, changed)
    expect(replayed.differed).toBe(2) // hq-3's and hq-4's declarations
    // A recording that ends early (the sends cut off) differs too.
    expect(replayPush(sweep, exchanges.slice(0, -3)).differed).toBeGreaterThan(0)
  })
})

/** A controller day whose send-plan answers carry the push's exchanges, as serve now records them. */
const withExchanges = (lines: ReadonlyArray<string>, records: (s: PlanSend) => MeshRecords) =>
  lines.map((l) => {
    if (l === "") return l
    const f = JSON.parse(l) as {
      fact?: string
      q?: PlanSend & { q: string }
      a?: { told: ReadonlyArray<string>; error?: string }
    }
    if (f.fact !== "answer" || f.q?.q !== "send-plan") return l
    const { exchanges } = recordPush(planSendAsk(f.q), records(f.q))
    return JSON.stringify({ ...f, a: { ...f.a, exchanges } })
  })

describe("a plan's send in a controller's day, replayed question by question (issue 25)", () => {
  const day = readFileSync(new URL("../../examples/release-day.facts.jsonl", import.meta.url), "utf8").split("\n")
  const meshFor = (s: PlanSend, build = "b") =>
    // The plan's module on the machines it sends, so its send carries it everywhere it tells.
    meshOf(["hq-1", "hq-2", ...s.machines.filter((m) => m !== "hq-1" && m !== "hq-2")], build, s.module)
  // Replayed inside each test, never while the file is collected: a mutation run counts per test what each covers.
  const plainDay = () => {
    const plain = replayControllerLog(day)
    if (!plain.ok) throw new Error("release-day does not replay")
    return plain
  }

  it("a log with the push's exchanges replays to the same decisions as the log without them, nothing differing", () => {
    const lines = withExchanges(day, (s) => meshFor(s))
    expect(lines.filter((l) => l.includes('"exchanges"')).length).toBe(2)
    const r = replayControllerLog(lines)
    if (!r.ok) throw new Error(`${r.bad.line}: ${r.bad.field}: ${r.bad.problem}`)
    expect(r.day.decisions.map(canonicalJson)).toEqual(plainDay().day.decisions.map(canonicalJson))
    expect(r.day.state.counts).toEqual(plainDay().day.state.counts)
    expect(r.day.state.counts.differed).toBe(0)
  })

  it("a send composed otherwise than recorded is counted as differing, once for each send", () => {
    // Recorded with another build of app than the one the replayed push composes from the same answers:
    // the recorded declarations are not the ones composed now.
    const lines = withExchanges(day, (s) => meshFor(s))
    const tampered = lines.map((l) => {
      if (!l.includes('"exchanges"')) return l
      const f = JSON.parse(l) as { a: { exchanges: Array<{ q: { q: string; body?: string }; a: unknown }> } }
      for (const e of f.a.exchanges)
        if (e.q.q === "declare" && e.q.body !== undefined) e.q.body = e.q.body.replace('"build":"b"', '"build":"c"')
      return JSON.stringify(f)
    })
    const r = replayControllerLog(tampered)
    if (!r.ok) throw new Error(`${r.bad.line}: ${r.bad.field}: ${r.bad.problem}`)
    expect(r.day.state.counts.differed).toBe(plainDay().day.state.counts.differed + 2)
    // What is printed stays what the day said: only the count tells.
    expect(r.day.decisions.map(canonicalJson)).toEqual(plainDay().day.decisions.map(canonicalJson))
  })
})

describe("a machine declared by hand (seed 002, novox/hq issue 259; issue 28)", () => {
  // hq-3 was last sent a declaration by hand: recorded with its builds not known.
  const world = (records: MeshRecords) => {
    const base = pushWorld(records)
    return (q: Parameters<typeof base>[0]) =>
      q.q === "sent"
        ? [
            { node: "hq-3", digest: "by-hand", sequence: 7 },
            { node: "hq-4", digest: "composed", sequence: 3, builds: { app: "a1" } },
          ]
        : base(q)
  }
  const declared = (ask: PushAsk) => {
    const ran = runPure(pushProgram(ask), world(meshOf(nodes)))
    return { ran, to: ran.exchanges.flatMap((e) => (e.question.q === "declare" ? [e.question.node] : [])) }
  }

  it("is left as declared by a push that does not name it, and said", () => {
    for (const ask of [sweep, { ...sweep, behind: true }]) {
      const { ran, to } = declared(ask)
      expect(to).not.toContain("hq-3")
      expect(ran.said).toContain(
        "hq-3: left as it was declared by hand (the mesh did not compose what it carries); push hq-3 by name to compose it again",
      )
    }
    // A sweep sends every other machine as before.
    expect(declared(sweep).to).toEqual(["hq-1", "hq-2", "hq-4"])
  })

  it("is composed again by a push that names it, and a named push's flush leaves another alone", () => {
    const { ran, to } = declared({ ...sweep, node: "hq-3" })
    expect(to).toContain("hq-3")
    expect(ran.said.some((l) => l.startsWith("hq-3: left as it was declared by hand"))).toBe(false)
    expect(declaredByHand(["hq-1", "hq-3", "hq-4"], new Map([["hq-3", { digest: "d", sequence: 1 }]]))).toEqual([
      "hq-3",
    ])
  })
})

describe("the bus holder a named push would add, while a plan holds its modules (seed 002; issue 28)", () => {
  // hq-1 holds the bus and runs app; a plan of app's build a2 (registered) has reached hq-3 only, so
  // hq-1 is held at a1.
  const records: MeshRecords = {
    ...meshOf(nodes, "a2"),
    assignments: [...meshOf(nodes).assignments, { module: "app", node: "hq-1" }],
  }
  const plan = appPlanOnHq3(["hq-1", "hq-4"])
  const world = (plans: ReadonlyArray<PlanRecord>) => {
    const base = pushWorld(records)
    return (q: Parameters<typeof base>[0]) => (q.q === "plans-holding" ? plans : base(q))
  }
  /** The machines the push's first delivery declared (the flush after it sends in rounds of its own). */
  const declared = (questions: ReadonlyArray<{ readonly q: string; readonly node?: string }>) => {
    const first = questions.slice(
      0,
      questions.findIndex((q) => q.q === "release"),
    )
    return first.flatMap((q) => (q.q === "declare" && q.node !== undefined ? [q.node] : []))
  }

  it("is left, with the hold and the seed's sentence, in a push that names another machine", () => {
    const ran = runPure(pushProgram({ ...sweep, node: "hq-4" }), world([plan]))
    expect(declared(ran.exchanges.map((e) => e.question))).toEqual(["hq-4"])
    expect(ran.said).toContain(
      "hq-1: app stays at a1, held by plan app-2, gate judging tier 1 on hq-3; it is sent the new build once that gate passes",
    )
    expect(ran.said).toContain(
      "hq-1 holds the bus, and the user list it would carry has changed: until it is sent, the bus may refuse what this push's machines were newly granted",
    )
  })

  it("is added first, as before, when no plan holds it", () => {
    const ran = runPure(pushProgram({ ...sweep, node: "hq-4" }), world([]))
    expect(declared(ran.exchanges.map((e) => e.question))).toEqual(["hq-1", "hq-4"])
    expect(ran.said.some((l) => l.includes("holds the bus, and the user list"))).toBe(false)
  })
})

describe("a declaration over the bus's message limit (issue 28)", () => {
  // The holder's declaration carries the bus's user list, which grows with the mesh: the largest here.
  const many = Array.from({ length: 60 }, (_, i) => `hq-${i + 1}`)
  const records = meshOf(many)
  const world = (limit: number | null) => {
    const base = pushWorld(records)
    return (q: Parameters<typeof base>[0]) => (q.q === "message-limit" ? limit : base(q))
  }
  const holderBytes = (() => {
    const ran = runPure(pushProgram(sweep), world(null))
    const body = ran.exchanges.flatMap((e) =>
      e.question.q === "declare" && e.question.node === "hq-1" ? [e.question.body] : [],
    )[0]!
    return Buffer.byteLength(JSON.stringify({ body, signature: "x".repeat(88), key: "x".repeat(64) }))
  })()

  it("is refused before its number is taken, naming both sizes; every other machine is sent", () => {
    const ran = runPure(pushProgram(sweep), world(holderBytes - 1))
    const allotted = ran.exchanges.flatMap((e) => (e.question.q === "allot" ? [e.question.node] : []))
    const declared = ran.exchanges.flatMap((e) => (e.question.q === "declare" ? [e.question.node] : []))
    expect(allotted).not.toContain("hq-1")
    expect(declared).not.toContain("hq-1")
    expect(declared).toHaveLength(59)
    // The bound is the largest sequence's: the real envelope is a little smaller, never larger.
    const said = ran.said.find((l) => l.startsWith("hq-1's declaration would be"))
    expect(said).toMatch(
      new RegExp(
        `^hq-1's declaration would be (\\d+) bytes on the bus, over the ${holderBytes - 1} bytes it takes in one message \\(its max_payload\\): nothing was sent and no sequence number was taken$`,
      ),
    )
    expect(Number(/would be (\d+)/.exec(said!)![1])).toBeGreaterThanOrEqual(holderBytes)
    expect(ran.result).toMatchObject({ result: { error: expect.stringContaining("1 node(s) could not be resolved") } })
  })

  it("one that fits is sent; a limit not known measures nothing, as a day recorded before it was asked", () => {
    const fits = runPure(pushProgram(sweep), world(holderBytes + 64))
    expect(fits.exchanges.filter((e) => e.question.q === "declare")).toHaveLength(60)
    const { ran, exchanges } = recordPush(sweep, records)
    const before = exchanges.filter((e) => e.q.q !== "message-limit")
    const replayed = replayPush(sweep, before)
    expect(replayed.differed).toBe(0)
    expect(replayed.said).toEqual(ran.said)
  })
})
