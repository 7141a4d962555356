// What a plan's tier send carried with its own module (seed 003's Carried and passCarried, rules
// 003-15/17; issue 26). A plan's send composes its machines' whole declarations from the records, so
// another module whose registered build the machine does not run yet goes with it: a build registered
// by `mesh apply`, or the rest of a passed plan a machine was not reached by. Such a module moved
// with the plan's, so the gate judges it there with the plan's (judgeMoves' carried pairs), and when
// the gate passes, each carried build passed with it: its verdict is kept once per build, as any
// verdict is, and said as the event `verdict`. A build that already has a verdict keeps it.
import { type Program, programsOf } from "../../program.ts"
import { keptVerdictEvent, verdictEvent } from "../plan/events.ts"
import { gateObservation, rolledBackEvent } from "../judging/observations.ts"
import { coreComponent, type Decided } from "../judging/facts.ts"
import type { Gate } from "../judging/judge.ts"
import { tierMachines, tierWord } from "../plan/plan.ts"
import { type MoveQuestions, moveQuestions } from "./questions.ts"
import type { CarriedRecord, PlanRecord } from "../plan/records.ts"

const { ask, say } = programsOf(moveQuestions)

/** The verdict a gate gives a plan's build, as `record-verdict` keeps it. */
export const verdictOf = (plan: PlanRecord, g: Gate, verdict: Decided, rollback: string) => ({
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

/** Each carried build once, with the machines it was carried to, in the order first carried. */
export const carriedBuilds = (carried: ReadonlyArray<CarriedRecord>) =>
  [...Map.groupBy(carried, (c) => `${c.module}\u0000${c.build}`).values()].map((same) => ({
    module: same[0]!.module,
    build: same[0]!.build,
    machines: [...new Set(same.map((c) => c.node))],
  }))

/** What a failed gate's note adds of what its send carried: each build, back to the one its machine had. */
export const carriedBack = (p: PlanRecord): string => {
  const back = p.carried?.filter((c) => c.before !== undefined) ?? []
  return back.length === 0
    ? ""
    : `, with what its send carried: ${back.map((c) => `${c.module} ${c.build} → ${c.before} on ${c.node}`).join(", ")}`
}

// Put back only where each machine it was carried to had a build of it before.
const backOn = (carried: ReadonlyArray<CarriedRecord>, b: { readonly module: string; readonly build: string }) =>
  carried.every((c) => c.module !== b.module || c.build !== b.build || c.before !== undefined)

/**
 * A tier's gate decided: every build its sends carried passed with it (seed 003's passCarried), or
 * failed with it and was put back with the plan's module (003-15/17) where its machine had a build.
 */
export function* carriedVerdicts(
  plan: PlanRecord,
  g: Gate,
  at: number,
  verdict: Decided,
): Program<MoveQuestions, void> {
  const carried = plan.carried ?? []
  const builds = carriedBuilds(carried)
  if (builds.length === 0) return
  const records = yield* ask({ q: "builds", builds: builds.map((b) => b.build) })
  for (const b of builds) {
    const commit = (records.ok ? records.value.find((r) => r.build === b.build)?.commit : undefined) ?? ""
    const why = `carried with ${plan.module} ${plan.build} to ${b.machines.join(", ")} and judged with it there; ${verdict} with its gate (${g.why})`
    const component = coreComponent(b.module)
    const rollback = verdict === "passed" ? "" : backOn(carried, b) ? "rolled-back" : "not-rolled-back"
    // The carried build's own, in the order a plan's verdict is kept.
    const own = { ...verdictOf(plan, { ...g, why }, verdict, rollback), ...b, commit, previous: "", component }
    const kept = yield* ask({ q: "record-verdict", verdict: own })
    if (!kept.ok) {
      yield* say(
        `[gate] ${plan.id}: ${b.module} ${b.build} ${verdict} with its gate, and its verdict could not be kept: ${kept.why}`,
      )
      continue
    }
    if (!kept.mine) continue
    yield* say(`[gate] ${plan.id}: ${b.module} ${b.build} ${why}`)
    const body = verdictEvent(at, { ...own, id: plan.id }, { ...own, took: g.took }, verdict)
    yield* publish("verdict", body, `[gate] ${plan.id}: ${b.module} ${b.build}'s verdict (${verdict})`)
  }
}

/** What a tier's note adds when its sends moved more than its module, or left a machine without it. */
export const tierMovedWords = (p: PlanRecord): string => {
  const without =
    (p.without ?? []).length === 0
      ? ""
      : `; ${p.without!.join(", ")} not judged: told a declaration without ${p.module}`
  const carried = carriedBuilds(p.carried ?? [])
  return carried.length === 0
    ? without
    : `${without}; carried with it and judged with it: ${carried.map((b) => `${b.module} ${b.build} on ${b.machines.join(", ")}`).join("; ")}`
}

/**
 * Why a tier's gate has nothing to judge: every machine of it was told a declaration without the
 * module (unassigned from it since the release, or unable to host it). The seed's running filter
 * would judge none and pass on nothing; here the judging could not ask, so it is said, counted as a
 * measurement error and, past the error limit, the plan is paused for a person: never passed on no
 * evidence, never failed for what the build did not do.
 */
export const noneRunsIt = (p: PlanRecord, g: Pick<Gate, "machines">): string | undefined =>
  g.machines.length > 0
    ? undefined
    : `none of ${tierWord(p)}'s machines (${tierMachines(p).join(", ")}) runs ${p.module} any more: each was told a declaration without it, so there is nothing to judge it on`

// What the gate says on the bus and raises as it keeps a verdict or ends a rollback (seed 003, ADR
// 0236; docs/events.md): the `verdict` event, and a rollback's condition with its `rolled-back` event.

/** An event said on the bus; one the bus could not be told is said as `what` that could not be said. */
export function* publish(event: string, body: Record<string, unknown>, what: string): Program<MoveQuestions, void> {
  const told = yield* ask({ q: "publish", event, body })
  if (!told.ok) yield* say(`${what} could NOT be said on the bus: ${told.why}`)
}

/** The event `verdict`, said by the controller whose verdict the store kept: once per build. */
export function* sayVerdict(plan: PlanRecord, g: Gate, verdict: Decided, at: number): Program<MoveQuestions, void> {
  yield* publish("verdict", keptVerdictEvent(at, plan, g, verdict), `[gate] ${plan.id}: its verdict (${verdict})`)
}

/** The condition raised (or kept) and the event `rolled-back` said. */
export function* sayRollback(
  plan: PlanRecord,
  g: Gate,
  rollback: string,
  notWhy: string,
  now: number,
): Program<MoveQuestions, void> {
  const o = gateObservation(plan.module, g.component, g.machines, rollback, g.why, notWhy, plan.commit, plan.previous)
  yield* ask({ q: "raise-condition", observation: o, at: now })
  yield* say(`[gate] ${o.summary}`)
  const body = rolledBackEvent(now, plan.module, { ...g, rollback }, rollback, notWhy, o.key)
  yield* publish("rolled-back", body, `[gate] ${plan.module}'s rollback`)
}
