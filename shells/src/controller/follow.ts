// The controller follows every provider's provisioner.failing / provisioner.recovered from a
// durable JetStream consumer, so what was said while it was down is read when it comes back, and
// keeps the newest word per provider, machine and consumer in the store (novox/hq ADR 0224). What a
// batch does is the core's program keepWords (words to keep, messages to set aside, issue 14); a
// batch is acknowledged only once what it says is written: a word is never acknowledged and lost.
import { keepWords } from "@mesh-core/core/controller/followers"
import { done } from "@mesh-core/core/controller/questions"
import { Effect, Layer } from "effect"
import { type Delivered, MeshBus } from "../bus/mesh-bus.ts"
import { type BusNames, eventOf } from "../bus/subjects.ts"
import { say } from "../journal.ts"
import { observeIfWatched } from "../metrics/loop.ts"
import { StoreTransaction } from "../store/postgres.ts"
import { StandingsStore } from "../store/standings.ts"
import { makeOutage } from "../retry.ts"
import { FencedTransaction } from "../lease/fence.ts"
import { begun } from "./drive.ts"
import { followForever, keepInTransaction, whenItAnswers } from "./follower.ts"
import { ControllerRecorder } from "./recorder.ts"

export interface FollowOptions {
  readonly names: BusNames
  /** How many words are kept in one transaction at most. */
  readonly batch?: number
  /** Called after each batch is committed and acknowledged; for tests and benchmarks. */
  readonly onKept?: (words: number) => void
}

/** Follows the stream until interrupted, with the bus and store services. */
export const standingsFollower = Effect.fn("Standings.follow")(function*(options: FollowOptions) {
  const { names } = options
  const bus = yield* MeshBus
  const standings = yield* StandingsStore
  const outage = yield* makeOutage("controller")
  const follower = yield* whenItAnswers(outage, bus.assertStandingsStream(names).pipe(Effect.andThen(bus.follow({
    stream: names.stream, durable: names.durable, subjects: [names.failing, names.recovered], eventOf: (s) => eventOf(s, names),
    what: `follow ${names.stream}`, config: { ack_wait: 30 * 1e9, max_ack_pending: 20_000 },
  }))))
  yield* say(`[controller] following ${names.failing} and ${names.recovered} from stream ${names.stream} as ${names.durable}`)
  // A batch's words are read and sorted (the program's start) while the batch before is written.
  const wordsOf = (batch: ReadonlyArray<Delivered>) => begun(keepWords(batch.map((d) => d.heard)))
  return yield* followForever(outage, "standings", follower, options.batch ?? 1_000, (batch, program) =>
    keepInTransaction(outage, "words", batch, { fact: "words", messages: batch.map((d) => d.heard) }, program ?? wordsOf(batch), {
      "write-standings": (q) => Effect.as(standings.writeStandings(q.writes), done),
      "set-aside": (q) => Effect.map(standings.setAside(q.letters), (fresh) => ({ fresh: [...fresh] })),
    }).pipe(
      // keepWords answers how many were words; the rest of the batch it set aside.
      Effect.tap((kept) => Effect.andThen(observeIfWatched({ kind: "words", outcome: "kept", count: kept }), observeIfWatched({ kind: "words", outcome: "set-aside", count: batch.length - kept }))),
      Effect.tap((kept) => Effect.sync(() => options.onKept?.(kept))),
    ), wordsOf)
})

/**
 * The follower on its own, over the connections (Bus, Store) and a Journal: for tests and the
 * benchmark that run it without the rest of the controller.
 */
export const followStandings = (options: FollowOptions) =>
  standingsFollower(options).pipe(Effect.provide(Layer.mergeAll(
    MeshBus.layer, StandingsStore.layer, FencedTransaction.layer.pipe(Layer.provideMerge(StoreTransaction.layer)), ControllerRecorder.layerNone,
  )))
