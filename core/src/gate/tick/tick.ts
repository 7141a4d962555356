// The release gate as the controller runs it (seed 003, novox/hq ADR 0236): on every tick, each plan
// in flight is moved on with the facts of that tick, and the gate's conditions are kept by its probe.
// Every read and act is a question this program asks, so the live runner and a replayed day run this
// one code path (issue 8).
//
// A plan ends only when every machine has what it decided (issue 9):
//   open          its tier is sent (and re-sent until every machine of it is), then judged there; a
//                 pass sends the next tier, the last tier's pass keeps the verdict once per build;
//   sending       the last tier passed: the rest are sent and re-sent until every machine has the
//                 build (seed 002's errGrants: a send that did not reach a machine is not marked sent,
//                 and is tried again), then `passed`;
//   rolling-back  a tier failed: the rollback is saved before it is sent (a controller that is itself
//                 the build put back does not outlive the send), the registered build is put back, and
//                 the reached machines are sent it until every one has, then `failed`.
import {
  ComponentEngine,
  coreComponent,
  type Decided,
  type GateFacts,
  gateProbe,
  type Manifest,
  noManifest,
  own,
} from "../judging/facts.ts"
import { type Gate, type GateSettings, healthBroken, healthGood, judgeMoves } from "../judging/judge.ts"
import { afterCouldNotAsk, controllerActor, couldNotAsk, errorLimitOf } from "../plan/errors.ts"
import { withEntry } from "../plan/history.ts"
import { verbEvent } from "../plan/events.ts"
import { inputsOfPlan } from "../judging/inputs.ts"
import { gateLine } from "../judging/observations.ts"
import { judging, sendDue, sending, tierSent, tiersOf } from "../plan/plan.ts"
import { keepProbe, probeGates } from "../judging/probe.ts"
import { type AnswerOf, type Program, programsOf } from "../../program.ts"
import { noneRunsIt, publish } from "./carried.ts"
import { type GateWake, plansWoken, wakeAt } from "../plan/wake.ts"
import { type TickQuestions, tickQuestions } from "./questions.ts"
import type { JudgingWord, PlanRecord } from "../plan/records.ts"

import { failed, gateOfPlan, nextTier, passed, savePlan, sendRest, sendRollback, sendTier, type When } from "./moves.ts"

const { ask, say } = programsOf(tickQuestions)

/** What the tick did, for whoever counts: plans judged and the verdicts given (a plan's last tier). */
export interface TickResult {
  readonly judged: number
  readonly verdicts: ReadonlyArray<{ readonly plan: string; readonly verdict: Decided }>
  /** Each judging's outcome (issue 10): what metrics count as judgings by outcome. A dry run's verdict is here, never in `verdicts`. */
  readonly judgings: ReadonlyArray<{ readonly plan: string; readonly word: JudgingWord; readonly dryRun: boolean }>
  /**
   * Why the plans in flight could not be read (issue 14): nothing is judged, sent or probed this tick,
   * and the shell says the outage once, as every worker does (outage.ts), not a line per tick.
   */
  readonly unread?: string
  /** When the next wake-up falls due for the plans in flight (wake.ts); absent when only events move them. */
  readonly wakeAt?: number
  /** The plans in flight as this tick left them: what the runner weighs the next wakes against (wake.ts). */
  readonly plans?: ReadonlyArray<PlanRecord>
}

