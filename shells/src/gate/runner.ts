// The gate runner: as things happen, runs the core's gate program (core/src/gate/tick/tick.ts) and
// answers each question it asks with the gate's answers (answers.ts): the store's plans, conditions,
// verdicts and builds, the bus's discovery and events, sends through the delivery shell. What to judge, what a
// verdict means, how a rollback ends and what is said are the program's; this only reads, writes,
// sends and waits (issue 8). A store that cannot give the open plans ends the tick with a typed
// failure, never a defect (issue 14: it used to end serve): the core says it once, and the runner
// waits under untilItAnswers until the store answers; every later read or act that fails is
// answered to the program as not done, with why, as the catalogue says.
import { gateTick } from "@mesh-core/core/gate/tick/tick"
import type { GateSettings } from "@mesh-core/core/gate/judging/judge"
import { type GateWake, lookAt, readsPlansFirst, worthAPass } from "@mesh-core/core/gate/plan/wake"
import type { PlanRecord } from "@mesh-core/core/gate/plan/records"
import { Clock, Duration, Effect, Layer, Option } from "effect"
import { GateWakes } from "../followers/wakes.ts"
import { GateTurn } from "./turn.ts"
import { watchedPass } from "../metrics/loop.ts"
import { ControllerRecorder } from "../program/recorder.ts"
import { drive } from "../program/drive.ts"
import { storeFailedOnce } from "../followers/in-transaction.ts"
import { say } from "../journal.ts"
import { makeOutage, untilItAnswers } from "../retry.ts"
import { TickAnswers } from "./answers.ts"
import { ControllerSettings } from "../config.ts"
import { termWorker } from "../lease/holding.ts"

/**
 * Moves the plans in flight on events until interrupted (core/src/gate/plan/wake.ts; seed 004, ADR 0406 §5,
 * issue 974): first every plan (this controller has just taken the lease), then, each time something
 * wakes the gate or a wake-up it scheduled falls due, the plans that touches. Each judging recorded
 * with what woke it and its answers. What was heard runs a pass only when the core finds it worth one
 * over the plans the last pass left (worthAPass): nothing is read, nor recorded, while nothing changed.
 */
const gateRunner = Effect.fn("Gate.run")(function* (settings: GateSettings) {
  const handlers = yield* TickAnswers
  const recorder = yield* ControllerRecorder
  const outage = yield* makeOutage("gate")
  const turn = yield* GateTurn
  const wakes = yield* GateWakes
  yield* say(
    `[gate] judging open plans as things happen (settle ${settings.settle}ms, bound ${settings.bound}ms, ${settings.passes} passes ${settings.every}ms apart)`,
  )
  // A program is a generator, run once: each wake makes its own.
  const judge = (woke: ReadonlyArray<GateWake>) =>
    turn
      .one(
        Effect.suspend(() => drive(gateTick(settings, woke), handlers)).pipe(
          Effect.tap((d) => recorder.record({ fact: "tick", wakes: woke }, d.answers)),
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
  let woke: ReadonlyArray<GateWake> = [{ kind: "lease" }]
  for (;;) {
    const d = yield* watchedPass("gate", judge(woke))
    // Plans that could not be read are looked at again under the retry policy, as every plan.
    woke = d.result.unread === undefined ? [] : [{ kind: "lease" }]
    if (d.result.unread !== undefined) yield* Effect.sleep(Duration.millis(settings.every))
    let plans: ReadonlyArray<PlanRecord> = d.result.plans ?? []
    let at = lookAt(d.result.wakeAt, yield* Clock.currentTimeMillis, settings)
    while (woke.length === 0) {
      const heard = yield* wakes.next(at)
      const now = yield* Clock.currentTimeMillis
      if (readsPlansFirst(heard, plans)) {
        const read = yield* handlers["plans-in-flight"]({ q: "plans-in-flight" }).pipe(Effect.option)
        plans = Option.match(read, { onNone: () => plans, onSome: (r) => (r.ok ? r.value : plans) })
      }
      woke = worthAPass(heard, plans, now, settings)
      if (woke.length === 0 && heard.some((h) => h.kind === "due")) at = lookAt(undefined, now, settings)
    }
  }
})

/** The gate runner as a worker of the term under the lease, over the gate's answers it gives itself. */
export const GateRunnerLive = termWorker(
  "gate",
  Effect.gen(function* () {
    return yield* gateRunner((yield* ControllerSettings).gate)
  }),
).pipe(Layer.provide(TickAnswers.layer))
