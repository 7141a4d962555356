// `serve`'s live page (issue 29): what `status`, `plans` and `conditions` say, on one page a person
// leaves open — Argo Rollouts' and Nomad's users expect to watch a release rather than run a command
// again and again. Read-only. The page is one self-contained document (no external asset) whose small
// script replaces one part of it with each frame the controller sends over server-sent events.
//
// Safe to leave open for days: what a frame draws is a function of what is kept, never of the clock
// (a stale standing says since when, not "for how long"), so the controller sends one only when
// something changed; each list is cut at `liveRowsShown` rows, so a frame is bounded however much is wrong; the
// browser keeps only the newest frame (it replaces, never appends).
import { rfc3339 } from "../duration.ts"
import type { GateSettings } from "../gate/judging/judge.ts"
import { inFlight, phaseOf, tierOf, tiersOf, unsentOf } from "../gate/plan/plan.ts"
import type { PlanRecord } from "../gate/plan/records.ts"
import type { LeaseState } from "../lease/view.ts"
import { escape } from "../page-drawing.ts"
import type { Standing } from "../standings/status.ts"
import type { OpenCondition } from "./conditions.ts"
import { left, type StatusInputs, wholeStatus } from "./whole.ts"

/** Rows drawn of each list; the rest are counted ("… and 40 more"), and `status` lists them all. */
export const liveRowsShown = 100

/** How often the controller reads what the page shows while a page is open. */
export const livePageEveryMs = 1_000

/** Pages open at once; one more is refused (503) rather than let each open page cost a read and a socket. */
export const livePagesAtMost = 32

/**
 * How long the page waits on the store before it says so (issue 43: under a frozen store the page
 * sent no frame at all, while the journal said the store was not answering within 3 s).
 */
export const liveReadWithinMs = 3_000
export const liveNotAnswering = `not answering (no answer within ${liveReadWithinMs / 1000}s)`

/** A page whose socket has this much unsent is dropped; its browser reconnects and gets the newest frame. */
export const liveUnsentAtMost = 1 << 20

export interface LiveInputs extends StatusInputs {
  readonly lease: LeaseState
  readonly gate: GateSettings
}

/** A list as drawn: its first `liveRowsShown`, and how many more there are than shown. */
const listOf = <A>(all: ReadonlyArray<A>) => ({
  shown: all.slice(0, liveRowsShown),
  more: Math.max(0, all.length - liveRowsShown),
})
export type LiveList<A> = ReturnType<typeof listOf<A>>

/** A plan as the page draws it: its tier from 1, its healthy judgings so far of the `needed`, and where it stands as `status` says it. */
const livePlan = (p: PlanRecord, s: GateSettings) => ({
  id: p.id,
  module: p.module,
  build: p.build,
  state: p.state,
  tier: tierOf(p) + 1,
  tiers: tiersOf(p).length,
  passes: p.gate?.passes ?? 0,
  needed: s.passes,
  paused: p.paused !== undefined,
  where:
    p.state === "passed"
      ? "passed its gate, and every machine has it"
      : p.state === "sending"
        ? `passed its gate; ${unsentOf(p).length === 0 ? left([]) : `sending the rest: ${left(unsentOf(p))}`}`
        : phaseOf(p),
})

const leaseOf = (l: LeaseState) => {
  const r = "record" in l ? l.record : undefined
  return {
    state: l.state,
    holder: r?.holder,
    epoch: r?.epoch,
    since: r?.acquiredAt,
    ready: r?.ready,
    why: r?.why ?? ("why" in l ? l.why : undefined),
  }
}

export type LivePlan = ReturnType<typeof livePlan>

/** What the page shows, from what `status` reads and the lease as a reader sees it. */
export const liveView = (i: LiveInputs) => {
  const whole = wholeStatus(i)
  const plans = i.plans.ok ? i.plans.value : []
  return {
    well: whole.well,
    title: `mesh: ${whole.code === 3 ? "NOT KNOWN" : whole.well ? "well" : "NOT WELL"}`,
    lease: leaseOf(i.lease),
    plans: listOf(plans.filter((p) => p.dryRun !== true && inFlight(p)).map((p) => livePlan(p, i.gate))),
    ended: listOf(plans.filter((p) => p.dryRun !== true && !inFlight(p)).map((p) => livePlan(p, i.gate))),
    failing: listOf(i.standings.ok ? i.standings.value.failing : []),
    conditions: listOf(i.conditions.ok ? i.conditions.value : []),
    unread: whole.unread,
  }
}

