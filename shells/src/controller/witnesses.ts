// The controller keeps what each machine's witness says it decided of a core component (seed 003's
// witnessed, rules 003-4, 003-29, 003-33; issue 26): the newest verdict per machine and component,
// from a durable consumer, so what a witness said while the controller was down is read later. What
// a verdict does is the core's program keepWitness; the gate judges with what is kept, and its probe
// says each as a condition.
import { keepWitness } from "@mesh-core/core/gate/messages/witnesses"
import { Effect } from "effect"
import { MeshBus } from "../bus/mesh-bus.ts"
import { type DeliveryNames, deliveryNames } from "../bus/delivery-names.ts"
import { ControllerSettings } from "../config.ts"
import { termWorker } from "../lease/holding.ts"
import { say } from "../journal.ts"
import { observeIfWatched } from "../metrics/loop.ts"
import { witnessAnswers } from "../gate/message-answers.ts"
import { makeOutage } from "../retry.ts"
import { followForever, keepEachInTransaction, whenItAnswers } from "../followers/in-transaction.ts"

const witnessFollower = Effect.fn("Witnesses.follow")(function* (names: DeliveryNames) {
  const bus = yield* MeshBus
  const answers = yield* witnessAnswers
  const outage = yield* makeOutage("controller")
  const follower = yield* whenItAnswers(
    outage,
    bus.assertDeliveryStreams(names).pipe(
      Effect.andThen(
        bus.follow({
          stream: names.witnesses,
          durable: "controller-witnesses",
          subjects: [names.witnessSubject("*")],
          eventOf: (s) => s,
          what: "follow the machines' witnesses",
        }),
      ),
    ),
  )
  yield* say(`[controller] following what the machines' witnesses decided from stream ${names.witnesses}`)
  return yield* followForever({
    outage,
    loop: "witnesses",
    follower,
    max: 100,
    keep: (batch) =>
      keepEachInTransaction(
        outage,
        "witnesses",
        batch,
        (d) => ({ input: { fact: "witness", message: d.heard }, program: keepWitness(d.heard) }),
        answers,
        (outcome) => observeIfWatched({ kind: "machine-message", what: "witness", outcome }),
      ),
  })
})

/** The witness follower as a worker of the term under the lease. */
export const WitnessFollowerLive = termWorker(
  "witnesses",
  Effect.gen(function* () {
    return yield* witnessFollower(deliveryNames((yield* ControllerSettings).busPrefix))
  }),
)
