// How every follower keeps what it hears (providers' words, machines' reports, health statements):
// the core's program for it runs in one transaction of the store, driven with the services
// (program/drive.ts); only once that commits is it recorded, said and acknowledged, so a word is never
// acknowledged and lost (a kill or an outage before the commit leaves it to come again). A store
// that fails the transaction keeps nothing: the messages are handed back to come again, the core is
// fed `store-failed` once for the outage (it says so, and the recording has it), and the follower
// waits under untilItAnswers. The bus going away is waited out the same way, said once.
import type { Catalogue, Program } from "@mesh-core/core/program"
import { type nothingAsked, storeFailed } from "@mesh-core/core/controller/outage"
import { Deferred, Effect, Exit, Fiber, Option, Schedule } from "effect"
import type { BusUnreachable } from "../bus/nats.ts"
import { ackAll, type Delivered, type Follower, nakAll } from "../bus/mesh-bus.ts"
import { Journal } from "../journal.ts"
import { type makeOutage, untilItAnswers } from "../retry.ts"
import { fencedAct } from "../lease/serve.ts"
import { CaughtUp } from "../lease/caught-up.ts"
import { wakeOf } from "@mesh-core/core/controller/wakes"
import { GateWakes } from "./wakes.ts"
import { watchedPass } from "../metrics/loop.ts"
import type { StoreUnreadable } from "../store/postgres.ts"
import { type Answers, drive } from "../program/drive.ts"
import { ControllerRecorder, type RecordedInput } from "../program/recorder.ts"

export type OutageWatch = Effect.Success<ReturnType<typeof makeOutage>>

/** How long a message the store did not keep waits before it comes again. */
const comeAgainMs = 1_000

/** Feeds the core `store-failed` (once an outage: `outage.failed` decides) and records it. */
export const storeFailedOnce = (
  outage: OutageWatch,
  e: { readonly _tag: string; readonly message: string },
  during: string,
  messages: number,
) =>
  outage.failed(
    e,
    Effect.gen(function* () {
      const none: Answers<typeof nothingAsked, never, never> = {}
      const d = yield* drive(storeFailed(during, messages, e.message), none)
      const recorder = yield* ControllerRecorder
      yield* recorder.record({ fact: "store-failed", during, messages, why: e.message }, d.answers)
    }),
  )

/** What one transaction of a follower keeps: messages, the program deciding what they say, and how it is answered. */
export interface Keeping<C extends Catalogue, A, R, R2> {
  readonly outage: OutageWatch
  /** What the store failed during, said once an outage (`store-failed`). */
  readonly during: string
  readonly delivered: ReadonlyArray<Delivered>
  /** What the recording keeps of it, for a replay to run the program again. */
  readonly input: Exclude<RecordedInput, { fact: "started" }>
  readonly program: Program<C, A>
  readonly answers: Answers<C, StoreUnreadable, R>
  /**
   * Kept in the same transaction as the program: a follower's position in its stream. Sent beside the
   * program's statements rather than after their answers (one round trip fewer a transaction, issue
   * 30); the store runs a transaction's statements in order and commits them together, so where it
   * stands among them changes nothing kept.
   */
  readonly alsoKept?: Effect.Effect<void, StoreUnreadable, R2>
  /** Run once the transaction has begun, before the program: the next batch's fetch (followForever). */
  readonly whenBegun?: Effect.Effect<void>
}

/**
 * Keeps what `delivered` says with `program`, in one transaction: recorded as `input`, then said,
 * then acknowledged. Fails with the store's failure after handing the messages back.
 */
export const keepInTransaction = <C extends Catalogue, A, R, R2 = never>(k: Keeping<C, A, R, R2>) =>
  Effect.gen(function* () {
    const journal = yield* Journal
    const recorder = yield* ControllerRecorder
    // Under the lease (issue 13): the store's fence first in the transaction, with the epoch read now;
    // an act refused for an older epoch stops this controller's acts (actUnderTheLease).
    const kept = yield* fencedAct(
      Effect.andThen(
        k.whenBegun ?? Effect.void,
        Effect.map(
          Effect.all([drive(k.program, k.answers, { sayAtEnd: true }), k.alsoKept ?? Effect.void], { concurrency: 2 }),
          ([driven]) => driven,
        ),
      ),
    ).pipe(
      Effect.tapError((e) =>
        Effect.gen(function* () {
          yield* nakAll(k.delivered, comeAgainMs)
          yield* storeFailedOnce(k.outage, e, k.during, k.delivered.length)
        }),
      ),
    )
    yield* recorder.record(k.input, kept.answers)
    for (const line of kept.said) yield* journal.say(line)
    yield* ackAll(k.delivered)
    // What it kept wakes the plans it touches (core/src/controller/wakes.ts).
    const wakes = yield* Effect.serviceOption(GateWakes)
    if (Option.isSome(wakes)) yield* wakes.value.offer(wakeOf(k.input, kept.answers))
    yield* k.outage.answered
    return kept.result
  }).pipe(Effect.withSpan(`Follower.keep ${k.during}`))