/** The page's view; `ended` is the newest plan of each module that has ended, `conditions` those the store keeps. */
export type LiveView = ReturnType<typeof liveView>

const more = (n: number) =>
  n === 0 ? "" : `<p class="more">… and ${n} more: <code>mesh-controller status</code> lists them all</p>`

const leaseHtml = (l: LiveView["lease"]): string => {
  const said =
    l.state === "held"
      ? `held by <b>${escape(l.holder ?? "")}</b>, epoch <b>${l.epoch}</b>, since ${rfc3339(l.since ?? 0)}${
          l.ready === true ? "; it acts" : `; it does not say it is ready${l.why ? `: ${escape(l.why)}` : ""}`
        }`
      : l.state === "expired"
        ? `EXPIRED: held by <b>${escape(l.holder ?? "")}</b>, epoch <b>${l.epoch}</b>, not renewed; no controller acts until a candidate takes it`
        : l.state === "given-back"
          ? `given back by ${escape(l.holder ?? "")} (epoch ${l.epoch}); no controller acts until a candidate takes it`
          : l.state === "none"
            ? "no controller has held it yet, so none acts"
            : `who holds it cannot be read: ${escape(l.why ?? "")}`
  const attrs = l.holder === undefined ? "" : ` data-holder="${escape(l.holder)}" data-epoch="${l.epoch ?? ""}"`
  return `<section id="lease" data-state="${l.state}"${attrs}><h2>Controller lease</h2><p>${said}</p></section>`
}

const planRow = (p: LivePlan): string =>
  `<tr class="plan" data-plan="${escape(p.id)}" data-state="${p.state}" data-tier="${p.tier}" data-passes="${p.passes}" data-needed="${p.needed}"${p.paused ? ' data-paused="true"' : ""}>` +
  `<td>${escape(p.id)}</td><td>${escape(p.module)} ${escape(p.build)}</td><td class="state ${p.state}">${p.state}${p.paused ? " (PAUSED)" : ""}</td>` +
  `<td>tier ${p.tier} of ${p.tiers}</td><td>${p.state === "open" ? `${p.passes} of ${p.needed}` : "-"}</td><td>${escape(p.where)}</td></tr>`

const planTable = (id: string, heading: string, empty: string, list: LiveList<LivePlan>): string =>
  `<section id="${id}"><h2>${heading}</h2>${
    list.shown.length === 0
      ? `<p class="none">${empty}</p>`
      : `<table><tr><th>plan</th><th>build</th><th>state</th><th>tier</th><th>passes</th><th>where</th></tr>${list.shown.map(planRow).join("")}</table>`
  }${more(list.more)}</section>`

const standingRow = (f: Standing): string =>
  `<tr class="standing${f.stale ? " stale" : ""}" data-provider="${escape(f.provider)}" data-consumer="${escape(f.consumer)}"${f.stale ? ' data-stale="true"' : ""}>` +
  `<td>${escape(f.provider)} on ${escape(f.providerNode)}</td><td>${escape(f.consumer)}${f.consumerNode ? ` on ${escape(f.consumerNode)}` : ""}</td>` +
  `<td>${escape(f.class ?? "")} since ${escape(f.since ?? "")}, ${f.attempts} attempt${f.attempts === 1 ? "" : "s"}</td>` +
  `<td>${f.stale ? `<b>STALE</b>: nobody has said it since ${rfc3339(f.at)}` : `said ${rfc3339(f.at)}`}</td><td>${escape(f.error ?? "")}</td></tr>`

const conditionRow = (c: OpenCondition): string =>
  `<tr class="condition ${escape(c.severity ?? "")}" data-key="${escape(c.key)}"><td>${escape(c.key)}</td><td>${escape(c.severity ?? "")}</td>` +
  `<td>${rfc3339(c.raised)} by ${escape(c.source)}</td><td>${escape(c.summary)}</td></tr>`

