// What the gate says on the bus and raises as it keeps a verdict or ends a rollback (seed 003, ADR
// 0236; docs/events.md): the `verdict` event, and a rollback's condition with its `rolled-back` event.
import { type Program, programsOf } from "../../program.ts"
import type { Gate } from "../judging/judge.ts"
import { keptVerdictEvent } from "../plan/events.ts"
import { gateObservation, rolledBackEvent } from "../judging/observations.ts"
import { type MoveQuestions, moveQuestions } from "./questions.ts"
import type { PlanRecord } from "../plan/records.ts"

const { ask, say } = programsOf(moveQuestions)

/** An event said on the bus; one the bus could not be told is said as `what` that could not be said. */
export function* publish(event: string, body: Record<string, unknown>, what: string): Program<MoveQuestions, void> {
  const told = yield* ask({ q: "publish", event, body })
  if (!told.ok) yield* say(`${what} could NOT be said on the bus: ${told.why}`)
}

/** The event `verdict`, said by the controller whose verdict the store kept: once per build. */
export function* sayVerdict(
  plan: PlanRecord,
  g: Gate,
  verdict: "passed" | "failed",
  at: number,
): Program<MoveQuestions, void> {
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
