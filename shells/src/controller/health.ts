// The controller keeps what each machine's engine states of the health of what it runs (ADR 0240):
// the newest statement per machine, and the module.<module>.<machine>.unhealthy conditions the core
// raises and clears from them (the core's program keepStatement). One rule live and replayed: a
// statement naming a state nobody knows is refused and set aside (dead_letters), never read as
// "unhealthy".
import { keepStatement } from "@mesh-core/core/gate/messages/statements"
import { Effect } from "effect"
import { MeshBus } from "../bus/mesh-bus.ts"
import { type DeliveryNames, deliveryNames } from "../bus/delivery-names.ts"
import { ControllerSettings } from "../config.ts"
import { termWorker } from "../lease/holding.ts"
import { say } from "../journal.ts"
import { observeIfWatched } from "../metrics/loop.ts"
import { statementAnswers } from "../gate/message-answers.ts"
import { makeOutage } from "../retry.ts"
import { followForever, keepEachInTransaction, whenItAnswers } from "../followers/in-transaction.ts"

export const healthFollower = Effect.fn("Health.follow")(function* (names: DeliveryNames) {
  const bus = yield* MeshBus
  const answers = yield* statementAnswers
  const outage = yield* makeOutage("controller")
  const follower = yield* whenItAnswers(
    outage,
    bus.assertDeliveryStreams(names).pipe(
      Effect.andThen(
        bus.follow({
          stream: names.health,
          durable: "controller-health",
          subjects: [names.healthSubject("*")],
          eventOf: (s) => s,
          what: "follow the machines' health",
        }),
      ),
    ),
  )
  yield* say(`[controller] following what the machines state of their health from stream ${names.health}`)
  return yield* followForever({
    outage,
    loop: "health",
    follower,
    max: 100,
    keep: (batch) =>
      keepEachInTransaction(
        outage,
        "statements",
        batch,
        (d) => ({ input: { fact: "statement", message: d.heard }, program: keepStatement(d.heard) }),
        answers,
        (outcome) => observeIfWatched({ kind: "machine-message", what: "statement", outcome }),
      ),
  })
})

/** The health follower as a worker of the term under the lease. */
export const HealthFollowerLive = termWorker(
  "health",
  Effect.gen(function* () {
    return yield* healthFollower(deliveryNames((yield* ControllerSettings).busPrefix))
  }),
)
