// The controller's log is one namespace (core/src/controller/catalogue.ts, issue 25): each kind is
// named by one catalogue only, and its entry's question is recorded under its own kind. The retired
// kinds (open-plans, send, kept-standings) are read from a log recorded before, with the Schemas they
// were recorded with, and met by a replay as answers no program asks.
import { describe, expect, it } from "vitest"
import { answerLine } from "@mesh-core/core/controller/log"
import { actKinds, catalogues, controllerQuestions, kinds, type Question } from "@mesh-core/core/controller/catalogue"
import { replayControllerLog } from "@mesh-core/core/controller/replay"

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
  it("name each kind once: no kind is in two catalogues, and the joined catalogue is every area's together", () => {
    const seen = new Map<string, Array<string>>()
    for (const [area, catalogue] of Object.entries(catalogues)) {
      for (const kind of Object.keys(catalogue)) seen.set(kind, [...(seen.get(kind) ?? []), area])
    }
    const twice = [...seen].filter(([, areas]) => areas.length > 1)
    expect(twice).toEqual([])
    expect([...seen.keys()].sort()).toEqual([...kinds].sort())
    expect(Object.keys(controllerQuestions).sort()).toEqual([...kinds].sort())
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

  it("keep the retired kinds for reading only: in no area's catalogue, `send` still an act", () => {
    for (const kind of ["open-plans", "send", "kept-standings"]) {
      expect(
        Object.keys(catalogues).filter((area) => Object.hasOwn(catalogues[area as keyof typeof catalogues], kind)),
        kind,
      ).toEqual(["retired"])
    }
    expect(actKinds.has("send")).toBe(true)
    expect(actKinds.has("open-plans")).toBe(false)
    expect(actKinds.has("kept-standings")).toBe(false)
  })
})

describe("a log recorded before, naming the retired kinds", () => {
  const answer = (q: Question, a: unknown) => answerLine(iso(0), q, a)
  const retired = [
    answer({ q: "open-plans" }, { ok: true, value: [] }),
    answer({ q: "send", machines: ["hq-4"], why: "rest", module: "letta" }, { told: ["hq-4"] }),
    answer({ q: "kept-standings", keys: [{ provider: "vault", providerNode: "hq-1", consumer: "letta" }] }, []),
  ]

  it("is read, and each retired answer is one no program asks: counted unasked, never an act of the replay", () => {
    const r = replayControllerLog([header, tick(0), ...retired])
    if (!r.ok) throw new Error(`line ${r.bad.line}: ${r.bad.field}: ${r.bad.problem}`)
    expect(r.day.state.counts.unasked).toBe(3)
    expect(
      r.day.decisions
        .flatMap((d) => (d.kind === "act" ? [d.act.q] : []))
        .filter((k) => ["open-plans", "send", "kept-standings"].includes(k)),
    ).toEqual([])
  })

  it("is read with the Schemas it was recorded with: a send of a why it never had is refused", () => {
    const bad = JSON.stringify({
      at: iso(0),
      fact: "answer",
      q: { q: "send", machines: ["hq-4"], why: "tier", module: "letta" },
      a: { told: ["hq-4"] },
    })
    const r = replayControllerLog([header, tick(0), bad])
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.bad.line).toBe(3)
  })
})
