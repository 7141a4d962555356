// `push`: sends machines everything they should be. The push is a program of the delivery area
// (core/src/delivery/push.ts): which machines, in which order, what each is, what a grant refusal
// holds back, what the release plans hold, which machines a named push flushes are its decisions.
// This drives it with the one driver (shells/src/program/drive.ts) and answers each question over
// the store and the bus (answers.ts); the answers it got are handed back for a recording.
import {
  holderListBehind,
  pushProgram,
  type PushAsk,
  type PushEnd,
  type PushResult,
} from "@mesh-core/core/delivery/push"
import { indexRecords } from "@mesh-core/core/delivery/compose"
import { Data, Effect } from "effect"
import { Journal } from "../journal.ts"
import { type Answered, drive } from "../program/drive.ts"
import { pushAnswers, type PushServices, pushServices, viaStore } from "./answers.ts"
import type { DeliveryNames } from "../bus/delivery-names.ts"
import { DeliveryStore } from "../store/delivery.ts"

export type { PushResult } from "@mesh-core/core/delivery/push"

/** A push that cannot start from what it was asked (no such machine, no records): bad input. */
export class PushRefused extends Data.TaggedError("PushRefused")<{ readonly said: string }> {
  override get message(): string {
    return this.said
  }
}

export interface PushOptions extends PushAsk {
  /** The controller lease's epoch, when the gate sends under the lease: each declaration carries it (issue 13). */
  readonly epoch?: number
  readonly names: DeliveryNames
  /** Each line as it is said. */
  readonly say: (line: string) => Effect.Effect<void>
}

/** A push driven to its end: how it ended, and every question it asked with the answer it got, in order. */
export const pushDrivenOver = Effect.fn("Delivery.push")(function* (services: PushServices, o: PushOptions) {
  const { answers, releaseAll } = yield* pushAnswers(services, o.names, o.epoch)
  const driven = yield* drive(pushProgram(o), answers).pipe(
    Effect.provideService(Journal, Journal.of({ say: o.say })),
    Effect.ensuring(releaseAll),
  )
  return { end: driven.result, answers: driven.answers } satisfies {
    readonly end: PushEnd
    readonly answers: ReadonlyArray<Answered>
  }
})

/** A push driven to its end over the services of the context (`pushServices`). */
const pushDriven = (o: PushOptions) => Effect.flatMap(pushServices, (services) => pushDrivenOver(services, o))

export const push = (o: PushOptions) =>
  pushDriven(o).pipe(
    Effect.flatMap(
      ({ end }): Effect.Effect<PushResult, PushRefused> =>
        "refused" in end ? Effect.fail(new PushRefused({ said: end.refused })) : Effect.succeed(end.result),
    ),
  )

/**
 * The machine holding the bus, and whether what it reports running lacks the user list composed now,
 * with what the plans hold (seed 004's listBehind): the gate's `holder-list` question, answered as a
 * push would judge it.
 */
export const holderListOf = (delivery: DeliveryStore["Service"]) =>
  Effect.gen(function* () {
    const records = yield* viaStore("the mesh's records cannot be read", delivery.records)
    if (records === undefined) return { holder: null, behind: false }
    const holderName = indexRecords(records).holder
    if (holderName === undefined) return { holder: null, behind: false }
    const plans = yield* viaStore("the release plans cannot be read", delivery.plansHolding)
    const sent = yield* viaStore("what was sent cannot be read", delivery.sentAll)
    const reports = yield* viaStore("the machines' reports cannot be read", delivery.reportsAll)
    return { holder: holderName, behind: holderListBehind(records, holderName, plans, sent, reports) }
  }).pipe(Effect.withSpan("Push.holderList"))

/** `holderListOf` the delivery store given. */
export const holderList = Effect.gen(function* () {
  return yield* holderListOf(yield* DeliveryStore)
})
