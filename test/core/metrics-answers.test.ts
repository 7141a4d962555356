// What each act's answer tells the metrics (controller/metrics.ts), answer shape by answer shape,
// beside metrics-exchanges: a verdict counted only when the store kept it as this controller's, a
// raise or clear counted only when done, a failed publish both a failed event and a bus error, each
// part of a judging's facts read on its own, either kind of send; and `--metrics-addr`'s edges.
import { describe, expect, it } from "vitest"
import { observedOfExchange, parseListenAddress } from "@mesh-core/core/controller/metrics"
import type { Question } from "@mesh-core/core/controller/catalogue"
import type { VerdictRecord } from "@mesh-core/core/gate/plan/records"

const observed = (question: Question, answer: unknown) => observedOfExchange({ question, answer })

describe("a verdict kept", () => {
  const v: VerdictRecord = {
    build: "letta-204",
    module: "letta",
    commit: "5e1f0c2a9b",
    previous: "a71c3d09e4",
    plan: "letta-letta-204",
    machines: ["hq-3"],
    verdict: "failed",
    rollback: "",
    why: "not healthy",
    component: "",
    judgingFrom: 0,
  }
  const q: Question = { q: "record-verdict", verdict: v }

  it("is counted once, by the controller whose verdict the store kept: ok and mine, both true", () => {
    expect(observed(q, { ok: true, mine: true })).toEqual([{ kind: "verdict", verdict: "failed" }])
    expect(observed({ q: "record-verdict", verdict: { ...v, verdict: "passed" } }, { ok: true, mine: true })).toEqual([
      { kind: "verdict", verdict: "passed" },
    ])
  })

  it("kept by another, not kept, or an answer that does not say so, counts no verdict", () => {
    expect(observed(q, { ok: true, mine: false })).toEqual([])
    expect(observed(q, { ok: false, why: "the store is down" })).toEqual([
      { kind: "store-error", operation: "record-verdict" },
    ])
    for (const a of [
      { ok: true },
      { mine: true },
      { ok: "true", mine: true },
      { ok: true, mine: "true" },
      { ok: 1, mine: 1 },
      null,
      undefined,
      "kept",
      true,
    ]) {
      expect(observed(q, a), JSON.stringify(a)).toEqual([])
    }
  })
})

describe("conditions and events, counted when done", () => {
  const observation = {
    key: "module.letta.hq-3.unhealthy",
    scope: "module",
    id: "letta.hq-3",
    kind: "unhealthy",
    machine: "hq-3",
    also: [],
    severity: "urgent" as const,
    source: "DH",
    summary: "letta on hq-3 is stated unhealthy twice in a row",
  }

  it("a raise or a clear not done is a store error alone", () => {
    expect(observed({ q: "raise-condition", observation, at: 0 }, { ok: true })).toEqual([
      { kind: "condition-raised", severity: "urgent" },
    ])
    expect(observed({ q: "raise-condition", observation, at: 0 }, { ok: false, why: "gone" })).toEqual([
      { kind: "store-error", operation: "raise-condition" },
    ])
    expect(observed({ q: "clear-condition", key: observation.key, by: "DH" }, { ok: true })).toEqual([
      { kind: "condition-cleared", by: "DH" },
    ])
    expect(observed({ q: "clear-condition", key: observation.key, by: "DG" }, { ok: false, why: "gone" })).toEqual([
      { kind: "store-error", operation: "clear-condition" },
    ])
  })

  it("an event not published is a failed event and a bus error of publish", () => {
    const q: Question = { q: "publish", event: "rolled-back", body: {} }
    expect(observed(q, { ok: true })).toEqual([{ kind: "published", event: "rolled-back", ok: true }])
    expect(observed(q, { ok: false, why: "no responders" })).toEqual([
      { kind: "published", event: "rolled-back", ok: false },
      { kind: "bus-error", operation: "publish" },
    ])
  })
})

describe("a judging's facts, part by part", () => {
  const facts = (parts: unknown) => observed({ q: "gate-facts" }, parts)

  it("each of the store's parts unread is a gate-facts store error, once however many are", () => {
    for (const part of ["open", "holder", "health"]) {
      expect(facts({ [part]: { ok: false, why: "gone" } }), part).toEqual([
        { kind: "store-error", operation: "gate-facts" },
      ])
    }
    expect(
      facts({
        open: { ok: false, why: "a" },
        holder: { ok: false, why: "b" },
        health: { ok: false, why: "c" },
        served: { ok: false, why: "d" },
      }),
    ).toEqual([
      { kind: "bus-error", operation: "discovery" },
      { kind: "store-error", operation: "gate-facts" },
    ])
    // Other parts are not the store's to fail.
    expect(
      facts({ reports: { ok: false, why: "x" }, engines: { ok: false, why: "x" }, "": { ok: false, why: "x" } }),
    ).toEqual([])
  })

  it("facts that are no object tell nothing", () => {
    for (const a of [null, undefined, "facts", 0]) expect(facts(a), JSON.stringify(a)).toEqual([])
  })
})

describe("a plan's send", () => {
  it("counted by why, sent only when every machine was told", () => {
    const send = (why: "rest" | "rollback", machines: ReadonlyArray<string>) =>
      ({ q: "send-plan", plan: "p", module: "letta", why, machines }) as const
    expect(observed(send("rollback", ["hq-3"]), { told: ["hq-3"] })).toEqual([
      { kind: "send", why: "rollback", ok: true },
    ])
    expect(observed(send("rest", ["hq-4", "hq-5"]), { told: ["hq-4"] })).toEqual([
      { kind: "send", why: "rest", ok: false },
    ])
    expect(
      observed(
        { q: "send-plan", plan: "p", module: "letta", why: "user-list", machines: ["hq-1"] },
        { told: ["hq-1"] },
      ),
    ).toEqual([{ kind: "send", why: "user-list", ok: true }])
  })

  it("a told that is not a list says nothing of the machines told, whatever it spells", () => {
    for (const told of ["elsewhere", "", 3, { "hq-1": true }]) {
      expect(
        observed({ q: "send-plan", plan: "p", why: "rest", machines: ["hq-1"], module: "letta" }, { told }),
        JSON.stringify(told),
      ).toEqual([{ kind: "send", why: "rest", ok: true }])
    }
  })
})

describe("--metrics-addr", () => {
  it("blanks around the address are not part of it", () => {
    expect(parseListenAddress("  127.0.0.1:9464\n")).toEqual({ ok: true, host: "127.0.0.1", port: 9464 })
  })

  it("the highest port is 65535; above it is refused naming it", () => {
    expect(parseListenAddress("0.0.0.0:65535")).toEqual({ ok: true, host: "0.0.0.0", port: 65_535 })
    expect(parseListenAddress("localhost:65536")).toEqual({
      ok: false,
      why: '"localhost:65536": port 65536 is above 65535',
    })
    expect(parseListenAddress("localhost:x")).toEqual({
      ok: false,
      why: '"localhost:x" is not host:port (as 127.0.0.1:9464 or [::1]:9464)',
    })
  })
})
