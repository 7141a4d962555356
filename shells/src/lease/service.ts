// The controller lease as a service (seed 004, novox/hq to-be 45 §6; docs/lease.md). Building the layer
// waits as a candidate, said, until this controller holds the lease; from then it renews on a Schedule,
// watches its own renew deadline, and completes `lost` the moment it cannot renew within it, another
// holds the lease, or the store fenced one of its acts. Closing the layer's scope gives the lease back,
// so the epoch is recorded as given back rather than found expired by the next holder. Every decision
// is the core's (core/src/lease/lease.ts); this reads, writes, waits and says.
import { randomBytes } from "node:crypto"
import { hostname } from "node:os"
import {
  candidate,
  deadlineOf,
  giveBack,
  givenBackWords,
  holding,
  type LeaseMemory,
  notesNow,
  readyNow,
  stopped,
  unread,
} from "@mesh-core/core/lease/lease"
import { look as lookAtTheLease } from "@mesh-core/core/lease/look"
import type { LeaseRecord } from "@mesh-core/core/lease/record"
import type { LeaseSettings } from "@mesh-core/core/lease/settings"
import { Clock, Context, Data, Deferred, Duration, Effect, Layer, Option, Ref, Schedule } from "effect"
import { ControllerNotes } from "../program/notes.ts"
import { Journal } from "../journal.ts"
import { drive, ProgramWatch } from "../program/drive.ts"
import { leaseAnswers } from "./answers.ts"
import { openLeaseBucket } from "./bucket.ts"
import { leaseSettingsConfig } from "./settings.ts"

/** Why this controller stopped acting: the lease lost, or an act refused by the store under a newer epoch. */
export interface LeaseLost {
  readonly said: string
}

export class NotHolding extends Data.TaggedError("NotHolding")<{ readonly self: string }> {
  override get message(): string {
    return `this controller (${this.self}) does not hold the controller lease, so it does not act`
  }
}

export interface HeldLease {
  readonly epoch: number
  readonly holder: string
  readonly acquiredAt: number
  readonly ready: boolean
}

export class ControllerLease extends Context.Service<
  ControllerLease,
  {
    /** This process, as it names itself in the record. */
    readonly self: string
    readonly settings: LeaseSettings
    /** The epoch every act carries; fails with NotHolding once this controller may no longer act. */
    readonly epoch: Effect.Effect<number, NotHolding>
    /** The lease as this controller holds it (its own record), or undefined once it does not. */
    readonly held: Effect.Effect<HeldLease | undefined>
    /** Completes the moment this controller stops acting: lost, or fenced by the store. */
    readonly lost: Effect.Effect<LeaseLost>
    /** Says the store refused an act under this controller's epoch: nothing it does from now is accepted. */
    readonly fenced: (said: string) => Effect.Effect<void>
    /** This holder's workers run and its followers caught up: its record says ready from its next renewal. */
    readonly setReady: (ready: boolean) => Effect.Effect<void>
  }
>()("mesh-core/ControllerLease") {
  /**
   * Holds the lease in `bucket` for as long as the layer's scope is open. `floor` is the newest epoch
   * the store has seen, so a new epoch is above it even if the bucket lost its record.
   */
  static readonly layer = <E, R>(options: LeaseOptions<E, R>) => Layer.effect(ControllerLease, make(options))

  /** A lease held for ever at `epoch`: for tests of what acts under a lease, without a bus. */
  static readonly layerTest = (epoch: number, self = "test-controller") =>
    Layer.effect(
      ControllerLease,
      Effect.gen(function* () {
        const lost = yield* Deferred.make<LeaseLost>()
        const at = yield* Clock.currentTimeMillis
        return ControllerLease.of({
          self,
          settings: { duration: 15_000, renewDeadline: 10_000, retry: 2_000 },
          epoch: Effect.flatMap(Deferred.isDone(lost), (done) =>
            done ? Effect.fail(new NotHolding({ self })) : Effect.succeed(epoch),
          ),
          held: Effect.map(Deferred.isDone(lost), (done) =>
            done ? undefined : { epoch, holder: self, acquiredAt: at, ready: true },
          ),
          lost: Deferred.await(lost),
          fenced: (said) => Effect.asVoid(Deferred.succeed(lost, { said })),
          setReady: () => Effect.void,
        })
      }),
    )
}

export interface LeaseOptions<E, R> {
  readonly bucket: string
  /** 3 on a clustered bus, so the lease outlives a node. */
  readonly replicas?: number
  /** The newest epoch the store has seen (`newestEpoch`, fence.ts). Read only as a candidate: a failure to read it is waited out. */
  readonly floor: Effect.Effect<number, E, R>
  /** This controller's name (ControllerName): the holder its record carries, and its verb subject's token. */
  readonly self?: string
}

/** A name no other process uses, so a restarted controller is a new candidate (docs/lease.md). */
const processName = () => `${hostname()}/${process.pid}/${randomBytes(3).toString("hex")}`

