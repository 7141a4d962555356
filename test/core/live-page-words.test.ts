// The live page's words (issue 29), said out for each state they name: the lease's line for each of
// its states, where a plan stands, its passes and pause, the page's title, a standing's attempts;
// each section's heading, its columns, and what it says when it has nothing; what the page is before
// its first frame. A person reads these; mutation runs found them held by no test (docs/testing.md,
// issue 42).
import { describe, expect, it } from "vitest"
import type { PlanRecord } from "@mesh-core/core/gate/plan/records"
import type { LeaseState } from "@mesh-core/core/lease/view"
import { statusOf } from "@mesh-core/core/standings/status"
import { type LiveInputs, liveHtml, livePage, liveView } from "@mesh-core/core/status/live"
import type { OpenCondition } from "@mesh-core/core/status/whole"
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

const standing = (attempts: number, consumerNode: string | undefined, at: number, consumer = "grafana") => ({
  provider: "pg",
  providerNode: "hq-2",
  consumer,
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

  it("say where a plan stands while it is judged, sent first, put back or failed, as the phases are named", () => {
    const whereOf = (p: PlanRecord) => /<td>([^<]*)<\/td><\/tr>$/.exec(planRowOf(p))?.[1]
    expect(whereOf(plan({}))).toBe("gate judging tier 1 on hq-1")
    expect(whereOf(plan({ sent: [] }))).toBe("tier 1 (hq-1) is being sent first")
    expect(
      whereOf(
        plan({ state: "rolling-back", putBack: { build: "letta-204", commit: "b", machines: ["hq-1"], sent: [] } }),
      ),
    ).toBe("its build failed its gate and is being put back on hq-1")
    expect(whereOf(plan({ state: "failed" }))).toBe("its build failed its gate on hq-1 and is sent nowhere new")
  })

  it("head the page with its title, marked well or not well", () => {
    expect(liveHtml(liveView(inputs({})))).toMatch(
      /^<h1 class="well" data-well="true">mesh: well<\/h1><section id="lease"/,
    )
    const failing = { ok: true as const, value: statusOf([standing(3, "hq-3", 0)], 0, 30_000) }
    expect(liveHtml(liveView(inputs({ standings: failing })))).toMatch(
      /^<h1 class="not-well" data-well="false">mesh: NOT WELL<\/h1><section id="lease"/,
    )
  })

  it("say of each list that has nothing in it that it has nothing, under its heading, and nothing more", () => {
    expect(liveHtml(liveView(inputs({})))).toBe(
      '<h1 class="well" data-well="true">mesh: well</h1>' +
        '<section id="lease" data-state="held" data-holder="vm/1/ab" data-epoch="7"><h2>Controller lease</h2>' +
        "<p>held by <b>vm/1/ab</b>, epoch <b>7</b>, since 2026-12-05T09:00:00Z; it acts</p></section>" +
        '<section id="plans"><h2>Release plans in flight</h2><p class="none">none in flight</p></section>' +
        '<section id="failing"><h2>Failing standings</h2><p class="none">no provider is failing any consumer</p></section>' +
        '<section id="conditions"><h2>Open conditions</h2><p class="none">none open</p></section>' +
        '<section id="ended"><h2>Each module\'s newest plan that has ended</h2><p class="none">none has ended</p></section>',
    )
  })

  it("name each table's columns, and say each row's fields under them: a standing said or STALE, a condition raised by whom", () => {
    const now = 100_000
    const raised: OpenCondition = {
      key: "build.letta.hq-1.rolled-back",
      severity: "urgent",
      kind: "rolled-back",
      summary: "letta-205 was put back on hq-1",
      raised: Date.UTC(2026, 11, 5, 9, 30, 0),
      source: "DG",
    }
    const html = liveHtml(
      liveView(
        inputs({
          plans: {
            ok: true,
            value: [
              plan({}),
              plan({ id: "p2", module: "grafana", build: "grafana-13", sent: [], gate: gateOpened({ passes: 0 }) }),
              plan({ id: "p0", module: "grafana", build: "grafana-12", state: "passed" }),
            ],
          },
          // Said a second ago, and said last at 0: 100 s quiet, over the 30 s after which a standing is stale.
          standings: {
            ok: true,
            value: statusOf([standing(3, "hq-3", now - 1_000), standing(1, "hq-3", 0, "letta")], now, 30_000),
          },
          conditions: {
            ok: true,
            value: [
              raised,
              { ...raised, key: "k2", severity: "warning", summary: "letta is slow on hq-2", source: "DH" },
            ],
          },
        }),
      ),
    )
    const section = (id: string) =>
      `${html.slice(html.indexOf(`<section id="${id}"`)).split("</section>")[0]}</section>`
    expect(section("plans")).toBe(
      '<section id="plans"><h2>Release plans in flight</h2><table>' +
        "<tr><th>plan</th><th>build</th><th>state</th><th>tier</th><th>passes</th><th>where</th></tr>" +
        '<tr class="plan" data-plan="p1" data-state="open" data-tier="1" data-passes="2" data-needed="3">' +
        '<td>p1</td><td>letta letta-205</td><td class="state open">open</td><td>tier 1 of 2</td><td>2 of 3</td>' +
        "<td>gate judging tier 1 on hq-1</td></tr>" +
        '<tr class="plan" data-plan="p2" data-state="open" data-tier="1" data-passes="0" data-needed="3">' +
        '<td>p2</td><td>grafana grafana-13</td><td class="state open">open</td><td>tier 1 of 2</td><td>0 of 3</td>' +
        "<td>tier 1 (hq-1) is being sent first</td></tr></table></section>",
    )
    expect(section("failing")).toBe(
      '<section id="failing"><h2>Failing standings</h2><table>' +
        "<tr><th>provider</th><th>consumer</th><th>failing</th><th>said</th><th>last error</th></tr>" +
        '<tr class="standing" data-provider="pg" data-consumer="grafana">' +
        "<td>pg on hq-2</td><td>grafana on hq-3</td><td>unreachable since 2026-10-05T06:00:00Z, 3 attempts</td>" +
        "<td>said 1970-01-01T00:01:39Z</td><td>timeout</td></tr>" +
        '<tr class="standing stale" data-provider="pg" data-consumer="letta" data-stale="true">' +
        "<td>pg on hq-2</td><td>letta on hq-3</td><td>unreachable since 2026-10-05T06:00:00Z, 1 attempt</td>" +
        "<td><b>STALE</b>: nobody has said it since 1970-01-01T00:00:00Z</td><td>timeout</td></tr></table></section>",
    )
    expect(section("conditions")).toBe(
      '<section id="conditions"><h2>Open conditions</h2><table>' +
        "<tr><th>key</th><th>severity</th><th>raised</th><th>summary</th></tr>" +
        '<tr class="condition urgent" data-key="build.letta.hq-1.rolled-back"><td>build.letta.hq-1.rolled-back</td>' +
        "<td>urgent</td><td>2026-12-05T09:30:00Z by DG</td><td>letta-205 was put back on hq-1</td></tr>" +
        '<tr class="condition warning" data-key="k2"><td>k2</td>' +
        "<td>warning</td><td>2026-12-05T09:30:00Z by DH</td><td>letta is slow on hq-2</td></tr></table></section>",
    )
    expect(section("ended")).toBe(
      '<section id="ended"><h2>Each module\'s newest plan that has ended</h2><table>' +
        "<tr><th>plan</th><th>build</th><th>state</th><th>tier</th><th>passes</th><th>where</th></tr>" +
        '<tr class="plan" data-plan="p0" data-state="passed" data-tier="1" data-passes="2" data-needed="3">' +
        '<td>p0</td><td>grafana grafana-12</td><td class="state passed">passed</td><td>tier 1 of 2</td><td>-</td>' +
        "<td>passed its gate, and every machine has it</td></tr></table></section>",
    )
  })

  it("leave a field the store did not keep blank, as if it were kept empty: never a word of their own", () => {
    const rowOf = (over: Partial<LiveInputs>) =>
      /<tr class="(?:standing|condition).*?<\/tr>/.exec(liveHtml(liveView(inputs(over))))?.[0]
    const { class: _c, since: _s, error: _e, ...bare } = standing(2, "hq-3", 0)
    const kept = (s: typeof bare | ReturnType<typeof standing>) => ({
      standings: { ok: true as const, value: statusOf([s], 0, 30_000) },
    })
    expect(rowOf(kept(bare))).toBe(rowOf(kept({ ...bare, class: "", since: "", error: "" })))
    const condition: OpenCondition = { key: "k", summary: "s", raised: 0, source: "DG" }
    const open = (c: OpenCondition) => ({ conditions: { ok: true as const, value: [c] } })
    expect(rowOf(open(condition))).toBe(rowOf(open({ ...condition, severity: "" })))
  })

  it("draw no row of what could not be read, and say it could not be read", () => {
    const unread = { ok: false as const, why: "the store is not answering" }
    const html = liveHtml(liveView(inputs({ plans: unread, standings: unread })))
    expect(html).not.toContain("<tr")
    expect(html).toContain('<p class="unread">the release plans cannot be read: the store is not answering</p>')
    expect(html).toContain('<p class="unread">the standings cannot be read: the store is not answering</p>')
  })

  it("before its first frame, the page says it is connecting, and holds each element its script fills", () => {
    const page = livePage()
    expect(page.startsWith('<!doctype html><html lang="en"><head><meta charset="utf-8"><title>mesh</title>')).toBe(true)
    expect(page).toMatch(
      /<meta name="viewport" content="width=device-width,initial-scale=1"><style>[^<]+<\/style><\/head>/,
    )
    expect(page).toContain('<body data-connection="connecting"><p id="said">connecting to the controller…</p>')
    const addressed = [...page.matchAll(/getElementById\("([^"]+)"\)/g)].map((m) => m[1])
    expect(addressed.length).toBeGreaterThan(0)
    for (const id of addressed) expect(page, id).toContain(`id="${id}"`)
  })
})
