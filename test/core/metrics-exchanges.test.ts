// What one exchange moves, answer shape by answer shape (issue 10, controller/metrics.ts): a send is
// counted sent only when no error came back and every machine asked was told (issue 9: a send that
// reached some machines is tried again); only an answer that says `ok: false` is a store error; the
// outcome labels are the catalogue's words.
import { describe, expect, it } from "vitest"
import { metricUpdates, observedOfExchange } from "@mesh-core/core/controller/metrics"
import type { Question } from "@mesh-core/core/controller/catalogue"

const send = (machines: ReadonlyArray<string>): Question => ({
  q: "send-plan",
  plan: "p",
  module: "letta",
  why: "rest",
  machines,
})
const sentOf = (machines: ReadonlyArray<string>, answer: unknown) =>
  observedOfExchange({ question: send(machines), answer }).find((o) => o.kind === "send")

describe("a send, counted sent or failed", () => {
  const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>, unknown, boolean]> = [
    ["every machine told, no error", ["hq-1", "hq-2"], { told: ["hq-2", "hq-1"] }, true],
    ["told more than asked", ["hq-1"], { told: ["hq-1", "hq-9"] }, true],
    ["one machine not told", ["hq-1", "hq-2"], { told: ["hq-1"] }, false],
    ["none told", ["hq-1"], { told: [] }, false],
    ["every machine told, but an error came back", ["hq-1"], { told: ["hq-1"], error: "grant refused" }, false],
    ["an error field present but empty of an error", ["hq-1"], { told: ["hq-1"], error: undefined }, true],
    ["an answer that names no machines told (a send's plain ok)", ["hq-1"], { ok: true }, true],
    ["a told that is not a list", ["hq-1"], { told: "hq-1" }, true],
    ["no answer", ["hq-1"], undefined, false],
    ["null", ["hq-1"], null, false],
    ["a bare word", ["hq-1"], "sent", false],
  ]
  for (const [name, machines, answer, ok] of cases) {
    it(name, () => {
      expect(sentOf(machines, answer)).toEqual({ kind: "send", why: "rest", ok })
    })
  }
})

describe("a store answer that failed", () => {
  const save: Question = { q: "set-build", module: "letta", build: "letta-205", commit: "5e1f0c2" }
  const storeErrors = (answer: unknown) =>
    observedOfExchange({ question: save, answer }).filter((o) => o.kind === "store-error")

  it("is one store error only when it says ok: false", () => {
    expect(storeErrors({ ok: false, why: "gone" })).toEqual([{ kind: "store-error", operation: "set-build" }])
    for (const a of [{ ok: true }, { ok: "false" }, { why: "gone" }, null, undefined, false, "ok: false", 0])
      expect(storeErrors(a), JSON.stringify(a)).toEqual([])
  })

  it("a judging's facts: the bus's part unread is a discovery error, the store's parts a gate-facts error; a part not there is not unread", () => {
    const facts = (parts: Record<string, unknown>) =>
      observedOfExchange({ question: { q: "gate-facts" }, answer: parts })
    expect(facts({ served: { ok: false, why: "no responders" } })).toEqual([
      { kind: "bus-error", operation: "discovery" },
    ])
    expect(facts({ health: { ok: false, why: "gone" } })).toEqual([{ kind: "store-error", operation: "gate-facts" }])
    expect(facts({ served: { ok: true, value: {} }, open: { ok: true, value: [] } })).toEqual([])
    expect(facts({})).toEqual([])
    expect(facts({ served: null, holder: "unread" })).toEqual([])
  })
})

describe("the outcome labels", () => {
  it("an event published or failed, an operator's act done or refused, a machine's message kept or not, under their kind", () => {
    const labels = (o: Parameters<typeof metricUpdates>[0]) =>
      metricUpdates(o).map((u) => ("labels" in u ? u.labels : {}))
    expect(labels({ kind: "published", event: "rolled-back", ok: true })).toEqual([
      { event: "rolled-back", outcome: "published" },
    ])
    expect(labels({ kind: "published", event: "rolled-back", ok: false })).toEqual([
      { event: "rolled-back", outcome: "failed" },
    ])
    expect(labels({ kind: "operator-act", act: "abort", ok: true })).toEqual([{ act: "abort", outcome: "done" }])
    expect(labels({ kind: "operator-act", act: "abort", ok: false })).toEqual([{ act: "abort", outcome: "refused" }])
    expect(metricUpdates({ kind: "machine-message", what: "statement", outcome: "set-aside" })).toEqual([
      {
        op: "inc",
        metric: "mesh_machine_messages_total",
        labels: { kind: "statement", outcome: "set-aside" },
        value: 1,
      },
    ])
  })

  it("words counted by a whole positive number; none moves nothing", () => {
    expect(metricUpdates({ kind: "words", outcome: "kept", count: 0 })).toEqual([])
    expect(metricUpdates({ kind: "words", outcome: "kept", count: 3 })).toEqual([
      { op: "inc", metric: "mesh_standing_words_total", labels: { outcome: "kept" }, value: 3 },
    ])
  })

  it("each census resets and sets its own gauge, under its own label", () => {
    const metricOf = (o: Parameters<typeof metricUpdates>[0]) => [...new Set(metricUpdates(o).map((u) => u.metric))]
    expect(metricOf({ kind: "conditions-open", counts: { urgent: 1 } })).toEqual(["mesh_conditions_open"])
    expect(metricOf({ kind: "standings-failing", counts: { "credentials-rejected": 2 } })).toEqual([
      "mesh_standings_failing",
    ])
    expect(metricOf({ kind: "plans-by-state", counts: { open: 1 } })).toEqual(["mesh_plans"])
  })
})