const make = Effect.fn("ControllerLease.make")(function* <E, R>(options: LeaseOptions<E, R>) {
  const settings = yield* leaseSettingsConfig
  const journal = yield* Journal
  const say = journal.say
  const kv = yield* openLeaseBucket(options.bucket, options.replicas ?? 1)
  const self = options.self ?? processName()
  const memory = yield* Ref.make<LeaseMemory>(candidate(self))
  const record = yield* Ref.make<LeaseRecord | undefined>(undefined)
  const lost = yield* Deferred.make<LeaseLost>()
  // Uninterruptible: `lost` completing ends the term, whose scope interrupts the fiber that completed
  // it; without this the lost sentence was sometimes never said (issue 26).
  const stop = (said: string) =>
    Effect.gen(function* () {
      yield* Ref.update(memory, stopped)
      if (yield* Deferred.succeed(lost, { said })) yield* say(`[lease] ${said}`)
    }).pipe(Effect.uninterruptible)

  // What this controller says a person should know, carried in its record to `status` (issue 27).
  const notes = yield* Effect.serviceOption(ControllerNotes)
  const answers = leaseAnswers(kv, options.floor, settings.retry, Deferred.isDone(lost))
  // The lease is neither recorded nor metered as the controller's programs are: its metrics are the
  // lease view's, so a drive's watch sees none of its questions.
  const unwatched = ProgramWatch.of({ answered: () => Effect.void, failed: () => Effect.void })

  /**
   * One look: the core's (core/src/lease/look.ts) driven over the lease's answers; what it remembers
   * kept and its lost sentence stopped on, unless this controller stopped acting meanwhile. Answers
   * whether this controller holds the lease.
   */
  const look = Effect.fn("ControllerLease.look")(function* () {
    if (yield* Deferred.isDone(lost)) return false
    if (Option.isSome(notes)) {
      const now = yield* notes.value.all
      yield* Ref.update(memory, (m) => notesNow(m, now))
    }
    const before = yield* Ref.get(memory)
    const driven = yield* drive(lookAtTheLease(settings, before), answers).pipe(
      Effect.provideService(ProgramWatch, unwatched),
      Effect.map(({ result }) => result),
      Effect.catchTag("LookStopped", () => Effect.succeed(undefined)),
    )
    // A look that ends after the lease was lost (a stop, a fence) counts for nothing: the acts have stopped.
    if (driven === undefined || (yield* Deferred.isDone(lost))) return false
    // A holder whose followers caught up while the look ran (setReady) stays ready: the look began
    // before, and keeping its memory whole lost the word, so the record said not ready for good.
    yield* Ref.update(memory, (now) =>
      now.ready !== before.ready ? { ...driven.memory, ready: now.ready } : driven.memory,
    )
    if (driven.written !== undefined) yield* Ref.set(record, driven.written)
    if (driven.lost !== undefined) return yield* Effect.as(stop(driven.lost), false)
    return driven.holds
  })

  // As a candidate: a look every retry until this controller holds the lease.
  yield* say(
    `[lease] ${self} is a candidate for the controller lease in ${options.bucket} (lease ${settings.duration}ms, renew deadline ${settings.renewDeadline}ms, retry ${settings.retry}ms)`,
  )
  yield* look().pipe(
    Effect.repeat({ schedule: Schedule.spaced(Duration.millis(settings.retry)), until: (held) => held }),
  )

  // Holding: renewed every retry on a Schedule, and the deadline watched on its own, so the lease is
  // lost the moment it passes even while a renewal hangs on a bus that does not answer.
  yield* look().pipe(
    Effect.repeat({ schedule: Schedule.spaced(Duration.millis(settings.retry)), until: () => false }),
    Effect.forkScoped,
  )
  const watch: Effect.Effect<void> = Effect.gen(function* () {
    for (;;) {
      if (yield* Deferred.isDone(lost)) return
      const deadline = deadlineOf(settings, yield* Ref.get(memory))
      const now = yield* Clock.currentTimeMillis
      if (deadline === undefined || now >= deadline) {
        // The core's words for it: the next decision past the deadline is that the lease is lost.
        const d = unread(settings, yield* Ref.get(memory), now)
        return yield* stop(d.decision === "lost" ? d.said : "the controller lease is not held")
      }
      yield* Effect.sleep(Duration.millis(Math.max(1, deadline - now)))
    }
  })
  yield* Effect.forkScoped(watch)

  // On stop: acts end first, then the lease is given back under its own revision.
  yield* Effect.addFinalizer(() =>
    Effect.gen(function* () {
      const m = yield* Ref.get(memory)
      yield* Ref.update(memory, stopped)
      yield* Deferred.succeed(lost, { said: "this controller is stopping" })
      const read = yield* Effect.result(kv.read)
      if (read._tag === "Failure")
        return yield* say(
          `[lease] the controller lease could not be given back: ${read.failure.message}; the next holder finds it expired`,
        )
      const w = giveBack(m, read.success, yield* Clock.currentTimeMillis)
      if (w === undefined) return
      const outcome = yield* kv.write(w, settings.retry)
      yield* say(
        outcome.outcome === "written"
          ? `[lease] ${givenBackWords(w.record.epoch)}`
          : `[lease] the controller lease could not be given back (${outcome.outcome === "conflict" ? "another controller wrote it" : outcome.why}); the next holder finds it expired`,
      )
    }),
  )

  const held: Effect.Effect<HeldLease | undefined> = Effect.gen(function* () {
    const m = yield* Ref.get(memory)
    const r = yield* Ref.get(record)
    if (!holding(settings, m, yield* Clock.currentTimeMillis) || r === undefined || m.held === undefined)
      return undefined
    return { epoch: m.held.epoch, holder: self, acquiredAt: m.held.acquiredAt, ready: r.ready }
  })
  return ControllerLease.of({
    self,
    settings,
    held,
    lost: Deferred.await(lost),
    epoch: Effect.flatMap(held, (h) =>
      h === undefined ? Effect.fail(new NotHolding({ self })) : Effect.succeed(h.epoch),
    ),
    fenced: (said) => stop(said),
    setReady: (ready) => Ref.update(memory, (m) => readyNow(m, ready)),
  })
})
