// `status`'s lines and `--json` word for word (issue 9): what a person reads first and what scripts
// read. The properties in status-whole.test.ts say *what* is named; this pins *how* it is said.
import { describe, expect, it } from "vitest"
import type { PlanRecord } from "@mesh-core/core/gate/plan/records"
import { statusOf } from "@mesh-core/core/standings/status"
import { wholeStatus } from "@mesh-core/core/status/whole"
import { lettaPlan } from "../support/plan-records.ts"

const ok = <A>(value: A) => ({ ok: true as const, value })
const no = (why: string) => ({ ok: false as const, why })
const standing = (consumer: string, at: number) => ({
  provider: "postgres",
  providerNode: "hq-1",
  consumer,
  state: "failing" as const,
  at,
  class: "auth",
  error: "rejected",
  since: "2026-01-01T00:00:00Z",
  attempts: 3,
})
const base = lettaPlan({
  rest: ["hq-2", "hq-3"],
  sent: ["hq-1"],
})
const plans: ReadonlyArray<PlanRecord> = [
  { ...base, state: "sending", tries: 2 },
  {
    ...base,
    id: "grafana-9",
    module: "grafana",
    build: "grafana-9",
    state: "sending",
    sent: ["hq-1", "hq-2", "hq-3"],
    tries: 1,
  },
  {
    ...base,
    id: "outline-3",
    module: "outline",
    build: "outline-3",
    state: "rolling-back",
    putBack: { build: "outline-2", commit: "x", machines: ["hq-1", "hq-2"], sent: [] },
  },
  {
    ...base,
    id: "chat-4",
    module: "chat",
    build: "chat-4",
    state: "rolling-back",
    putBack: { build: "chat-3", commit: "x", machines: ["hq-1"], sent: ["hq-1"] },
  },
  { ...base, id: "nats-1", module: "nats", build: "nats-1", state: "rolling-back" },
  { ...base, id: "old-1", module: "old", build: "old-1", state: "passed" },
]
const conditions = [
  {
    key: "build.letta.hq-1.rolled-back",
    severity: "warning",
    kind: "rolled-back",
    summary: "letta put back",
    raised: 1_000,
    source: "DG",
  },
  {
    key: "build.x.hq-2.unhealthy",
    severity: "warning",
    kind: "unhealthy",
    summary: "x down",
    raised: 2_000,
    source: "DH",
    resolver: "operator",
  },
]
const held = [
  {
    machine: "hq-3",
    module: "letta",
    plan: "letta-205",
    build: "letta-204",
    why: "held by plan letta-205, gate judging on hq-1",
  },
  {
    machine: "hq-3",
    module: "grafana",
    plan: "grafana-9",
    build: "",
    why: "held by plan grafana-9, gate judging on hq-1",
  },
]
const standings = ok(statusOf([standing("a", 0), standing("b", 50_000)], 60_000, 30_000))