/** One tick of the gate: every plan in flight moved on, with the facts read once for all of them. */
export function* gateTick(settings: GateSettings, wakes?: ReadonlyArray<GateWake>): Program<TickQuestions, TickResult> {
  const inFlight = yield* ask({ q: "plans-in-flight" })
  let judged = 0
  const verdicts: Array<TickResult["verdicts"][number]> = []
  const judgings: Array<TickResult["judgings"][number]> = []
  // The store away: the probe could read nothing either, so the tick waits for the next.
  if (!inFlight.ok) return { judged, verdicts, judgings, unread: inFlight.why }
  // Moved on events (wake.ts): only the plans the wake touches; without one (a log from before), all.
  const wokenAt = wakes?.some((w) => w.kind === "due") === true ? yield* ask({ q: "now" }) : undefined
  const woken = wakes === undefined ? undefined : plansWoken(wakes, inFlight.value, wokenAt ?? 0, settings)
  const moving = woken === undefined ? inFlight.value : inFlight.value.filter((p) => woken.has(p.id))
  // A paused plan is not judged, sent or moved on (it still holds its machines: it is open).
  const toJudge = moving.filter(judging)
  const facts = toJudge.length === 0 ? undefined : yield* factsFor(toJudge)
  const now = facts?.facts.now ?? wokenAt ?? (moving.length === 0 ? undefined : yield* ask({ q: "now" }))
  const t: When = { now: now!, every: settings.every }
  /** One plan moved on: what to save of it, or undefined when it is left as it was. */
  function* moveOn(plan: PlanRecord): Program<TickQuestions, PlanRecord | undefined> {
    if (plan.paused !== undefined) return undefined
    // Its last send was too recent: the retry policy waits, or another controller is moving it on.
    if (sending(plan) && !sendDue(plan, t.now, t.every)) return undefined
    if (plan.state === "sending") return yield* sendRest(plan, t)
    if (plan.state === "rolling-back") return yield* sendRollback(plan, t)
    if (plan.state !== "open") return undefined
    if (!tierSent(plan) || facts === undefined) return yield* sendTier(plan, t)
    const gate = gateOfPlan(plan)
    // The time a person paused it is not counted against its bound (issue 10).
    const s = plan.pausedFor === undefined ? settings : { ...settings, bound: settings.bound + plan.pausedFor }
    const pairs = gate.machines.map((node) => ({ module: plan.module, node }))
    const r = judgeMoves(gate, pairs, facts.facts, facts.manifests, s)
    if (!r.judged) return undefined
    judged += 1
    // A judging that could not ask is a measurement error, not "not healthy": the gate is left as it
    // was, unless what was read beside it is evidence the build is broken. Only what this plan's
    // judging reads counts (003-3, inputs.ts): the lease is no input of a letta plan.
    const known = facts.facts.manifestsUnread === undefined ? facts.manifests : undefined
    const unasked = noneRunsIt(plan, gate) ?? couldNotAsk(facts.facts, inputsOfPlan(plan.module, gate.carried, known))
    if (unasked !== undefined && r.worst !== healthBroken) {
      judgings.push({ plan: plan.id, word: "could-not-ask", dryRun: plan.dryRun === true })
      return yield* measurementError(plan, unasked, t, errorLimitOf(settings))
    }
    yield* say(`[gate] ${plan.id}: ${plan.module}: ${gateLine(r.gate, s)}`)
    const word = r.worst === healthGood ? "healthy" : r.worst === healthBroken ? "broken" : "not-yet"
    judgings.push({ plan: plan.id, word, dryRun: plan.dryRun === true })
    const entry = {
      kind: "judging",
      at: t.now,
      tier: plan.tier ?? 0,
      word,
      why: r.gate.verdict === "" ? r.why : r.gate.why,
      passes: r.gate.passes,
      ...(r.gate.verdict === "" ? {} : { decided: r.gate.verdict }),
    } as const
    const judgedPlan: PlanRecord = { ...withEntry(plan, entry), gate: r.gate, errors: 0 }
    if (r.gate.verdict === "") return judgedPlan
    // A dry run says what it would have decided, and does nothing of it (issue 10).
    if (plan.dryRun === true) return yield* dryRunDecided(judgedPlan, r.gate)
    const last = tiersOf(plan).length - 1 <= (plan.tier ?? 0)
    if (r.gate.verdict === "passed" && !last) return yield* nextTier(judgedPlan, r.gate, t)
    const next =
      r.gate.verdict === "passed" ? yield* passed(judgedPlan, r.gate, t) : yield* failed(judgedPlan, r.gate, t)
    // Another controller kept this verdict and acts on it: its record of the plan is the one kept.
    if (next !== undefined) verdicts.push({ plan: plan.id, verdict: r.gate.verdict })
    return next
  }
  const latest = new Map<string, PlanRecord>()
  for (const plan of moving) {
    const next = yield* moveOn(plan)
    if (next === undefined) continue
    latest.set(plan.id, next)
    yield* savePlan(plan, next)
  }
  yield* probe(now, facts?.witnesses)
  const plans = inFlight.value.map((p) => latest.get(p.id) ?? p)
  const next = wakeAt(plans, settings)
  return { judged, verdicts, judgings, plans, ...(next === undefined ? {} : { wakeAt: next }) }
}

/**
 * The facts of one judging: what the runner gathers, the engines' builds and the modules' manifests
 * (so "the node-engine reports the new build" and "the module's tools are served" are judged live).
 */
function* factsFor(
  judging: ReadonlyArray<PlanRecord>,
): Program<
  TickQuestions,
  { readonly facts: GateFacts; readonly manifests: ReadonlyMap<string, Manifest>; readonly witnesses: Witnesses }
