// The live page's words (issue 29), said out for each state they name: the lease's line for each of
// its states, where a plan stands, its passes and pause, the page's title, a standing's attempts.
// A person reads these; a mutation run found them held by no test (docs/testing.md).
import { describe, expect, it } from "vitest"
import type { PlanRecord } from "@mesh-core/core/gate/plan/records"
import type { LeaseState } from "@mesh-core/core/lease/view"
import { statusOf } from "@mesh-core/core/standings/status"
import { type LiveInputs, liveHtml, liveView } from "@mesh-core/core/status/live"
import { gateOpened, lettaPlan } from "../support/plan-records.ts"

const gate = { settle: 120_000, bound: 600_000, passes: 3, every: 40_000 }
const record = {
  holder: "vm/1/ab",
  epoch: 7,
  acquiredAt: Date.UTC(2026, 11, 5, 9, 0, 0),
  renewedAt: 0,
  durationMs: 15_000,
  givenBack: false,
  ready: true,
}

const plan = (over: Partial<PlanRecord>): PlanRecord =>
  lettaPlan({
    id: "p1",
    tiers: [["hq-1"], ["hq-2"]],
    tier: 0,
    rest: ["hq-3"],
    sent: ["hq-1"],
    gate: gateOpened({ passes: 2 }),
    ...over,
  })

const standing = (attempts: number, consumerNode: string | undefined, at: number) => ({
  provider: "pg",
  providerNode: "hq-2",
  consumer: "grafana",
  state: "failing" as const,
  at,
  ...(consumerNode === undefined ? {} : { consumerNode }),
  class: "unreachable",
  error: "timeout",
  since: "2026-10-05T06:00:00Z",
  attempts,
})

const inputs = (over: Partial<LiveInputs>): LiveInputs => ({
  standings: { ok: true, value: statusOf([], 0, 30_000) },
  conditions: { ok: true, value: [] },
  plans: { ok: true, value: [] },
  held: { ok: true, value: [] },
  lease: { state: "held", quietMs: 0, record },
  gate,
  ...over,
})

const leaseLine = (lease: LeaseState) => {
  const html = liveHtml(liveView(inputs({ lease })))
  return /<section id="lease"[^>]*><h2>Controller lease<\/h2><p>(.*?)<\/p><\/section>/.exec(html)?.[1]
}
const planRowOf = (p: PlanRecord) =>
  /<tr class="plan"[^>]*>.*?<\/tr>/.exec(liveHtml(liveView(inputs({ plans: { ok: true, value: [p] } }))))?.[0] ?? ""

describe("the live page's words", () => {
  it("say the lease as it stands, holder and epoch where there is one", () => {
    expect(leaseLine({ state: "held", quietMs: 0, record })).toBe(
      "held by <b>vm/1/ab</b>, epoch <b>7</b>, since 2026-12-05T09:00:00Z; it acts",
    )
    expect(leaseLine({ state: "held", quietMs: 0, record: { ...record, ready: false, why: "catching up" } })).toBe(
      "held by <b>vm/1/ab</b>, epoch <b>7</b>, since 2026-12-05T09:00:00Z; it does not say it is ready: catching up",
    )
    expect(leaseLine({ state: "held", quietMs: 0, record: { ...record, ready: false } })).toBe(
      "held by <b>vm/1/ab</b>, epoch <b>7</b>, since 2026-12-05T09:00:00Z; it does not say it is ready",
    )
    expect(leaseLine({ state: "expired", quietMs: 60_000, record })).toBe(
      "EXPIRED: held by <b>vm/1/ab</b>, epoch <b>7</b>, not renewed; no controller acts until a candidate takes it",
    )
    expect(leaseLine({ state: "given-back", record: { ...record, givenBack: true } })).toBe(
      "given back by vm/1/ab (epoch 7); no controller acts until a candidate takes it",
    )
    expect(leaseLine({ state: "none" })).toBe("no controller has held it yet, so none acts")
    expect(leaseLine({ state: "unreadable", why: "not JSON" })).toBe("who holds it cannot be read: not JSON")
    expect(leaseLine({ state: "unreachable", why: "timed out" })).toBe("who holds it cannot be read: timed out")
    const html = liveHtml(liveView(inputs({})))
    expect(html).toContain('<section id="lease" data-state="held" data-holder="vm/1/ab" data-epoch="7">')
    expect(liveHtml(liveView(inputs({ lease: { state: "none" } })))).toContain('<section id="lease" data-state="none">')
  })

  it("say where a plan stands, its passes while its gate judges, and its pause", () => {
    const open = planRowOf(plan({}))
    expect(open).toContain('data-state="open" data-tier="1" data-passes="2" data-needed="3">')
    expect(open).toContain('<td class="state open">open</td><td>tier 1 of 2</td><td>2 of 3</td>')
    expect(open).not.toContain("PAUSED")
    const paused = planRowOf(plan({ paused: { by: "ana", at: 0, why: "" } }))
    expect(paused).toContain(' data-paused="true">')
    expect(paused).toContain('<td class="state open">open (PAUSED)</td>')
    const sending = planRowOf(plan({ state: "sending", tier: 1, sent: ["hq-1", "hq-2"] }))
    expect(sending).toContain("<td>-</td><td>passed its gate; sending the rest: hq-3 not sent yet</td>")
    const sentAll = planRowOf(plan({ state: "sending", tier: 1, sent: ["hq-1", "hq-2", "hq-3"] }))
    expect(sentAll).toContain("<td>passed its gate; every machine has been sent it</td>")
    const passed = planRowOf(plan({ state: "passed" }))
    expect(passed).toContain("<td>-</td><td>passed its gate, and every machine has it</td>")
    const { gate: _judged, ...notJudgedYet } = plan({})
    const noGateYet = planRowOf(notJudgedYet)
    expect(noGateYet).toContain('data-passes="0"')
  })

  it("title the page by what could be read and whether all is well", () => {
    expect(liveView(inputs({})).title).toBe("mesh: well")
    const failing = { ok: true as const, value: statusOf([standing(3, "hq-3", 0)], 0, 30_000) }
    expect(liveView(inputs({ standings: failing })).title).toBe("mesh: NOT WELL")
    const unread = { ok: false as const, why: "the store is not answering" }
    expect(liveView(inputs({ standings: unread, conditions: unread, plans: unread, held: unread })).title).toBe(
      "mesh: NOT KNOWN",
    )
  })

  it("count a standing's attempts as people do, and name the consumer's machine where known", () => {
    const rowOf = (s: ReturnType<typeof standing>) =>
      liveHtml(liveView(inputs({ standings: { ok: true, value: statusOf([s], 0, 30_000) } })))
    expect(rowOf(standing(1, "hq-3", 0))).toContain(
      "<td>grafana on hq-3</td><td>unreachable since 2026-10-05T06:00:00Z, 1 attempt</td>",
    )
    expect(rowOf(standing(2, undefined, 0))).toContain(
      "<td>grafana</td><td>unreachable since 2026-10-05T06:00:00Z, 2 attempts</td>",
    )
  })
})
