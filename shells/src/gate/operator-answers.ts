// What a person's programs ask, answered (issues 10, 39): the operators' verbs, which carry a plan on
// as the tick does (and whose `lease-holder` serve's verb responder answers from the lease it holds,
// verbs.ts), and `release`, each only the questions of its own catalogue
// (core/src/gate/operator/questions.ts), over the gate's services (answers.ts).
import type { Outcome } from "@mesh-core/core/outcome"
import type { ReleaseQuestions, VerbQuestions } from "@mesh-core/core/gate/operator/questions"
import { Context, Clock, Effect, Layer } from "effect"
import { type DeliveryNames, deliveryNames } from "../bus/delivery-names.ts"
import { ControllerSettings } from "../config.ts"
import type { Answers } from "../program/drive.ts"
import { readOrWhy } from "../read-or-why.ts"
import type { StoreUnreadable } from "../store/postgres.ts"
import { type GateAnswering, gateSay, gateServices, moveAnswers, outcome, plansInFlight, said } from "./answers.ts"

/** The verbs' questions but the lease's: what serve's verb responder is given to answer them with. */
export type VerbBase = Omit<VerbQuestions, "lease-holder">

/**
 * A failed plan opened again (`plans retry`): refused, naming why, when it is no longer failed or
 * another plan of its module is in flight.
 */
const reopenPlan =
  ({ gates, guard }: GateAnswering) =>
  (q: { readonly plan: VerbQuestions["reopen-plan"]["question"]["Type"]["plan"] }) =>
    guard.write(gates.reopenPlan(q.plan)).pipe(
      Effect.map(
        (done): Outcome =>
          done
            ? { ok: true }
            : {
                ok: false,
                why: `plan ${q.plan.id} is no longer failed, or another plan of ${q.plan.module} is in flight`,
              },
      ),
      Effect.catch((e) => Effect.succeed<Outcome>({ ok: false, why: e.message })),
    )

/** The verbs' questions answered, but `lease-holder` (verbs.ts answers it from the lease). */
export const verbAnswers = Effect.fn("Gate.verbAnswers")(function* (
  names: DeliveryNames,
  sayLine: (line: string) => Effect.Effect<void>,
) {
  const s = yield* gateServices(names, sayLine)
  const answers: Answers<VerbBase, StoreUnreadable, never> = {
    ...moveAnswers(s),
    "plans-in-flight": plansInFlight(s),
    "plan-of": (q) => readOrWhy(s.gates.planOf(q.id)),
    "reopen-plan": reopenPlan(s),
  }
  return answers
})

/**
 * The verbs' answers under `serve`, over the gate's services, their sends said as the gate's: built
 * once by its layer and asked by the verb responder, which provides it itself.
 */
export class VerbAnswers extends Context.Service<VerbAnswers, Answers<VerbBase, StoreUnreadable, never>>()(
  "mesh-core/gate/VerbAnswers",
) {
  static readonly layer = Layer.effect(
    VerbAnswers,
    Effect.gen(function* () {
      const names = deliveryNames((yield* ControllerSettings).busPrefix)
      return VerbAnswers.of(yield* verbAnswers(names, yield* gateSay))
    }),
  )
}

/** What `release` asks, answered: the records, a build recorded, its plan saved and its first tier sent. */
export const releaseAnswers = Effect.fn("Gate.releaseAnswers")(function* (
  names: DeliveryNames,
  sayLine: (line: string) => Effect.Effect<void>,
) {
  const s = yield* gateServices(names, sayLine)
  const { gates, delivery, guard } = s
  const moves = moveAnswers(s)
  const answers: Answers<ReleaseQuestions, StoreUnreadable, never> = {
    now: () => Clock.currentTimeMillis,
    "plans-in-flight": plansInFlight(s),
    "verdict-of": moves["verdict-of"],
    "save-plan": moves["save-plan"],
    "set-build": moves["set-build"],
    "send-plan": moves["send-plan"],
    "mesh-records-read": () =>
      readOrWhy(
        said(
          "the mesh's records cannot be read",
          Effect.map(delivery.records, (records) => records ?? null),
        ),
      ),
    "record-build": (q) => outcome(guard.write(said("the build cannot be recorded", gates.recordBuild(q.build)))),
  }
  return answers
})
