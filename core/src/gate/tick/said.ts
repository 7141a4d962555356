// What the gate says on the bus and raises as it keeps a verdict or ends a rollback (seed 003, ADR
// 0236; docs/events.md): the `verdict` event, and a rollback's condition with its `rolled-back` event.
import { type Program, programsOf } from "../../program.ts"
import type { Gate } from "../judging/judge.ts"
import { keptVerdictEvent } from "../plan/events.ts"
import { gateObservation, rolledBackEvent } from "../judging/observations.ts"
import { type MoveQuestions, moveQuestions } from "./questions.ts"
import type { PlanRecord } from "../plan/records.ts"

const { ask, say } = programsOf(moveQuestions)

/** The event `verdict`, said by the controller whose verdict the store kept: once per build. */
export function* sayVerdict(
  plan: PlanRecord,
  g: Gate,
  verdict: "passed" | "failed",
  at: number,
): Program<MoveQuestions, void> {
  const told = yield* ask({ q: "publish", event: "verdict", body: keptVerdictEvent(at, plan, g, verdict) })
  if (!told.ok) yield* say(`[gate] ${plan.id}: its verdict (${verdict}) could NOT be said on the bus: ${told.why}`)
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
  const told = yield* ask({
    q: "publish",
    event: "rolled-back",
    body: rolledBackEvent(now, plan.module, { ...g, rollback }, rollback, notWhy, o.key),
  })
  if (!told.ok) yield* say(`[gate] ${plan.module}'s rollback could NOT be said on the bus: ${told.why}`)
}
