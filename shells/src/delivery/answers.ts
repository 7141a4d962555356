// Delivery's answers (issue 25): each question of core/src/delivery/questions.ts answered with the
// delivery store. The machines' reports are kept inside the follower's transaction (a store that
// fails it keeps nothing, and the report comes again).
import type { deliveryQuestions } from "@mesh-core/core/delivery/questions"
import { done } from "@mesh-core/core/outcome"
import { Effect } from "effect"
import type { Answers } from "../program/drive.ts"
import { DeliveryStore } from "../store/delivery.ts"
import type { StoreUnreadable } from "../store/postgres.ts"

export const deliveryAnswers = Effect.gen(function*() {
  const delivery = yield* DeliveryStore
  const answers: Answers<typeof deliveryQuestions, StoreUnreadable, never> = {
    "kept-report": (q) => delivery.keptReport(q.node),
    "write-report": (q) => Effect.as(delivery.writeReport(q.report), done),
  }
  return answers
})
