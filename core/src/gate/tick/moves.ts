// What moves a plan on, as the tick and a person's verb both do (issue 9): its tier sent, the next
// tier after a pass, the last tier's verdict kept once per build and the rest sent until every machine
// has it, or the failure's rollback decided in the seed's order and sent until every machine it puts
// back has it.
import { ComponentController, coreComponent, type Decided, gateProbe, short } from "../judging/facts.ts"
import type { Gate } from "../judging/judge.ts"
import { gateObservation } from "../judging/observations.ts"
import {
  afterRestSend,
  afterRollbackSend,
  afterTierPass,
  afterTierSend,
  everyMachine,
  putBackLeft,
  retryAfter,
  sentOf,
  tierMachines,
  tierGate,
  tierSent,
  tiersOf,
  tierWord,
  unsentOf,
} from "../plan/plan.ts"
import { formatDuration } from "../../duration.ts"
import {
  batchRollbacks,
  keptBuilds,
  notAmongKept,
  notPutBackWhy,
  type PreviousBuild,
  type VerdictRecorded,
  rollbackDecided,
  unchangedBy,
} from "./rollback.ts"
import { type Program, programsOf } from "../../program.ts"
import { carriedBack, carriedVerdicts, sayRollback, sayVerdict, tierMovedWords, verdictOf } from "./carried.ts"
import { putBackOnlyIfItReads } from "./schema-reach.ts"
import { type MoveQuestions, moveQuestions, tierSend } from "./questions.ts"
import type { BuildRecord, PlanRecord, Sent } from "../plan/records.ts"

const { ask, say } = programsOf(moveQuestions)

// A gate is opened when its tier has been sent; a row without one (kept before tiers) was sent at
// the release, and a later tier's when it was last sent.
export const gateOfPlan = (plan: PlanRecord): Gate =>
  plan.gate ?? tierGate(plan, (plan.tier ?? 0) > 0 ? (plan.triedAt ?? plan.sentAt) : plan.sentAt)

/** The tick's clock, and the gate's `every`, which the retry policy counts in. */
export interface When {
  readonly now: number
  readonly every: number
}

/** Machines as a sentence says them; an abort before any was sent reaches none. */
const machinesWord = (ms: ReadonlyArray<string>) =>
  ms.length === 0 ? "no machine (none had been sent it)" : ms.join(", ")

/** The machines a send has not reached yet, why, and when the retry policy sends to them again. */
const unsentWords = (left: ReadonlyArray<string>, sent: Sent, p: PlanRecord, t: When) =>
  `${left.join(", ")} not sent yet (${sent.error ?? "not told"}); sent again in ${formatDuration(retryAfter(p.tries ?? 0, t.every))}, ${p.tries ?? 0} tr${p.tries === 1 ? "y" : "ies"} so far`

/** The plan as a move left it, with its note, said. */
function* noted(plan: PlanRecord, next: PlanRecord, note: string): Program<MoveQuestions, PlanRecord> {
  yield* say(`[gate] ${plan.id}: ${note}`)
  return { ...next, note }
}

/** Where a plan of more than one tier is: " in tier 2". */
const inTier = (p: PlanRecord) => (tiersOf(p).length > 1 ? ` in ${tierWord(p)}` : "")

const failedWords = (p: PlanRecord, g: Pick<Gate, "machines" | "why">) =>
  `${p.module} failed its gate${inTier(p)} on ${g.machines.join(", ")}: ${g.why}`

export function* savePlan(was: PlanRecord, next: PlanRecord): Program<MoveQuestions, void> {
  if (next === was) return
  const saved = yield* ask({ q: "save-plan", plan: next })
  if (!saved.ok) yield* say(`[gate] ${was.id}: the plan could not be kept: ${saved.why}`)
}

/** A tier sent (or the machines of it not sent yet, again); once every one has it, its gate opens. */
export function* sendTier(plan: PlanRecord, t: When): Program<MoveQuestions, PlanRecord> {
  // Never empty: a tier is sent only while some machine of it is not (tierSent), and tiers are disjoint.
  const machines = tierMachines(plan).filter((m) => !sentOf(plan).includes(m))
  const sent = yield* ask(tierSend(plan, machines))
  const next = { ...afterTierSend(plan, sent.told, sent), triedAt: t.now }
  const on = tierMachines(next).join(", ")
  if (!tierSent(next)) {
    const left = tierMachines(next).filter((m) => !sentOf(next).includes(m))
    return yield* noted(plan, next, `${tierWord(next)}: ${unsentWords(left, sent, next, t)}`)
  }
  const note = `${next.module} ${next.build} sent to ${tierWord(next)} (${on}); the gate judges it there${tierMovedWords(next)}`
  // A new gate: time paused before it is not its own.
  const { pausedFor: _paused, ...fresh } = next
  return yield* noted(plan, { ...fresh, gate: tierGate(next, t.now) }, note)
}

