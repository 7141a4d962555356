// The controller's followers (followers.ts) against a store written as a map: what each message
// comes to (kept, older than kept, set aside), what is written, raised, cleared and said, word
// for word.
import { describe, expect, it } from "vitest"
import { keepWords } from "@mesh-core/core/standings/followers"
import { keepReport } from "@mesh-core/core/delivery/reports"
import { keepStatement } from "@mesh-core/core/gate/messages/statements"
import { type Program, runPure } from "@mesh-core/core/program"
import type { ControllerQuestions, Question } from "@mesh-core/core/controller/catalogue"

const heard = (body: string, seq = 7, stream: string | null = "HEALTH") => ({
  subject: "mesh.health.hq-3",
  event: "mesh.health.hq-3",
  body,
  seq,
  ...(stream === null ? {} : { stream }),
})

// A store as a map: what was last written for a machine is what is read back for it.
const store = () => {
  const reports = new Map<string, unknown>()
  const statements = new Map<string, unknown>()
  const fresh = new Set<number>()
  const run = <R>(p: Program<ControllerQuestions, R>) => {
    const r = runPure(p, (q: Question) => {
      switch (q.q) {
        case "kept-report":
          return reports.get(q.node) ?? null
        case "write-report":
          reports.set(q.report.node, q.report)
          return { ok: true }
        case "kept-statement":
          return statements.get(q.machine) ?? null
        case "write-statement":
          statements.set(q.statement.machine, { statement: q.statement, streaks: q.streaks })
          return { ok: true }
        case "set-aside": {
          const out = q.letters.map((l) => l.streamSequence).filter((s) => !fresh.has(s))
          for (const s of out) fresh.add(s)
          return { fresh: out }
        }
        default:
          return { ok: true }
      }
    })
    return { ...r, asked: r.exchanges.map((e) => e.question) }
  }
  return run
}

describe("a machine's report", () => {
  const report = (sequence: number, at = "2026-12-01T10:00:00Z") =>
    JSON.stringify({ node: "hq-3", digest: "d", sequence, outcome: "applied", at })

  it("kept when newer than the one kept; an older one is not written", () => {
    const run = store()
    expect(run(keepReport(heard(report(3)))).result).toBe("kept")
    const older = run(keepReport(heard(report(2))))
    expect(older.result).toBe("older-than-kept")
    expect(older.asked.map((q) => q.q)).toEqual(["kept-report"])
    expect(run(keepReport(heard(report(4)))).result).toBe("kept")
  })

  it("one that cannot be read is set aside, said once with why, however often it comes", () => {
    const run = store()
    const first = run(keepReport(heard("{", 9, null)))
    expect(first.result).toBe("set-aside")
    expect(first.asked[0]).toMatchObject({
      q: "set-aside",
      letters: [{ kind: "report", stream: "", streamSequence: 9 }],
    })
    expect(first.said).toHaveLength(1)
    expect(
      first.said[0]!.startsWith("[controller] set aside a report on mesh.health.hq-3 (stream  sequence 9): "),
    ).toBe(true)
    const again = run(keepReport(heard("{", 9, null)))
    expect(again.result).toBe("set-aside")
    expect(again.said).toEqual([])
  })
})

describe("a machine's health statement", () => {
  const statement = (at: string, state: string) =>
    JSON.stringify({
      machine: "hq-3",
      at,
      resources: [{ resource: "r", module: "letta", state, ...(state === "unhealthy" ? { reason: "it exits" } : {}) }],
    })

  it("twice unhealthy raises the module's condition; healthy after clears it; an older statement changes nothing", () => {
    const run = store()
    const once = run(keepStatement(heard(statement("2026-12-01T10:00:00Z", "unhealthy"))))
    expect(once.result).toBe("kept")
    expect(once.asked.filter((q) => q.q === "raise-condition")).toEqual([])
    const twice = run(keepStatement(heard(statement("2026-12-01T10:01:00Z", "unhealthy"))))
    expect(twice.result).toBe("kept")
    expect(twice.asked.filter((q) => q.q === "raise-condition")).toEqual([
      {
        q: "raise-condition",
        at: Date.parse("2026-12-01T10:01:00Z"),
        observation: {
          key: "module.letta.hq-3.unhealthy",
          source: "DH",
          scope: "module",
          id: "letta.hq-3",
          machine: "hq-3",
          also: [],
          kind: "unhealthy",
          severity: "warning",
          summary: "letta on hq-3 is stated unhealthy twice in a row: r: it exits",
        },
      },
    ])
    expect(twice.said).toEqual([
      "[controller] raised module.letta.hq-3.unhealthy: letta on hq-3 is stated unhealthy twice in a row: r: it exits",
    ])
    const older = run(keepStatement(heard(statement("2026-12-01T09:00:00Z", "healthy"))))
    expect(older.result).toBe("older-than-kept")
    expect(older.asked.map((q) => q.q)).toEqual(["kept-statement"])
    const healthy = run(keepStatement(heard(statement("2026-12-01T10:02:00Z", "healthy"))))
    expect(healthy.result).toBe("kept")
    expect(healthy.asked.filter((q) => q.q === "clear-condition")).toEqual([
      { q: "clear-condition", key: "module.letta.hq-3.unhealthy", by: "DH" },
    ])
    expect(healthy.said).toEqual(["[controller] cleared module.letta.hq-3.unhealthy"])
  })

  it("one that cannot be read is set aside", () => {
    const r = store()(keepStatement(heard("{", 11)))
    expect(r.result).toBe("set-aside")
    expect(r.asked[0]).toMatchObject({
      q: "set-aside",
      letters: [{ kind: "statement", stream: "HEALTH", streamSequence: 11 }],
    })
  })
})

describe("a batch of providers' words", () => {
  it("nothing to write when no word is kept: no write is asked", () => {
    const r = store()(
      keepWords([
        { subject: "provisioner.failing", event: "provisioner.failing", seq: 1, body: "{", stream: "PROVISIONER" },
      ]),
    )
    expect(r.result).toBe(0)
    expect(r.asked.map((q) => q.q)).toEqual(["set-aside"])
    expect(r.asked[0]).toMatchObject({ letters: [{ stream: "PROVISIONER", streamSequence: 1 }] })
  })

  it("a word heard with no stream is set aside naming none", () => {
    const r = store()(keepWords([{ subject: "provisioner.failing", event: "provisioner.failing", seq: 2, body: "{" }]))
    expect(r.asked[0]).toMatchObject({ letters: [{ stream: "", streamSequence: 2 }] })
  })
})
