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
  ComponentController,
  ComponentEngine,
  coreComponent,
  type GateFacts,
  gateProbe,
  type Manifest,
  noManifest,
  short,
} from "../judging/facts.ts"
import { type Gate, type GateSettings, healthBroken, healthGood, judgeMoves, openGate } from "../judging/judge.ts"
import { afterCouldNotAsk, controllerActor, couldNotAsk, errorLimitOf } from "../plan/errors.ts"
import { withEntry } from "../plan/history.ts"
import { verbEvent } from "../plan/events.ts"
import { inputsOfPlan } from "../judging/inputs.ts"
import { gateLine, gateObservation } from "../judging/observations.ts"
import {
  afterRestSend,
  afterRollbackSend,
  afterTierPass,
  afterTierSend,
  carriedPairs,
  everyMachine,
  judgedOn,
  putBackLeft,
  retryAfter,
  sendDue,
  sentOf,
  tierMachines,
  tierSent,
  tiersOf,
  tierWord,
  unsentOf,
} from "../plan/plan.ts"
import { formatDuration } from "../../duration.ts"
import { observationRecord, probe, type Witnesses } from "./probe-tick.ts"
import {
  batchRollbacks,
  buildFactsOf,
  keptBuilds,
  notAmongKept,
  notPutBackWhy,
  type PreviousBuild,
  type RollbackFacts,
  rollbackDecided,
  unchangedBy,
} from "./rollback.ts"
import { type Program, programsOf } from "../../program.ts"
import { sayRollback, sayVerdict } from "./said.ts"
import { noneRunsIt, passCarried, tierMovedWords } from "./carried.ts"
import { putBackOnlyIfItReads } from "./schema-reach.ts"
import { type GateWake, plansWoken, wakeAt } from "../plan/wake.ts"
import { type GateQuestions, gateQuestions } from "../questions.ts"
import { type BuildRecord, gateOf, gateRecordOf, type JudgingWord, type PlanRecord } from "../plan/records.ts"
import { gateFactsOf } from "../judging/facts.ts"

const { ask, say } = programsOf(gateQuestions)

/** What the tick did, for whoever counts: plans judged and the verdicts given (a plan's last tier). */
export interface TickResult {
  readonly judged: number
  readonly verdicts: ReadonlyArray<{ readonly plan: string; readonly verdict: "passed" | "failed" }>
  /** Each judging's outcome (issue 10): what metrics count as judgings by outcome. A dry run's verdict is here, never in `verdicts`. */
  readonly judgings: ReadonlyArray<{ readonly plan: string; readonly word: JudgingWord; readonly dryRun: boolean }>
  /**
   * Why the plans in flight could not be read (issue 14): nothing is judged, sent or probed this tick,
   * and the shell says the outage once, as every worker does (outage.ts), not a line per tick.
   */
  readonly unread?: string
  /** When the next wake-up falls due for the plans in flight (wake.ts); absent when only events move them. */
  readonly wakeAt?: number
}

// A gate is opened when its tier has been sent; a row without one (kept before tiers) was sent at
// the release, and a later tier's when it was last sent.
export const gateOfPlan = (plan: PlanRecord): Gate =>
  plan.gate === undefined
    ? openGate(
        plan.module,
        judgedOn(plan),
        plan.previous,
        plan.commit,
        (plan.tier ?? 0) > 0 ? (plan.triedAt ?? plan.sentAt) : plan.sentAt,
        carriedPairs(plan),
      )
    : gateOf(plan.gate)