> {
  const read0 = yield* ask({ q: "gate-facts" })
  // What the witnesses said, judged with everything else: a witness's verdict since the send breaks it.
  const witnesses = yield* ask({ q: "witness-verdicts" })
  const heard = Object.entries(witnesses.ok ? witnesses.value : {})
  const rolledBack = Object.fromEntries([
    ...Object.entries(read0.rolledBack),
    ...heard.map(([m, list]) => [m, [...(own(read0.rolledBack, m) ?? []), ...list]] as const),
  ])
  const gathered: GateFacts = { ...read0, rolledBack, ...(witnesses.ok ? {} : { witnessesUnread: witnesses.why }) }
  const engines = yield* ask({ q: "engine-builds" })
  const facts: GateFacts = engines.ok
    ? { ...gathered, engines: { ...gathered.engines, ...engines.value } }
    : { ...gathered, enginesUnread: engines.why }
  const modules = [...new Set(judging.map((p) => p.module))].sort()
  const read = yield* ask({ q: "manifests", modules })
  const manifests = new Map<string, Manifest>()
  for (const p of judging) {
    const m = read.ok ? (read.value[p.module] ?? noManifest) : noManifest
    // The engine's new build is the plan's own when its manifest names none it delivers.
    const engine = coreComponent(p.module) === ComponentEngine && m.deliveredVersions.length === 0
    manifests.set(p.module, engine ? { ...m, deliveredVersions: [p.build] } : m)
  }
  return { facts: read.ok ? facts : { ...facts, manifestsUnread: read.why }, manifests, witnesses }
}

/**
 * A judging that could not ask: counted apart, kept in the history, the gate as it was; after the
 * error limit in a row the plan is paused and said (`plan-paused`, by the controller), never failed.
 */
function* measurementError(plan: PlanRecord, why: string, t: When, limit: number): Program<TickQuestions, PlanRecord> {
  const next = afterCouldNotAsk(plan, why, t.now, limit)
  // Said once, and again when what could not be read changes: not a line per judging.
  if (next.changed || next.paused) yield* say(`[gate] ${plan.id}: ${next.said}`)
  if (next.paused) {
    const body = verbEvent("plan-paused", t.now, next.plan, controllerActor, next.plan.paused!.why, next.said)
    yield* publish("plan-paused", body, `[gate] ${plan.id}: its pause`)
  }
  return next.plan
}

/**
 * A dry run's verdict: said and kept in the plan, nothing of it done — no verdict kept for the build,
 * nothing registered, held, sent further or put back. Its first machines keep the build until the
 * next push composes them from the records again.
 */
function* dryRunDecided(plan: PlanRecord, g: Gate): Program<TickQuestions, PlanRecord> {
  const note =
    `dry run: ${plan.module} ${plan.build} would have ${g.verdict} its gate on ${g.machines.join(", ")} (${g.why}); ` +
    `nothing else is sent, held or put back, and ${g.machines.join(", ")} keep${g.machines.length === 1 ? "s" : ""} it until the next push`
  yield* say(`[gate] ${plan.id}: ${note}`)
  return { ...plan, state: g.verdict === "passed" ? "passed" : "failed", note }
}

// The gate's probe as the tick runs it (seed 003's probeGates): each failed build's condition kept,
// each one no verdict or witness holds any more cleared, nothing cleared on what could not be read.
/** The gate's probe (seed 003's probeGates), on every tick: each failed build's condition kept. */
export type Witnesses = AnswerOf<TickQuestions, "witness-verdicts">

function* probe(known: number | undefined, read: Witnesses | undefined): Program<TickQuestions, void> {
  const latest = yield* ask({ q: "latest-verdicts" })
  const witnesses = read ?? (yield* ask({ q: "witness-verdicts" }))
  const open = yield* ask({ q: "probe-conditions", source: gateProbe })
  const unread = [latest, witnesses, open].flatMap((r) => (r.ok ? [] : [r.why]))
  if (unread.length > 0)
    yield* say(
      `[gate] the gate's probe could not read everything, so it clears nothing this time: ${unread.join("; ")}`,
    )
  const found = probeGates(latest.ok ? latest.value : [], new Map(witnesses.ok ? Object.entries(witnesses.value) : []))
  const keep = keepProbe(found, open.ok ? open.value : [], unread.length === 0)
  if (keep.raise.length === 0 && keep.clear.length === 0) return
  const now = known ?? (yield* ask({ q: "now" }))
  for (const o of keep.raise) yield* ask({ q: "raise-condition", observation: o, at: now })
  for (const key of keep.clear) yield* ask({ q: "clear-condition", key, by: gateProbe })
}
