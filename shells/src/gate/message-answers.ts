// The machines' messages' answers (issue 39): a health statement and a witness's verdict kept, each
// answered inside the follower's transaction, which a failing store fails whole, so the message comes
// again. Only the questions of each program's own catalogue (core/src/gate/messages/questions.ts).
import { done } from "@mesh-core/core/outcome"
import type { StatementQuestions, WitnessQuestions } from "@mesh-core/core/gate/messages/questions"
import { Effect } from "effect"
import type { Answers } from "../program/drive.ts"
import type { StoreUnreadable } from "../store/postgres.ts"
import { GateStore } from "../store/gate.ts"
import { setAsideAnswers } from "../standings/answers.ts"

/**
 * A machine's health statement kept (core/src/gate/messages/statements.ts), in the follower's transaction:
 * a store that fails any of it fails the whole, and the statement comes again.
 */
export const statementAnswers = Effect.gen(function* () {
  const gates = yield* GateStore
  const answers: Answers<StatementQuestions, StoreUnreadable, never> = {
    ...(yield* setAsideAnswers),
    "kept-statement": (q) => gates.keptStatement(q.machine),
    "write-statement": (q) => Effect.as(gates.writeStatement(q.statement, q.streaks), done),
    "raise-condition": (q) => Effect.as(gates.raiseCondition(q.observation, q.at), done),
    "clear-condition": (q) => Effect.as(gates.clearCondition(q.key, q.by), done),
  }
  return answers
})

/**
 * A machine's witness's verdict kept (core/src/gate/messages/witnesses.ts), in the follower's transaction: a
 * store that fails any of it fails the whole, and the verdict comes again.
 */
export const witnessAnswers = Effect.gen(function* () {
  const gates = yield* GateStore
  const answers: Answers<WitnessQuestions, StoreUnreadable, never> = {
    ...(yield* setAsideAnswers),
    "kept-witness": (q) => gates.keptWitness(q.machine, q.component),
    "write-witness": (q) => Effect.as(gates.writeWitness(q.machine, q.verdict), done),
  }
  return answers
})