/** One tick of the gate: every plan in flight moved on, with the facts read once for all of them. */
export function* gateTick(settings: GateSettings, wakes?: ReadonlyArray<GateWake>): Program<GateQuestions, TickResult> {
  const inFlight = yield* ask({ q: "plans-in-flight" })
  let judged = 0
  const verdicts: Array<TickResult["verdicts"][number]> = []
  const judgings: Array<TickResult["judgings"][number]> = []
  let now: number | undefined
  let witnessesRead: Witnesses | undefined
  // The store away: the probe could read nothing either, so the tick waits for the next.
  if (!inFlight.ok) return { judged, verdicts, judgings, unread: inFlight.why }
  // Moved on events (wake.ts): only the plans the wake touches; without one (a log from before), all.
  const wokenAt = wakes?.some((w) => w.kind === "due") === true ? yield* ask({ q: "now" }) : undefined
  const woken = wakes === undefined ? undefined : plansWoken(wakes, inFlight.value, wokenAt ?? 0, settings)
  const moving = woken === undefined ? inFlight.value : inFlight.value.filter((p) => woken.has(p.id))
  const latest = new Map<string, PlanRecord>()
  function* save(was: PlanRecord, next: PlanRecord): Program<GateQuestions, void> {
    latest.set(was.id, next)
    yield* savePlan(was, next)
  }
  {
    // A paused plan is not judged, sent or moved on (it still holds its machines: it is open).
    const judging = moving.filter((p) => p.state === "open" && tierSent(p) && p.paused === undefined)
    const facts = judging.length === 0 ? undefined : yield* factsFor(judging)
    witnessesRead = facts?.witnesses
    now = facts?.facts.now ?? wokenAt ?? (moving.length === 0 ? undefined : yield* ask({ q: "now" }))
    for (const plan of moving) {
      if (plan.paused !== undefined) continue
      const t: When = { now: now!, every: settings.every }
      const sending =
        plan.state === "sending" || plan.state === "rolling-back" || (plan.state === "open" && !tierSent(plan))
      // Its last send was too recent: the retry policy waits, or another controller is moving it on.
      if (sending && !sendDue(plan, t.now, t.every)) continue
      if (plan.state === "sending") {
        yield* save(plan, yield* sendRest(plan, t))
        continue
      }
      if (plan.state === "rolling-back") {
        yield* save(plan, yield* sendRollback(plan, t))
        continue
      }
      if (plan.state !== "open") continue
      if (!tierSent(plan) || facts === undefined) {
        yield* save(plan, yield* sendTier(plan, t))
        continue
      }
      const gate = gateOfPlan(plan)
      // The time a person paused it is not counted against its bound (issue 10).
      const s = plan.pausedFor === undefined ? settings : { ...settings, bound: settings.bound + plan.pausedFor }
      const pairs = gate.machines.map((node) => ({ module: plan.module, node }))
      const r = judgeMoves(gate, pairs, facts.facts, facts.manifests, s)
      if (!r.judged) continue
      judged += 1
      // A judging that could not ask is a measurement error, not "not healthy": the gate is left as it
      // was, unless what was read beside it is evidence the build is broken. Only what this plan's
      // judging reads counts (003-3, inputs.ts): the lease is no input of a letta plan.
      const known = facts.facts.manifestsUnread === undefined ? facts.manifests : undefined
      const unasked = noneRunsIt(plan, gate) ?? couldNotAsk(facts.facts, inputsOfPlan(plan.module, gate.carried, known))
      if (unasked !== undefined && r.worst !== healthBroken) {
        judgings.push({ plan: plan.id, word: "could-not-ask", dryRun: plan.dryRun === true })
        yield* save(plan, yield* measurementError(plan, unasked, t, errorLimitOf(settings)))
        continue
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
      const judgedPlan: PlanRecord = { ...withEntry(plan, entry), gate: gateRecordOf(r.gate), errors: 0 }
      if (r.gate.verdict === "") {
        yield* save(plan, judgedPlan)
        continue
      }
      // A dry run says what it would have decided, and does nothing of it (issue 10).
      if (plan.dryRun === true) {
        yield* save(plan, yield* dryRunDecided(judgedPlan, r.gate))
        continue
      }
      const last = tiersOf(plan).length - 1 <= (plan.tier ?? 0)
      if (r.gate.verdict === "passed" && !last) {
        yield* save(plan, (yield* nextTier(judgedPlan, r.gate, t)) ?? plan)
        continue
      }
      const next =
        r.gate.verdict === "passed" ? yield* passed(judgedPlan, r.gate, t) : yield* failed(judgedPlan, r.gate, t)
      // Another controller kept this verdict and acts on it: its record of the plan is the one kept.
      if (next === undefined) continue
      verdicts.push({ plan: plan.id, verdict: r.gate.verdict })
      yield* save(plan, next)
    }
  }
  yield* probe(now, witnessesRead)
  const next = wakeAt(
    inFlight.value.map((p) => latest.get(p.id) ?? p),
    settings,
  )
  return { judged, verdicts, judgings, ...(next === undefined ? {} : { wakeAt: next }) }
}

/** The tick's clock, and the gate's `every`, which the retry policy counts in. */
export interface When {
  readonly now: number
  readonly every: number
}

/** Machines as a sentence says them; an abort before any was sent reaches none. */
const machinesWord = (ms: ReadonlyArray<string>) =>
  ms.length === 0 ? "no machine (none had been sent it)" : ms.join(", ")

const retryWords = (p: PlanRecord, t: When) =>
  `sent again in ${formatDuration(retryAfter(p.tries ?? 0, t.every))}, ${p.tries ?? 0} tr${p.tries === 1 ? "y" : "ies"} so far`

export function* savePlan(was: PlanRecord, next: PlanRecord): Program<GateQuestions, void> {
  if (next === was) return
  const saved = yield* ask({ q: "save-plan", plan: next })
  if (!saved.ok) yield* say(`[gate] ${was.id}: the plan could not be kept: ${saved.why}`)
}

/**
 * The facts of one judging: what the runner gathers, the engines' builds and the modules' manifests
 * (so "the node-engine reports the new build" and "the module's tools are served" are judged live).
 */
function* factsFor(
  judging: ReadonlyArray<PlanRecord>,
): Program<
  GateQuestions,
  { readonly facts: GateFacts; readonly manifests: ReadonlyMap<string, Manifest>; readonly witnesses: Witnesses }
> {
  const read0 = gateFactsOf(yield* ask({ q: "gate-facts" }))
  // What the witnesses said, judged with everything else: a witness's verdict since the send breaks it.
  const witnesses = yield* ask({ q: "witness-verdicts" })
  const rolledBack = new Map(read0.rolledBack)
  if (witnesses.ok) {
    for (const [m, list] of Object.entries(witnesses.value))
      rolledBack.set(m, [...(rolledBack.get(m) ?? []), ...list.map((w) => ({ ...w }))])
  }
  const gathered: GateFacts = { ...read0, rolledBack, ...(witnesses.ok ? {} : { witnessesUnread: witnesses.why }) }
  const engines = yield* ask({ q: "engine-builds" })
  const facts: GateFacts = engines.ok
    ? { ...gathered, engines: new Map([...gathered.engines, ...Object.entries(engines.value)]) }
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

/** A tier sent (or the machines of it not sent yet, again); once every one has it, its gate opens. */
function* sendTier(plan: PlanRecord, t: When): Program<GateQuestions, PlanRecord> {
  // Never empty: a tier is sent only while some machine of it is not (tierSent), and tiers are disjoint.
  const machines = tierMachines(plan).filter((m) => !sentOf(plan).includes(m))
  const sent = yield* ask({
    q: "send-plan",
    plan: plan.id,
    module: plan.module,
    why: "tier",
    machines,
    ...(plan.dryRun === true ? { build: plan.build } : {}),
  })
  const next = { ...afterTierSend(plan, sent.told, sent), triedAt: t.now }
  const on = tierMachines(next).join(", ")
  if (!tierSent(next)) {
    const left = tierMachines(next).filter((m) => !sentOf(next).includes(m))
    const note = `${tierWord(next)}: ${left.join(", ")} not sent yet (${sent.error ?? "not told"}); ${retryWords(next, t)}`
    yield* say(`[gate] ${plan.id}: ${note}`)
    return { ...next, note }
  }
  const gate = openGate(next.module, judgedOn(next), next.previous, next.commit, t.now, carriedPairs(next))
  const note = `${next.module} ${next.build} sent to ${tierWord(next)} (${on}); the gate judges it there${tierMovedWords(next)}`
  yield* say(`[gate] ${plan.id}: ${note}`)
  // A new gate: time paused before it is not its own.
  const { pausedFor: _paused, ...fresh } = next
  return { ...fresh, gate: gateRecordOf(gate), note }
}

/**
 * A tier that is not the last passed: the next is sent, and judged in turn. Undefined when the plan
 * could not be kept: nothing is saved, and the next judging passes the tier again, rather than a
 * passed tier kept without its next tier sent, which no judging would move on.
 */
function* nextTier(plan: PlanRecord, g: Gate, t: When): Program<GateQuestions, PlanRecord | undefined> {
  yield* passCarried(plan, g, t.now)
  const moved = { ...afterTierPass(plan), triedAt: t.now }
  yield* say(
    `[gate] ${plan.id}: ${plan.module} passed its gate in ${tierWord(plan)} on ${g.machines.join(", ")} (${g.why}); ${tierWord(moved)} is sent`,
  )
  const saved = yield* ask({ q: "save-plan", plan: moved })
  if (!saved.ok) {
    yield* say(`[gate] ${plan.id}: the plan could not be kept, so ${tierWord(moved)} is not sent yet: ${saved.why}`)
    return undefined
  }
  return yield* sendTier(moved, t)
}

const verdictOf = (plan: PlanRecord, g: Gate, verdict: "passed" | "failed", rollback: string) => ({
  build: plan.build,
  module: plan.module,
  commit: plan.commit,
  previous: plan.previous,
  plan: plan.id,
  machines: g.machines,
  verdict,
  rollback,
  why: g.why,
  component: g.component,
  judgingFrom: g.since,
})

/**
 * The last tier's pass: kept like any verdict, once per build; only the controller whose verdict the
 * store kept acts on it, so two controllers judging at once do not both send the rest. A newer build
 * that passes clears what an earlier one's failure raised. The plan is `sending` until every machine
 * has the build.
 */
export function* passed(
  plan: PlanRecord,
  g: Gate,
  t: When,
  said?: string,
): Program<GateQuestions, PlanRecord | undefined> {
  const kept = yield* ask({ q: "record-verdict", verdict: verdictOf(plan, g, "passed", "") })
  if (!kept.ok) {
    yield* say(`[gate] ${plan.id}: its verdict could not be kept, so nothing is acted on yet: ${kept.why}`)
    return undefined
  }
  if (kept.mine) yield* sayVerdict(plan, g, "passed", t.now)
  if (!kept.mine && (yield* leftBy(plan, "passed", t)) !== "resume") return undefined
  yield* passCarried(plan, g, t.now)
  for (const rollback of ["rolled-back", "not-rolled-back"]) {
    const o = gateObservation(plan.module, g.component, g.machines, rollback, "", "", plan.commit, plan.previous)
    yield* ask({ q: "clear-condition", key: o.key, by: gateProbe })
  }
  const sending = afterTierPass(plan)
  const tiers = tiersOf(plan).length > 1 ? ` in ${tierWord(plan)}` : ""
  const note =
    said ?? `${plan.module} passed its gate${tiers} on ${g.machines.join(", ")} (${g.why}); the rest are sent`
  const saved = yield* ask({ q: "save-plan", plan: { ...sending, note, triedAt: t.now } })
  if (!saved.ok) yield* say(`[gate] ${plan.id}: the plan could not be kept before the rest are sent: ${saved.why}`)
  const sent = yield* sendRest({ ...sending, note }, t)
  if (coreComponent(plan.module) === ComponentController) yield* carryUserList(plan)
  return sent
}

/**
 * The machine holding the bus sent the user list a new controller composes, once that controller
 * passed its gate (seed 003's carryUserList, ADR 0236): the controller's own grants travel in that
 * list, and on 2026-10-06 eight pushes by hand carried a new controller's grant into it. Sent
 * composed with what the plans hold, so no build a plan holds back goes with it (ADR 0221).
 */
function* carryUserList(plan: PlanRecord): Program<GateQuestions, void> {
  const list = yield* ask({ q: "holder-list" })
  if (!list.ok) {
    yield* say(
      `[gate] ${plan.id}: whether the bus's user list is behind the new controller cannot be read: ${list.why}`,
    )
    return
  }
  const holder = list.value.holder
  if (holder === null || !list.value.behind) return
  const sent = yield* ask({ q: "send-plan", plan: plan.id, module: plan.module, why: "user-list", machines: [holder] })
  yield* say(
    sent.told.includes(holder)
      ? `[gate] ${plan.id}: carried the new controller's user list to ${holder}, which holds the bus`
      : `[gate] ${plan.id}: the new controller's user list could not be carried to ${holder}: ${sent.error ?? "not told"} — \`push ${holder}\` carries it`,
  )
}

/** The rest sent, and sent again, until every machine of the plan has the build. */
function* sendRest(plan: PlanRecord, t: When): Program<GateQuestions, PlanRecord> {
  const left = unsentOf(plan)
  if (left.length === 0) return plan.state === "passed" ? plan : { ...plan, state: "passed" }
  const sent = yield* ask({ q: "send-plan", plan: plan.id, module: plan.module, why: "rest", machines: left })
  const next = { ...afterRestSend(plan, sent.told), triedAt: t.now }
  if (next.state === "passed") {
    const note = `${plan.module} ${plan.build} passed its gate and every machine of the plan has it (${everyMachine(next).join(", ")})`
    yield* say(`[gate] ${plan.id}: ${note}`)
    return { ...next, note }
  }
  const still = unsentOf(next)
  const note = `passed; sending the rest: ${still.join(", ")} not sent yet (${sent.error ?? "not told"}); ${retryWords(next, t)}`
  yield* say(`[gate] ${plan.id}: ${note}`)
  return { ...next, note }
}

/**
 * A failure: the rollback decided in the seed's order, saved, then carried out and said. Undefined
 * when the verdict is another controller's to act on.
 */
export function* failed(plan: PlanRecord, g: Gate, t: When): Program<GateQuestions, PlanRecord | undefined> {
  const now = t.now
  const where = tiersOf(plan).length > 1 ? ` in ${tierWord(plan)}` : ""
  const reached = sentOf(plan)
  const move = {
    module: plan.module,
    machines: g.machines,
    build: plan.build,
    previous: plan.previous,
    commit: plan.commit,
  }
  const wanted = plan.previousBuild === undefined ? [plan.build] : [plan.build, plan.previousBuild]
  const builds = yield* ask({ q: "builds", builds: wanted })
  const known = builds.ok ? builds.value : []
  const newBuild = known.find((b) => b.build === plan.build)
  const prev = known.find((b) => b.build === plan.previousBuild)
  const unchanged = unchangedBy(plan.previous, plan.commit, buildFactsOf(plan.commit, newBuild, plan.previous, prev))
  const d = yield* rollbackDecided(move, g.why, unchanged, {
    recorded: () => verdictKeptFailed(plan, g, t),
    previousBuild: () => previousKept(plan, prev),
  })
  if (d === "ended") {
    const note = `${plan.module} failed its gate on ${g.machines.join(", ")}: ${g.why}; its rollback was already made once and is not made again`
    return { ...plan, state: "failed", note }
  }
  const failedNote = `${plan.module} failed its gate${where} on ${g.machines.join(", ")}: ${g.why}`
  if (d.rollback === "already-kept") return undefined
  if (d.rollback === "unchanged") {
    yield* say(`[gate] ${plan.id}: ${d.said}`)
    return {
      ...plan,
      state: "failed",
      gate: gateRecordOf({ ...g, rollback: "unchanged" }),
      note: `${failedNote}; ${d.said}`,
    }
  }
  if (d.rollback === "not-rolled-back") {
    yield* ask({
      q: "set-rollback",
      build: plan.build,
      rollback: "not-rolled-back",
      why: notPutBackWhy(g.why, d.said),
    })
    yield* sayRollback(plan, g, "not-rolled-back", d.said, now)
    yield* say(`[gate] ${plan.id}: ${failedNote}; ${d.said}`)
    return {
      ...plan,
      state: "failed",
      gate: gateRecordOf({ ...g, rollback: "not-rolled-back" }),
      note: `${failedNote}; ${d.said}`,
    }
  }
  // Every machine the plan reached, in one send per machine (issue 281); a three-tier plan that fails
  // in its second tier puts back the first two tiers' machines, and never sends the third.
  const machines = batchRollbacks([{ module: plan.module, machines: reached, build: d.build }]).map((s) => s.machine)
  const rolling: PlanRecord = {
    ...plan,
    state: "rolling-back",
    gate: gateRecordOf({ ...g, rollback: "rolling-back" }),
    tries: 0,
    triedAt: now,
    putBack: { build: d.build, commit: d.commit, machines, sent: [] },
    note: `${failedNote}; putting back ${short(d.commit)} (${d.build}) on ${machinesWord(machines)}`,
  }
  const saved = yield* ask({ q: "save-plan", plan: rolling })
  if (!saved.ok) yield* say(`[gate] ${plan.id}: the plan could not be kept before its rollback is sent: ${saved.why}`)
  const o = gateObservation(plan.module, g.component, g.machines, "rolling-back", g.why, "", plan.commit, plan.previous)
  yield* ask({ q: "raise-condition", observation: observationRecord(o), at: now })
  yield* say(`[gate] ${plan.id}: ${rolling.note}`)
  return yield* sendRollback(rolling, t)
}

/**
 * The failed verdict kept as the rollback asks it: recorded by this controller (or by one that stopped
 * before it moved the plan on), already kept by another, not kept (why), or the plan already acted on
 * to its end.
 */
function* verdictKeptFailed(
  plan: PlanRecord,
  g: Gate,
  t: When,
): Program<GateQuestions, Exclude<RollbackFacts["recorded"], undefined> | "ended"> {
  const kept = yield* ask({ q: "record-verdict", verdict: verdictOf(plan, g, "failed", "rolling-back") })
  if (kept.ok && kept.mine) yield* sayVerdict(plan, g, "failed", t.now)
  const left = kept.ok && !kept.mine ? yield* leftBy(plan, "failed", t) : undefined
  if (left === "ended") return "ended"
  return kept.ok ? (kept.mine || left === "resume" ? "recorded" : "already-kept") : { error: kept.why }
}

/**
 * The build to put back, when it is among the builds kept and, for the controller, when it reads the
 * store as it is now (issue 352, seed 004): a controller built before a migration ran would start
 * against tables it does not know, so it is never put back, and the rollback says why.
 */
function* previousKept(plan: PlanRecord, prev: BuildRecord | undefined): Program<GateQuestions, PreviousBuild> {
  const among =
    prev === undefined
      ? undefined
      : yield* ask({ q: "among-kept", module: plan.module, build: prev.build, kept: keptBuilds })
  if (prev === undefined || among?.ok !== true || !among.value)
    return { found: false, why: notAmongKept(plan.module, plan.previous) }
  const previous: PreviousBuild = { found: true, build: prev.build, commit: prev.commit }
  if (coreComponent(plan.module) !== ComponentController) return previous
  return putBackOnlyIfItReads(plan.module, previous, yield* ask({ q: "store-reach", build: prev.build }))
}

/**
 * A verdict this controller did not keep, on a plan still open: kept by this plan's own judging, by a
 * controller that stopped before it moved the plan on (resumed: the sends it asks again are the same
 * sends), or already acted on to its end (the plan is ended, the rollback not made again); anything
 * else is another's to act on.
 */
function* leftBy(
  plan: PlanRecord,
  verdict: "passed" | "failed",
  t: When,
): Program<GateQuestions, "resume" | "ended" | undefined> {
  const kept = yield* ask({ q: "verdict-of", build: plan.build })
  const found = kept.ok ? kept.value : undefined
  if (found === undefined || found === null) return undefined
  const v = found.verdict
  if (v.plan !== plan.id || v.verdict !== verdict) return undefined
  // Kept within the last `every`: whoever kept it is moving the plan on now.
  if (t.now - found.keptAt < t.every) return undefined
  yield* say(`[gate] ${plan.id}: its verdict (${verdict}) was kept and the plan left open; it is moved on from here`)
  if (verdict === "passed" || v.rollback === "rolling-back") return "resume"
  return "ended"
}

/**
 * A judging that could not ask: counted apart, kept in the history, the gate as it was; after the
 * error limit in a row the plan is paused and said (`plan-paused`, by the controller), never failed.
 */
function* measurementError(plan: PlanRecord, why: string, t: When, limit: number): Program<GateQuestions, PlanRecord> {
  const next = afterCouldNotAsk(plan, why, t.now, limit)
  // Said once, and again when what could not be read changes: not a line per judging.
  if (next.changed || next.paused) yield* say(`[gate] ${plan.id}: ${next.said}`)
  if (next.paused) {
    const told = yield* ask({
      q: "publish",
      event: "plan-paused",
      body: verbEvent("plan-paused", t.now, next.plan, controllerActor, next.plan.paused!.why, next.said),
    })
    if (!told.ok) yield* say(`[gate] ${plan.id}: its pause could NOT be said on the bus: ${told.why}`)
  }
  return next.plan
}

/**
 * A dry run's verdict: said and kept in the plan, nothing of it done — no verdict kept for the build,
 * nothing registered, held, sent further or put back. Its first machines keep the build until the
 * next push composes them from the records again.
 */
function* dryRunDecided(plan: PlanRecord, g: Gate): Program<GateQuestions, PlanRecord> {
  const note =
    `dry run: ${plan.module} ${plan.build} would have ${g.verdict} its gate on ${g.machines.join(", ")} (${g.why}); ` +
    `nothing else is sent, held or put back, and ${g.machines.join(", ")} keep${g.machines.length === 1 ? "s" : ""} it until the next push`
  yield* say(`[gate] ${plan.id}: ${note}`)
  return { ...plan, state: g.verdict === "passed" ? "passed" : "failed", note }
}

/** The rollback sent, and sent again, until every machine it puts back has it; then said. */
function* sendRollback(plan: PlanRecord, t: When): Program<GateQuestions, PlanRecord> {
  const now = t.now
  const b = plan.putBack
  if (b === undefined) return { ...plan, state: "failed" }
  // The registered build back first, every time until it is (a push composes from it).
  const back = yield* ask({ q: "set-build", module: plan.module, build: b.build, commit: b.commit })
  if (!back.ok)
    yield* say(
      `[gate] ${plan.id}: ${plan.module}'s registered build could not be put back to ${b.build} yet: ${back.why}`,
    )
  const left = putBackLeft(plan)
  const sent =
    left.length === 0
      ? { told: [] as ReadonlyArray<string> }
      : yield* ask({ q: "send-plan", plan: plan.id, module: plan.module, why: "rollback", machines: left })
  const next = { ...afterRollbackSend(plan, sent.told), triedAt: now }
  const g = plan.gate === undefined ? undefined : gateOf(plan.gate)
  if (next.state === "rolling-back") {
    const note =
      `putting back ${short(b.commit)} (${b.build}): ${putBackLeft(next).join(", ")} not sent yet (${sent.error ?? "not told"}); ` +
      retryWords(next, t)
    yield* say(`[gate] ${plan.id}: ${note}`)
    return { ...next, note }
  }
  yield* ask({ q: "set-rollback", build: plan.build, rollback: "rolled-back" })
  const said =
    b.machines.length === 0
      ? `put back to ${short(b.commit)} (${b.build}) in the records; no machine had been sent it`
      : `put back to ${short(b.commit)} (${b.build}) on ${b.machines.join(", ")}, in one send per machine`
  if (g !== undefined) yield* sayRollback(plan, g, "rolled-back", "", now)
  const where = tiersOf(plan).length > 1 ? ` in ${tierWord(plan)}` : ""
  const note = `${plan.module} failed its gate${where} on ${g?.machines.join(", ") ?? ""}: ${g?.why ?? ""}; ${said}`
  yield* say(`[gate] ${plan.id}: ${note}`)
  return g === undefined ? { ...next, note } : { ...next, gate: gateRecordOf({ ...g, rollback: "rolled-back" }), note }
}
