// The controller's log is one namespace (core/src/controller/catalogue.ts, issues 25, 39): each
// program family's catalogue holds only the questions its programs ask, a kind two families share is
// the one entry they both name, and its entry's question is recorded under its own kind. The kinds no
// program asks any more (open-plans, send, kept-standings) are gone: a log recorded before that holds
// one is refused at its line, naming the kind.
import { describe, expect, it } from "vitest"
import { answerLine } from "@mesh-core/core/controller/log"
import { catalogues, controllerQuestions, kinds } from "@mesh-core/core/controller/catalogue"
import { replayControllerLog } from "../support/replay-controller.ts"

const T0 = Date.parse("2026-12-03T08:00:00Z")
const iso = (s: number) => new Date(T0 + s * 1_000).toISOString()
const header = JSON.stringify({
  format: "mesh-core.facts",
  version: 1,
  area: "controller",
  settings: { gate: { settle: "2s", bound: "10s", every: "1s", passes: 2 } },
})
const tick = (s: number) => JSON.stringify({ at: iso(s), fact: "tick" })

describe("the controller's catalogues", () => {
  it("name each kind with one entry: a kind two catalogues name is the very entry they share, and the joined catalogue is every catalogue's together", () => {
    const entries = new Map<string, unknown>()
    const named = new Map<string, Array<string>>()
    for (const [family, catalogue] of Object.entries(catalogues)) {
      for (const [kind, e] of Object.entries(catalogue)) {
        if (entries.has(kind)) expect(e, `${kind} in ${family}`).toBe(entries.get(kind))
        else entries.set(kind, e)
        named.set(kind, [...(named.get(kind) ?? []), family])
      }
    }
    expect([...entries.keys()].sort()).toEqual([...kinds].sort())
    expect(Object.keys(controllerQuestions).sort()).toEqual([...kinds].sort())
    // Shared, not copied: a plan saved by the tick, a verb and the release; a condition raised by the tick and a statement.
    expect(named.get("save-plan")).toEqual(["tick", "verbs", "release"])
    expect(named.get("raise-condition")).toEqual(["tick", "verbs", "statements"])
    expect(named.get("set-aside")).toEqual(["statements", "witnesses", "standings"])
  })

  it("give each family only what its programs ask: no send by a follower, no judging's facts by a verb or the release", () => {
    for (const family of ["statements", "witnesses"] as const) {
      expect(Object.keys(catalogues[family]), family).not.toContain("send-plan")
      expect(Object.keys(catalogues[family]), family).not.toContain("save-plan")
    }
    for (const family of ["verbs", "release"] as const) {
      expect(Object.keys(catalogues[family]), family).not.toContain("gate-facts")
    }
    expect(Object.keys(catalogues.tick)).not.toContain("lease-holder")
    expect(Object.keys(catalogues.release).sort()).toEqual(
      [
        "mesh-records-read",
        "now",
        "plans-in-flight",
        "record-build",
        "save-plan",
        "send-plan",
        "set-build",
        "verdict-of",
      ].sort(),
    )
  })

  it("record each question under its own kind: the entry's question Schema's `q` is the kind it is filed under", () => {
    for (const kind of kinds) {
      const e = controllerQuestions[kind as keyof typeof controllerQuestions]
      expect(e, kind).toBeDefined()
      const fields = (e.question as unknown as { readonly fields: { readonly q: { readonly literal: unknown } } })
        .fields
      expect(fields.q.literal, kind).toBe(kind)
    }
  })

  it("name no retired kind", () => {
    for (const kind of ["open-plans", "send", "kept-standings"]) expect(kinds, kind).not.toContain(kind)
  })
})

describe("a log recorded before, naming a retired kind", () => {
  const line = (q: Record<string, unknown>, a: unknown) => JSON.stringify({ at: iso(0), fact: "answer", q, a })
  const retired = [
    line({ q: "open-plans" }, { ok: true, value: [] }),
    line({ q: "send", machines: ["hq-4"], why: "rest", module: "letta" }, { told: ["hq-4"] }),
    line({ q: "kept-standings", keys: [{ provider: "vault", providerNode: "hq-1", consumer: "letta" }] }, []),
  ]

  it("is refused at the line that holds it, naming the kind", () => {
    for (const [i, answer] of retired.entries()) {
      const r = replayControllerLog([header, tick(0), answerLine(iso(0), { q: "now" }, 1), answer])
      expect(r.ok, answer).toBe(false)
      if (!r.ok) {
        expect(r.bad.line).toBe(4)
        expect(r.bad.field).toBe("q.q")
        expect(r.bad.problem).toContain(JSON.stringify(["open-plans", "send", "kept-standings"][i]))
      }
    }
  })

  it("the same log without it is read", () => {
    const r = replayControllerLog([header, tick(0), answerLine(iso(0), { q: "now" }, 1)])
    expect(r.ok).toBe(true)
  })
})
