// serve's live page (issue 29) as properties of the core's view and frame: every plan in flight is one
// row with its tier and passes, an ended one is under "ended", a dry run nowhere; every list is cut at
// liveRowsShown with the rest counted; the lease's holder and epoch are the record's; text from outside
// is escaped; and a frame depends on what is kept, not on when it is read, so a page left open is sent
// nothing while nothing changes.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { PlanRecord } from "@mesh-core/core/gate/plan/records"
import type { LeaseState } from "@mesh-core/core/lease/view"
import { statusOf } from "@mesh-core/core/standings/status"
import { frameToSend, type LiveInputs, liveHtml, livePage, liveRowsShown, liveView } from "@mesh-core/core/status/live"
import type { OpenCondition } from "@mesh-core/core/status/whole"
import { gateOpened } from "../support/plan-records.ts"

const gate = { settle: 120_000, bound: 600_000, passes: 3, every: 40_000 }
const states = ["open", "sending", "rolling-back", "passed", "failed"] as const
const inFlightModel = (s: string) => s === "open" || s === "sending" || s === "rolling-back"

const plan = (n: number, state: PlanRecord["state"], passes: number, dryRun: boolean): PlanRecord => ({
  id: `plan-${n}`,
  module: `m${n}`,
  build: `m${n}-b`,
  commit: "c",
  previous: "b",
  previousBuild: "b1",
  machines: ["hq-1"],
  tiers: [["hq-1"], ["hq-2"]],
  tier: n % 2,
  rest: ["hq-3"],
  sentAt: n,
  state,
  note: "",
  sent: ["hq-1"],
  ...(dryRun ? { dryRun: true } : {}),
  ...(state === "rolling-back" ? { putBack: { build: "b1", commit: "b", machines: ["hq-1"], sent: [] } } : {}),
  gate: gateOpened({ component: `m${n}`, passes }),
})

const planArb = fc
  .record({ state: fc.constantFrom(...states), passes: fc.nat(3), dryRun: fc.nat(6).map((d) => d === 0) })
  .map((p) => (n: number) => plan(n, p.state, p.passes, p.dryRun))

const standing = (i: number, at: number, provider = "pg") => ({
  provider,
  providerNode: "hq-2",
  consumer: `c${i}`,
  state: "failing" as const,
  at,
  consumerNode: "hq-3",
  class: "unreachable",
  error: "timeout",
  since: "2026-10-05T06:00:00Z",
  attempts: i + 1,
})

const condition = (i: number, summary = `wrong ${i}`): OpenCondition => ({
  key: `build.m${i}.hq-1.rolled-back`,
  severity: i % 2 === 0 ? "urgent" : "warning",
  kind: "rolled-back",
  summary,
  raised: 1_000 * i,
  source: "DG",
})

const held: LeaseState = {
  state: "held",
  quietMs: 1_000,
  record: {
    holder: "vm/1/ab",
    epoch: 7,
    acquiredAt: 0,
    renewedAt: 0,
    durationMs: 15_000,
    givenBack: false,
    ready: true,
  },
}

const inputs = (
  plans: ReadonlyArray<PlanRecord>,
  failing: number,
  conditions: number,
  now = 100_000,
  lease: LeaseState = held,
): LiveInputs => ({
  standings: {
    ok: true,
    value: statusOf(
      Array.from({ length: failing }, (_, i) => standing(i, i * 1_000)),
      now,
      30_000,
    ),
  },
  conditions: { ok: true, value: Array.from({ length: conditions }, (_, i) => condition(i)) },
  plans: { ok: true, value: plans },
  held: { ok: true, value: [] },
  lease,
  gate,
})

const count = (html: string, pattern: RegExp) => [...html.matchAll(pattern)].length
const section = (html: string, id: string) => html.slice(html.indexOf(`<section id="${id}"`)).split("</section>")[0]!