describe("status, word for word", () => {
  it("not well: why on the first line, then the standings, each condition, each plan in flight and where it is, each machine held", () => {
    const w = wholeStatus({ standings, conditions: ok(conditions), plans: ok(plans), held: ok(held) })
    expect(w.code).toBe(1)
    expect(w.stopped).toBe("")
    expect(w.lines).toEqual([
      "mesh: NOT WELL — 1 urgent condition open; 2 failing standings (a provider keeps failing a consumer), 1 of them stale (nobody has said it for over 30s)",
      "  STALE postgres on hq-1 is failing a: auth since 2026-01-01T00:00:00Z, 3 attempts (said 1970-01-01T00:00:00Z, nothing since for 1m0s)",
      "    last error: rejected",
      "    if it is over (a consumer withdrawn while its provider was down): mesh-controller standings forget postgres a --node hq-1",
      "  postgres on hq-1 is failing b: auth since 2026-01-01T00:00:00Z, 3 attempts (said 1970-01-01T00:00:50Z)",
      "    last error: rejected",
      "URGENT build.x.hq-2.unhealthy (for a person), raised 1970-01-01T00:00:02Z by DH: x down",
      "warning build.letta.hq-1.rolled-back, raised 1970-01-01T00:00:01Z by DG: letta put back",
      "5 release plans in flight:",
      "  plan letta-205: letta letta-205, sending — sending the rest: hq-2, hq-3 not sent yet (2 tries so far)",
      "  plan grafana-9: grafana grafana-9, sending — sending the rest: every machine has been sent it (1 try so far)",
      "  plan outline-3: outline outline-3, rolling-back — putting back outline-2: hq-1, hq-2 not sent yet",
      "  plan chat-4: chat chat-4, rolling-back — putting back chat-3: every machine has been sent it",
      "  plan nats-1: nats nats-1, rolling-back — putting back the previous build: every machine has been sent it",
      "1 machine held back by a plan:",
      "  hq-3: letta stays at letta-204, held by plan letta-205, gate judging on hq-1",
      "  hq-3: grafana not sent at all, held by plan grafana-9, gate judging on hq-1",
    ])
    expect(w.json).toMatchObject({
      well: false,
      code: 1,
      stale: 1,
      conditions: {
        // The failing standings first, as conditions (issue 28), in the words status says of them.
        urgent: [
          {
            key: "standing.postgres.hq-1.a.failing",
            kind: "failing-standing",
            severity: "urgent",
            source: "standings",
            raised: "2026-01-01T00:00:00Z",
            summary:
              "postgres on hq-1 is failing a: auth since 2026-01-01T00:00:00Z, 3 attempts (said 1970-01-01T00:00:00Z); last error: rejected; STALE: nothing since for 1m0s, and if it is over: mesh-controller standings forget postgres a --node hq-1",
          },
          {
            key: "standing.postgres.hq-1.b.failing",
            kind: "failing-standing",
            severity: "urgent",
            source: "standings",
            raised: "2026-01-01T00:00:00Z",
            summary:
              "postgres on hq-1 is failing b: auth since 2026-01-01T00:00:00Z, 3 attempts (said 1970-01-01T00:00:50Z); last error: rejected",
          },
          { ...conditions[1], raised: "1970-01-01T00:00:02Z" },
        ],
        warnings: [{ ...conditions[0], raised: "1970-01-01T00:00:01Z" }],
      },
      held: [{ ...held[0] }, { ...held[1], build: null }],
      unread: [],
    })
    expect((w.json["plans"] as ReadonlyArray<{ id: string }>).map((p) => p.id)).toEqual([
      "letta-205",
      "grafana-9",
      "outline-3",
      "chat-4",
      "nats-1",
    ])
  })

  it("an open plan says its phase; failing standings none of which is stale say no staleness; machines held are counted once each", () => {
    const fresh = ok(statusOf([standing("a", 50_000), standing("b", 50_000)], 60_000, 30_000))
    const twoHeld = [held[0]!, { ...held[0]!, machine: "hq-4" }, { ...held[1]!, machine: "hq-4" }]
    const w = wholeStatus({
      standings: fresh,
      conditions: ok([]),
      plans: ok([{ ...base, tiers: [["hq-1"], ["hq-2"]], tier: 1 }]),
      held: ok(twoHeld),
    })
    expect(w.lines[0]).toBe("mesh: NOT WELL — 2 failing standings (a provider keeps failing a consumer)")
    expect(w.lines).toContain("  plan letta-205: letta letta-205, open — tier 2 (hq-2) is being sent first")
    expect(w.lines).toContain("2 machines held back by a plan:")
  })

  it("a plan's tier as people count them, its tiers, and what it has sent, also for a row kept before tiers", () => {
    const tiered: PlanRecord = { ...base, tiers: [["hq-1"], ["hq-2"]], tier: 1, sent: ["hq-1", "hq-2"] }
    const { sent: _sent, ...old }: PlanRecord = { ...base, id: "old-2" }
    const w = wholeStatus({ standings, conditions: ok([]), plans: ok([tiered, old]), held: ok([]) })
    expect(w.json["plans"]).toEqual([
      {
        id: "letta-205",
        module: "letta",
        build: "letta-205",
        state: "open",
        tier: 2,
        tiers: [["hq-1"], ["hq-2"]],
        sent: ["hq-1", "hq-2"],
        note: "",
      },
      {
        id: "old-2",
        module: "letta",
        build: "letta-205",
        state: "open",
        tier: 1,
        tiers: [["hq-1"]],
        sent: ["hq-1"],
        note: "",
      },
    ])
  })

  it("well, with its warnings counted; not well with what could not be read; nothing read at all, every reason once", () => {
    const empty = ok(statusOf([], 60_000, 30_000))
    const well = wholeStatus({
      standings: empty,
      conditions: ok([conditions[0]!, { ...conditions[0]!, key: "k2" }]),
      plans: ok([]),
      held: ok([]),
    })
    expect(well.code).toBe(0)
    expect(well.lines[0]).toBe(
      "mesh: well — no provider is failing any consumer, no urgent condition is open (2 warnings)",
    )
    expect(wholeStatus({ standings: empty, conditions: ok([]), plans: ok([]), held: ok([]) }).lines).toEqual([
      "mesh: well — no provider is failing any consumer, no urgent condition is open",
    ])
    const partly = wholeStatus({ standings: empty, conditions: no("pg down"), plans: ok([]), held: ok([]) })
    expect(partly.code).toBe(1)
    expect(partly.lines).toEqual([
      "mesh: NOT WELL — the conditions cannot be read",
      "the conditions cannot be read: pg down",
    ])
    expect(partly.json["conditions"]).toBeNull()
    const none = wholeStatus({
      standings: no("nats down"),
      conditions: no("pg down"),
      plans: no("pg down"),
      held: no("nats down"),
    })
    expect(none.code).toBe(3)
    expect(none.lines).toEqual([
      "mesh: NOT KNOWN — nothing could be read",
      "the standings cannot be read: nats down",
      "the conditions cannot be read: pg down",
      "the release plans cannot be read: pg down",
      "what the plans hold cannot be read: nats down",
    ])
    expect(none.stopped).toBe("nats down\npg down")
    expect(none.json).toEqual({
      failing: null,
      well: false,
      code: 3,
      conditions: null,
      plans: null,
      held: null,
      unread: [
        { what: "the standings", why: "nats down" },
        { what: "the conditions", why: "pg down" },
        { what: "the release plans", why: "pg down" },
        { what: "what the plans hold", why: "nats down" },
      ],
    })
  })
})