/**
 * A tier that is not the last passed: the next is sent, and judged in turn. Undefined when the plan
 * could not be kept: nothing is saved, and the next judging passes the tier again, rather than a
 * passed tier kept without its next tier sent, which no judging would move on.
 */
export function* nextTier(plan: PlanRecord, g: Gate, t: When): Program<MoveQuestions, PlanRecord | undefined> {
  yield* carriedVerdicts(plan, g, t.now, "passed")
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
): Program<MoveQuestions, PlanRecord | undefined> {
  const kept = yield* ask({ q: "record-verdict", verdict: verdictOf(plan, g, "passed", "") })
  if (!kept.ok) {
    yield* say(`[gate] ${plan.id}: its verdict could not be kept, so nothing is acted on yet: ${kept.why}`)
    return undefined
  }
  if (kept.mine) yield* sayVerdict(plan, g, "passed", t.now)
  if (!kept.mine && (yield* leftBy(plan, "passed", t)) !== "resume") return undefined
  yield* carriedVerdicts(plan, g, t.now, "passed")
  for (const rollback of ["rolled-back", "not-rolled-back"]) {
    const o = gateObservation(plan.module, g.component, g.machines, rollback, "", "", plan.commit, plan.previous)
    yield* ask({ q: "clear-condition", key: o.key, by: gateProbe })
  }
  const sending = afterTierPass(plan)
  const note =
    said ?? `${plan.module} passed its gate${inTier(plan)} on ${g.machines.join(", ")} (${g.why}); the rest are sent`
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
function* carryUserList(plan: PlanRecord): Program<MoveQuestions, void> {
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
export function* sendRest(plan: PlanRecord, t: When): Program<MoveQuestions, PlanRecord> {
  const left = unsentOf(plan)
  if (left.length === 0) return plan.state === "passed" ? plan : { ...plan, state: "passed" }
  const sent = yield* ask({ q: "send-plan", plan: plan.id, module: plan.module, why: "rest", machines: left })
  const next = { ...afterRestSend(plan, sent.told), triedAt: t.now }
  const note =
    next.state === "passed"
      ? `${plan.module} ${plan.build} passed its gate and every machine of the plan has it (${everyMachine(next).join(", ")})`
      : `passed; sending the rest: ${unsentWords(unsentOf(next), sent, next, t)}`
  return yield* noted(plan, next, note)
}

/**
 * A failure: the rollback decided in the seed's order, saved, then carried out and said. Undefined
 * when the verdict is another controller's to act on.
 */
export function* failed(plan: PlanRecord, g: Gate, t: When): Program<MoveQuestions, PlanRecord | undefined> {
  const now = t.now
  const reached = sentOf(plan)
  const wanted = plan.previousBuild === undefined ? [plan.build] : [plan.build, plan.previousBuild]
  const builds = yield* ask({ q: "builds", builds: wanted })
  const known = builds.ok ? builds.value : []
  const newBuild = known.find((b) => b.build === plan.build)
  const prev = known.find((b) => b.build === plan.previousBuild)
  const unchanged = unchangedBy(plan.previous, plan.commit, prev, newBuild)
  const d = yield* rollbackDecided({ ...plan, machines: g.machines }, g.why, unchanged, {
    recorded: () => verdictKeptFailed(plan, g, t),
    previousBuild: () => previousKept(plan, prev),
  })
  if (d === "ended") {
    const note = `${plan.module} failed its gate on ${g.machines.join(", ")}: ${g.why}; its rollback was already made once and is not made again`
    return { ...plan, state: "failed", note }
  }
  const failedNote = failedWords(plan, g)
  if (d.rollback === "already-kept") return undefined
  if (d.rollback === "unchanged" || d.rollback === "not-rolled-back") {
    // Nothing is put back: a send that changed nothing is left as it was, and a build that cannot be
    // put back is said for a person.
    if (d.rollback === "not-rolled-back") {
      // Kept on the build's verdict only when that verdict was kept: not for a plan that does not know
      // its build, nor for a verdict the store refused (seed 003's notBack alone calls SetRollback).
      if (d.recordIt)
        yield* ask({
          q: "set-rollback",
          build: plan.build,
          rollback: "not-rolled-back",
          why: notPutBackWhy(g.why, d.said),
        })
      yield* sayRollback(plan, g, "not-rolled-back", d.said, now)
    }
    yield* say(`[gate] ${plan.id}: ${d.rollback === "unchanged" ? "" : `${failedNote}; `}${d.said}`)
    return {
      ...plan,
      state: "failed",
      gate: { ...g, rollback: d.rollback },
      note: `${failedNote}; ${d.said}`,
    }
  }
  // Every machine the plan reached, in one send per machine (issue 281); a three-tier plan that fails
  // in its second tier puts back the first two tiers' machines, and never sends the third.
  const machines = batchRollbacks([{ module: plan.module, machines: reached, build: d.build }]).map((s) => s.machine)
  const rolling: PlanRecord = {
    ...plan,
    state: "rolling-back",
    gate: { ...g, rollback: "rolling-back" },
    tries: 0,
    triedAt: now,
    putBack: { build: d.build, commit: d.commit, machines, sent: [] },
    note: `${failedNote}; putting back ${short(d.commit)} (${d.build}) on ${machinesWord(machines)}${carriedBack(plan)}`,
  }
  const saved = yield* ask({ q: "save-plan", plan: rolling })
  if (!saved.ok) yield* say(`[gate] ${plan.id}: the plan could not be kept before its rollback is sent: ${saved.why}`)
  yield* carriedVerdicts(plan, g, now, "failed")
  const o = gateObservation(plan.module, g.component, g.machines, "rolling-back", g.why, "", plan.commit, plan.previous)
  yield* ask({ q: "raise-condition", observation: o, at: now })
  yield* say(`[gate] ${plan.id}: ${rolling.note}`)
  return yield* sendRollback(rolling, t)
}

/**
 * The failed verdict kept as the rollback asks it: recorded by this controller (or by one that stopped
 * before it moved the plan on), already kept by another, not kept (why), or the plan already acted on
 * to its end.
 */
function* verdictKeptFailed(plan: PlanRecord, g: Gate, t: When): Program<MoveQuestions, VerdictRecorded | "ended"> {
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
function* previousKept(plan: PlanRecord, prev: BuildRecord | undefined): Program<MoveQuestions, PreviousBuild> {
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
function* leftBy(plan: PlanRecord, verdict: Decided, t: When): Program<MoveQuestions, "resume" | "ended" | undefined> {
  const kept = yield* ask({ q: "verdict-of", build: plan.build })
  const found = kept.ok ? kept.value : undefined
  if (found === undefined || found === null) return undefined
  const v = found.verdict
  if (v.plan !== plan.id || v.verdict !== verdict) return undefined
  // Kept within the last `every`: whoever kept it is moving the plan on now.
  if (t.now - found.keptAt < t.every) return undefined
  yield* say(`[gate] ${plan.id}: its verdict (${verdict}) was kept and the plan left open; it is moved on from here`)
  return verdict === "passed" || v.rollback === "rolling-back" ? "resume" : "ended"
}

/** The rollback sent, and sent again, until every machine it puts back has it; then said. */
export function* sendRollback(plan: PlanRecord, t: When): Program<MoveQuestions, PlanRecord> {
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
  const next = { ...afterRollbackSend(plan, sent.told), triedAt: t.now }
  const g = plan.gate
  if (next.state === "rolling-back") {
    const note = `putting back ${short(b.commit)} (${b.build}): ${unsentWords(putBackLeft(next), sent, next, t)}`
    return yield* noted(plan, next, note)
  }
  yield* ask({ q: "set-rollback", build: plan.build, rollback: "rolled-back" })
  const said =
    b.machines.length === 0
      ? `put back to ${short(b.commit)} (${b.build}) in the records; no machine had been sent it`
      : `put back to ${short(b.commit)} (${b.build}) on ${b.machines.join(", ")}, in one send per machine${carriedBack(plan)}`
  if (g !== undefined) yield* sayRollback(plan, g, "rolled-back", "", t.now)
  const note = `${failedWords(plan, g ?? { machines: [], why: "" })}; ${said}`
  return yield* noted(plan, g === undefined ? next : { ...next, gate: { ...g, rollback: "rolled-back" } }, note)
}