/** The part of the page a frame replaces. */
export const liveHtml = (v: LiveView): string =>
  [
    `<h1 class="${v.well ? "well" : "not-well"}" data-well="${v.well}">${escape(v.title)}</h1>`,
    ...v.unread.map((u) => `<p class="unread">${escape(u.what)} cannot be read: ${escape(u.why)}</p>`),
    leaseHtml(v.lease),
    planTable("plans", "Release plans in flight", "none in flight", v.plans),
    `<section id="failing"><h2>Failing standings</h2>${
      v.failing.shown.length === 0
        ? '<p class="none">no provider is failing any consumer</p>'
        : `<table><tr><th>provider</th><th>consumer</th><th>failing</th><th>said</th><th>last error</th></tr>${v.failing.shown.map(standingRow).join("")}</table>`
    }${more(v.failing.more)}</section>`,
    `<section id="conditions"><h2>Open conditions</h2>${
      v.conditions.shown.length === 0
        ? '<p class="none">none open</p>'
        : `<table><tr><th>key</th><th>severity</th><th>raised</th><th>summary</th></tr>${v.conditions.shown.map(conditionRow).join("")}</table>`
    }${more(v.conditions.more)}</section>`,
    planTable("ended", "Each module's newest plan that has ended", "none has ended", v.ended),
  ].join("")

/** What was last sent a page: the part it replaced, and the whole frame (for a page that connects next). */
export interface LiveSent {
  readonly html: string
  readonly frame: string
}

/**
 * The frame to send, or undefined when its view draws what the last one sent drew: a page left open
 * costs its socket nothing while nothing changes. `at` is when the read that found the change was
 * made (the controller's clock, a fact its shell gives); the page says it, and it is not compared.
 */
export const frameToSend = (lastSent: LiveSent | undefined, v: LiveView, at: number): LiveSent | undefined => {
  const html = liveHtml(v)
  if (html === lastSent?.html) return undefined
  const data = JSON.stringify({ title: v.title, well: v.well, at: rfc3339(at), html })
  return { html, frame: `event: view\ndata: ${data}\n\n` }
}

/** Sent when a page connects: how long its browser waits before connecting again after a break. */
export const liveHello = "retry: 2000\n\n"

/** A comment every `liveKeepAliveMs`, so a proxy does not close a quiet stream. */
export const liveKeepAlive = ": still here\n\n"
export const liveKeepAliveMs = 15_000

const style = `body{font:14px/1.4 system-ui,sans-serif;margin:16px 24px;color:#222}
h1{font-size:20px;margin:0 0 8px}h1.well{color:#1a7f37}h1.not-well{color:#b42318}
h2{font-size:15px;margin:18px 0 6px}table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:3px 8px;border-bottom:1px solid #e4e4e4;vertical-align:top}
th{font-weight:600;color:#555}.state.failed,.state.rolling-back,.stale b,.unread{color:#b42318}
.state.passed,.state.sending{color:#1a7f37}.none,.more,#said{color:#777}
#said{font-size:12px}body[data-connection="lost"] #said{color:#b42318}`

// The script only puts what the controller sent where it goes: every word on the page is the core's.
const script = `const view=document.getElementById("view"),said=document.getElementById("said");
const live=new EventSource("live");
live.addEventListener("view",(e)=>{const f=JSON.parse(e.data);view.innerHTML=f.html;document.title=f.title;
document.body.dataset.connection="live";document.body.dataset.frames=String(Number(document.body.dataset.frames||0)+1);
said.textContent="live: last change seen "+f.at+" by the controller's clock";});
live.onerror=()=>{document.body.dataset.connection="lost";said.textContent="the controller is not answering; trying again";};`

/** The page at `/`: the frame's place, and the script that fills it. */
export const livePage = (): string =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>mesh</title>` +
  `<meta name="viewport" content="width=device-width,initial-scale=1"><style>${style}</style></head>` +
  `<body data-connection="connecting"><p id="said">connecting to the controller…</p><main id="view"></main>` +
  `<script>${script}</script></body></html>`
