// The controller follows every provider's provisioner.failing / provisioner.recovered from the
// position it keeps in the store, so what was said while it was down is read when it comes back, and
// keeps the newest word per provider, machine and consumer in the store (novox/hq ADR 0224). What a
// batch does is the core's program keepWords (words to keep, messages to set aside, issue 14); the
// position moves past a batch only in the transaction that writes what it says: a word is never
// passed over and lost (issue 11, docs/bus.md).
import { keepWords } from "@mesh-core/core/standings/followers"
import { followingFrom, positionAfter } from "@mesh-core/core/standings/position"
import { Effect, Layer } from "effect"
import { type Delivered, MeshBus } from "../bus/mesh-bus.ts"
import { type BusNames, busNames, eventOf } from "../bus/subjects.ts"
import { ControllerSettings } from "../config.ts"
import { termWorker } from "../lease/holding.ts"
import { type Journal, say } from "../journal.ts"
import { observeIfWatched } from "../metrics/loop.ts"
import { StoreTransaction } from "../store/postgres.ts"
import { StandingsStore } from "../store/standings.ts"
import { makeOutage } from "../retry.ts"
import { FencedTransaction } from "../lease/fence.ts"
import { standingsAnswers } from "../standings/answers.ts"
import { followForever, keepInTransaction, storeFailedOnce, whenItAnswers } from "../followers/in-transaction.ts"
import { ControllerRecorder } from "../program/recorder.ts"

export interface FollowOptions {
  readonly names: BusNames
  /** How many words are kept in one transaction at most. */
  readonly batch?: number
  /** Called after each batch is committed and acknowledged; for tests and benchmarks. */
  readonly onKept?: (words: number) => void
}

/** Follows the stream until interrupted, with the bus and store services. */
export const standingsFollower = Effect.fn("Standings.follow")(function* (options: FollowOptions) {
  const { names } = options
  const bus = yield* MeshBus
  const standings = yield* StandingsStore
  const answers = yield* standingsAnswers
  const outage = yield* makeOutage("controller")
  // Where to read from: asked at the start and again after a batch was handed back or a fetch
  // failed, so what was read but not kept comes again (position.ts). The follower's name is the
  // durable consumer's it replaces.
  const follower = names.durable
  const context = yield* Effect.context<ControllerRecorder | Journal>()
  const from = Effect.gen(function* () {
    const kept = yield* standings
      .position(names.stream, follower)
      .pipe(Effect.tapError((e) => storeFailedOnce(outage, e, "position", 0)))
    const start = followingFrom(
      kept,
      yield* bus.acknowledgedBy(names.stream, names.durable),
      yield* bus.lastSequence(names.stream),
    )
    if (start.said !== undefined) yield* say(`[controller] ${start.said}`)
    if (start.removeDurable) yield* bus.removeDurable(names.stream, names.durable)
    return start.from
  }).pipe(Effect.provideContext(context))
  yield* whenItAnswers(outage, bus.assertStandingsStream(names))
  const words = yield* bus.followFrom(
    {
      stream: names.stream,
      subjects: [names.failing, names.recovered],
      eventOf: (s) => eventOf(s, names),
      what: `follow ${names.stream}`,
    },
    from,
  )
  yield* say(
    `[controller] following ${names.failing} and ${names.recovered} from stream ${names.stream}, from the position kept as ${follower}`,
  )
  const keepPositionAfter = (batch: ReadonlyArray<Delivered>) => {
    const seq = positionAfter(batch.map((d) => d.heard))
    return seq === undefined ? Effect.void : standings.keepPosition(names.stream, follower, seq)
  }
  // The next batch is fetched while this one is kept (followForever): a thousand words a batch.
  return yield* followForever({
    outage,
    loop: "standings",
    follower: words,
    max: options.batch ?? 1_000,
    fetchAhead: true,
    keep: (batch, fetchAhead) => {
      const messages = batch.map((d) => d.heard)
      return keepInTransaction({
        outage,
        during: "words",
        delivered: batch,
        input: { fact: "words", messages },
        program: keepWords(messages),
        answers,
        alsoKept: keepPositionAfter(batch),
        whenBegun: fetchAhead,
      }).pipe(
        // keepWords answers how many were words; the rest of the batch it set aside.
        Effect.tap((kept) =>
          Effect.andThen(
            observeIfWatched({ kind: "words", outcome: "kept", count: kept }),
            observeIfWatched({ kind: "words", outcome: "set-aside", count: batch.length - kept }),
          ),
        ),
        Effect.tap((kept) => Effect.sync(() => options.onKept?.(kept))),
      )
    },
  })
})

/**
 * The follower on its own, over the connections (Bus, Store) and a Journal: for tests and the
 * benchmark that run it without the rest of the controller.
 */
export const followStandings = (options: FollowOptions) =>
  standingsFollower(options).pipe(
    Effect.provide(
      Layer.mergeAll(
        MeshBus.layer,
        StandingsStore.layer,
        FencedTransaction.layer.pipe(Layer.provideMerge(StoreTransaction.layer)),
        ControllerRecorder.layerNone,
      ),
    ),
  )

/** The standings follower as a worker of the term under the lease, `batch` words to a transaction at most. */
export const StandingsFollowerLive = (batch: number) =>
  termWorker(
    "standings",
    Effect.gen(function* () {
      return yield* standingsFollower({ names: busNames((yield* ControllerSettings).busPrefix), batch })
    }),
  )
