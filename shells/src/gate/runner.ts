// The gate runner: on a schedule, runs the core's gate program (core/src/gate/tick.ts) and
// answers each question it asks with the gate's answers (answers.ts): the store's plans, conditions,
// verdicts and builds, the bus's discovery and events, sends through the delivery shell. What to judge, what a
// verdict means, how a rollback ends and what is said are the program's; this only reads, writes,
// sends and waits (issue 8). A store that cannot give the open plans ends the tick with a typed
// failure, never a defect (issue 14: it used to end serve): the core says it once, and the runner
// waits under untilItAnswers until the store answers; every later read or act that fails is
// answered to the program as not done, with why, as the catalogue says.
import { gateTick } from "@mesh-core/core/gate/tick"
import type { GateSettings } from "@mesh-core/core/gate/judge"
import { Duration, Effect, Schedule } from "effect"
import { GateTurn } from "./turn.ts"
import { watchedPass } from "../metrics/loop.ts"
import { ControllerRecorder } from "../program/recorder.ts"
import { drive } from "../program/drive.ts"
import { storeFailedOnce } from "../followers/in-transaction.ts"
import type { DeliveryNames } from "../bus/delivery-names.ts"
import { say } from "../journal.ts"
import { makeOutage, untilItAnswers } from "../retry.ts"
import { gateAnswersSaid } from "./answers.ts"

/** Judges every open plan every `tick` until interrupted; each tick recorded with its answers. */
export const gateRunner = Effect.fn("Gate.run")(function* (names: DeliveryNames, settings: GateSettings, tick: number) {
  const handlers = yield* gateAnswersSaid(names)
  const recorder = yield* ControllerRecorder
  const outage = yield* makeOutage("gate")
  const turn = yield* GateTurn
  yield* say(
    `[gate] judging open plans every ${tick}ms (settle ${settings.settle}ms, bound ${settings.bound}ms, ${settings.passes} passes ${settings.every}ms apart)`,
  )
  // A program is a generator, run once: each tick makes its own.
  const judge = turn
    .one(
      Effect.suspend(() => drive(gateTick(settings), handlers)).pipe(
        Effect.tap((d) => recorder.record({ fact: "tick" }, d.answers)),
      ),
    )
    .pipe(
      // The plans could not be read: the outage said once (and recorded) when it begins, over when they can.
      Effect.tap((d) =>
        d.result.unread === undefined
          ? outage.answered
          : storeFailedOnce(outage, { _tag: "StoreUnreadable", message: d.result.unread }, "tick", 0),
      ),
      Effect.tapError((e) => storeFailedOnce(outage, e, "tick", 0)),
      Effect.retry(untilItAnswers),
    )
  return yield* watchedPass("gate", judge).pipe(Effect.repeat(Schedule.spaced(Duration.millis(tick))))
})
