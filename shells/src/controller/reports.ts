// The controller keeps what each machine last reported of a declaration: what `push --behind`,
// `push --wait` and the gate read. From a durable consumer, so reports made while it was down are
// read later. What a report does is the core's program keepReport: kept when newer than the one
// kept, set aside (dead_letters, issue 14) when it cannot be read or kept within the store's limits.
import { keepReport } from "@mesh-core/core/delivery/reports"
import type { deliveryQuestions } from "@mesh-core/core/delivery/questions"
import type { setAsideQuestions } from "@mesh-core/core/standings/questions"
import { Effect } from "effect"
import type { Answers } from "../program/drive.ts"
import type { StoreUnreadable } from "../store/postgres.ts"
import { MeshBus } from "../bus/mesh-bus.ts"
import { type DeliveryNames, deliveryNames } from "../bus/delivery-names.ts"
import { ControllerSettings } from "../config.ts"
import { termWorker } from "../lease/holding.ts"
import { say } from "../journal.ts"
import { observeIfWatched } from "../metrics/loop.ts"
import { deliveryAnswers } from "../delivery/answers.ts"
import { setAsideAnswers } from "../standings/answers.ts"
import { makeOutage } from "../retry.ts"
import { followForever, keepEachInTransaction, whenItAnswers } from "../followers/in-transaction.ts"

const reportsFollower = Effect.fn("Reports.follow")(function* (names: DeliveryNames) {
  const bus = yield* MeshBus
  const answers: Answers<typeof deliveryQuestions & typeof setAsideQuestions, StoreUnreadable, never> = {
    ...(yield* deliveryAnswers),
    ...(yield* setAsideAnswers),
  }
  const outage = yield* makeOutage("controller")
  const follower = yield* whenItAnswers(
    outage,
    bus.assertDeliveryStreams(names).pipe(
      Effect.andThen(
        bus.follow({
          stream: names.reports,
          durable: "controller-reports",
          subjects: [names.reportSubject("*")],
          eventOf: (s) => s,
          what: "follow the machines' reports",
        }),
      ),
    ),
  )
  yield* say(`[controller] following the machines' reports from stream ${names.reports}`)
  return yield* followForever({
    outage,
    loop: "reports",
    follower,
    max: 100,
    keep: (batch) =>
      keepEachInTransaction(
        outage,
        "reports",
        batch,
        (d) => ({ input: { fact: "report", message: d.heard }, program: keepReport(d.heard) }),
        answers,
        (outcome) => observeIfWatched({ kind: "machine-message", what: "report", outcome }),
      ),
  })
})

/** The reports follower as a worker of the term under the lease. */
export const ReportsFollowerLive = termWorker(
  "reports",
  Effect.gen(function* () {
    return yield* reportsFollower(deliveryNames((yield* ControllerSettings).busPrefix))
  }),
)