/** A follower, as data: its stream, how many messages a batch, and how a batch is kept. */
export interface Following<R> {
  readonly outage: OutageWatch
  /** The loop's name, for its metrics and for when it has caught up. */
  readonly loop: string
  readonly follower: Follower<BusUnreachable | StoreUnreadable>
  readonly max: number
  /** Keeps one batch; `fetchAhead`, run once its transaction has begun, starts fetching the next. */
  readonly keep: (
    batch: ReadonlyArray<Delivered>,
    fetchAhead: Effect.Effect<void>,
  ) => Effect.Effect<unknown, StoreUnreadable, R>
  /**
   * Whether the next batch is fetched while this one is kept: only a follower keeping a batch in one
   * transaction (the standings' words, a thousand at a time) gains from it; one keeping each message
   * in its own transaction does not.
   */
  readonly fetchAhead?: boolean
}

/**
 * Follows for ever: `keep` each batch `follower` hands over, every failure waited out under
 * untilItAnswers (a bus failure said once here; a store failure said by the core, once).
 *
 * Fetching ahead, the next batch is fetched while this one is kept (issue 11: the follower kept up
 * at a third of a plain upsert, its thread idle while the store wrote and the store idle while it
 * read the bus). The fetch starts once `keep` runs the effect it is handed (when its transaction has
 * begun, keepInTransaction's `whenBegun`), or once it ends: a thousand messages read off the bus hold
 * the thread for milliseconds, and begun first they held the store's answer to BEGIN with it, the
 * store idle meanwhile (issue 30). Batches are still kept one after another, in the order fetched. A
 * batch fetched ahead of one the store did not keep is handed back with it, so what comes again comes
 * in its order; so is one in hand when the follower is stopped, for the next holder to read at once
 * rather than after the ack wait.
 */
export const followForever = <R>({ outage, loop, follower, max, keep, fetchAhead: ahead = false }: Following<R>) =>
  Effect.gen(function* () {
    const caughtUp = yield* Effect.serviceOption(CaughtUp)
    const caughtUpNow = Option.isSome(caughtUp) ? caughtUp.value.said(loop) : Effect.void
    const fetch = follower.next(max)
    let fetching: Fiber.Fiber<ReadonlyArray<Delivered>, BusUnreachable | StoreUnreadable> | undefined
    // A failed keep waits for the batch on its way to hand it back; a stop hands back only one already
    // in hand (the fetch still waiting is interrupted: what it would bring comes after the ack wait).
    const handBack = (batch: ReadonlyArray<Delivered>) => nakAll(batch, comeAgainMs)
    const handBackAhead = Effect.suspend(() => {
      const f = fetching
      fetching = undefined
      return f === undefined ? Effect.void : Fiber.join(f).pipe(Effect.flatMap(handBack), Effect.ignore)
    })
    const handBackInHand = Effect.suspend(() => {
      const done = fetching?.pollUnsafe()
      fetching = undefined
      return done !== undefined && Exit.isSuccess(done) ? handBack(done.value) : Effect.void
    })
    const pass = Effect.gen(function* () {
      const f = fetching
      fetching = undefined
      const batch = f === undefined ? yield* fetch : yield* Fiber.join(f)
      if (batch.length === 0) return yield* caughtUpNow
      let next: Effect.Effect<void> = Effect.void
      if (ahead) {
        const go = yield* Deferred.make<void>()
        fetching = yield* Effect.forkChild(Effect.andThen(Deferred.await(go), fetch))
        next = Effect.asVoid(Deferred.succeed(go, undefined))
      }
      yield* keep(batch, next).pipe(
        Effect.ensuring(next),
        Effect.tapError(() => handBackAhead),
      )
      // Less than it asked for, kept: what was waiting when it began is read.
      if (batch.length < max) yield* caughtUpNow
    })
    // A pass is one fetch (at most a second's wait) and what it brought kept, so an idle follower still beats.
    return yield* watchedPass(loop, pass).pipe(
      Effect.tapError((e: BusUnreachable | StoreUnreadable) =>
        e._tag === "BusUnreachable" ? outage.failed(e) : Effect.void,
      ),
      Effect.retry(untilItAnswers),
      Effect.repeat(Schedule.forever),
      Effect.onInterrupt(() => handBackInHand),
    )
  })

/** Something to start (a stream asserted, a consumer made) that waits for the bus or store like the rest. */
export const whenItAnswers = <A, E extends { readonly _tag: string; readonly message: string }, R>(
  outage: OutageWatch,
  start: Effect.Effect<A, E, R>,
) =>
  start.pipe(
    Effect.tapError((e) => outage.failed(e)),
    Effect.retry(untilItAnswers),
    Effect.tap(() => outage.answered),
  )

/**
 * Keeps a batch one message at a time, each in its own transaction (a report, a statement): a store
 * that fails one hands it and every message after it back, to come again in order.
 */
export const keepEachInTransaction = <C extends Catalogue, A, R>(
  outage: OutageWatch,
  during: string,
  batch: ReadonlyArray<Delivered>,
  each: (d: Delivered) => {
    readonly input: Exclude<RecordedInput, { fact: "started" }>
    readonly program: Program<C, A>
  },
  handlers: Answers<C, StoreUnreadable, R>,
  kept: (result: A) => Effect.Effect<void> = () => Effect.void,
) =>
  Effect.forEach(
    batch,
    (d, i) => {
      const { input, program } = each(d)
      return keepInTransaction({ outage, during, delivered: [d], input, program, answers: handlers }).pipe(
        Effect.flatMap(kept),
        Effect.tapError(() => nakAll(batch.slice(i + 1), comeAgainMs)),
      )
    },
    { discard: true },
  )