describe("the live page's view", () => {
  it("every real plan in flight is one row under the plans in flight with its tier and passes, every ended one one row under ended, a dry run in neither", () => {
    fc.assert(
      fc.property(fc.array(planArb, { maxLength: 8 }), (makers) => {
        const plans = makers.map((m, n) => m(n))
        const html = liveHtml(liveView(inputs(plans, 0, 0)))
        const flying = section(html, "plans")
        const ended = section(html, "ended")
        for (const p of plans) {
          const row = new RegExp(`<tr class="plan" data-plan="${p.id}"`, "g")
          const inFlight = p.dryRun !== true && inFlightModel(p.state)
          expect(count(flying, row), p.id).toBe(inFlight ? 1 : 0)
          expect(count(ended, row), p.id).toBe(p.dryRun !== true && !inFlightModel(p.state) ? 1 : 0)
          if (inFlight)
            expect(flying).toContain(
              `data-plan="${p.id}" data-state="${p.state}" data-tier="${(p.tier ?? 0) + 1}" data-passes="${p.gate!.passes}" data-needed="3"`,
            )
        }
      }),
      { numRuns: 300 },
    )
  })

  it("each list is cut at liveRowsShown rows, and the rest are counted", () => {
    fc.assert(
      fc.property(fc.nat(250), fc.nat(250), fc.nat(250), (failing, conditions, plans) => {
        const html = liveHtml(
          liveView(
            inputs(
              Array.from({ length: plans }, (_, n) => plan(n, "open", 0, false)),
              failing,
              conditions,
            ),
          ),
        )
        const rows = (id: string, cls: string) => count(section(html, id), new RegExp(`<tr class="${cls}[" ]`, "g"))
        const more = (id: string) => /… and (\d+) more/.exec(section(html, id))?.[1]
        for (const [id, cls, n] of [
          ["failing", "standing", failing],
          ["conditions", "condition", conditions],
          ["plans", "plan", plans],
        ] as const) {
          expect(rows(id, cls), id).toBe(Math.min(n, liveRowsShown))
          expect(more(id), id).toBe(n > liveRowsShown ? String(n - liveRowsShown) : undefined)
        }
      }),
      { numRuns: 40 },
    )
  })

  it("a frame depends on what is kept, not on when it is read: read again later, nothing is sent until a standing goes stale or something changes", () => {
    fc.assert(
      fc.property(fc.nat(20), fc.nat(5), fc.integer({ min: 0, max: 10_000 }), (failing, conditions, later) => {
        const plans = [plan(1, "open", 1, false)]
        const first = frameToSend(undefined, liveView(inputs(plans, failing, conditions, 100_000)), 100_000)!
        expect(first.frame).toContain(`"at":"1970-01-01T00:01:40Z"`)
        // Standings said at 0..19 s, stale after 30 s: read at 100 s and at 100 s + later, all are stale both times.
        const again = (i: LiveInputs) => frameToSend(first, liveView(i), 100_000 + later)
        expect(again(inputs(plans, failing, conditions, 100_000 + later))).toBeUndefined()
        // One more standing, a plan's pass, a condition raised: each is sent.
        expect(again(inputs(plans, failing + 1, conditions, 100_000))).toBeDefined()
        expect(again(inputs([plan(1, "open", 2, false)], failing, conditions, 100_000))).toBeDefined()
        expect(again(inputs(plans, failing, conditions + 1, 100_000))).toBeDefined()
      }),
      { numRuns: 100 },
    )
  })

  it("a standing is marked stale exactly when nobody has said it for longer than MESH_STALE_AFTER", () => {
    const now = 100_000
    const html = liveHtml(liveView(inputs([], 0, 0, now)))
    expect(html).toContain("no provider is failing any consumer")
    const view = liveView({
      ...inputs([], 0, 0, now),
      standings: { ok: true, value: statusOf([standing(0, now - 30_001), standing(1, now - 30_000)], now, 30_000) },
    })
    const failing = section(liveHtml(view), "failing")
    expect(count(failing, /data-stale="true"/g)).toBe(1)
    expect(failing).toMatch(/data-consumer="c0" data-stale="true"/)
    expect(view.well).toBe(false)
  })

  it("names the lease's holder and epoch as its record says, and says plainly when nobody holds it", () => {
    expect(section(liveHtml(liveView(inputs([], 0, 0))), "lease")).toContain(
      'data-state="held" data-holder="vm/1/ab" data-epoch="7"',
    )
    const none = section(liveHtml(liveView(inputs([], 0, 0, 0, { state: "none" }))), "lease")
    expect(none).toContain('data-state="none"')
    expect(none).not.toContain("data-holder")
    expect(none).toContain("no controller has held it yet")
  })

  it("what it could not read is said, and is not well", () => {
    const v = liveView({ ...inputs([], 0, 0), conditions: { ok: false, why: "connection refused" } })
    expect(v.well).toBe(false)
    expect(liveHtml(v)).toContain('<p class="unread">the conditions cannot be read: connection refused</p>')
  })

  it("text from outside is escaped: a provider's name or a condition's summary never becomes markup", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), (name, summary) => {
        const tagged = `<img src=x onerror="${name}">`
        const v = liveView({
          ...inputs([], 0, 0),
          standings: { ok: true, value: statusOf([standing(0, 0, tagged)], 0, 30_000) },
          conditions: { ok: true, value: [condition(0, `<script>${summary}</script>`)] },
        })
        const html = liveHtml(v)
        expect(html).not.toContain("<img")
        expect(html).not.toContain("<script")
        // The frame is one `data:` line: JSON keeps a newline in the text from ending it.
        const lines = frameToSend(undefined, v, 0)!.frame.split("\n")
        expect(lines.map((l) => l.slice(0, 6))).toEqual(["event:", "data: ", "", ""])
      }),
      { numRuns: 200 },
    )
  })

  it("the page is self-contained: no address but its own stream", () => {
    const page = livePage()
    expect([...page.matchAll(/(?:src|href)=|https?:\/\//g)]).toEqual([])
    expect(page).toContain('new EventSource("live")')
  })
})
