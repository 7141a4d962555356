// The lease's answers to its look's questions (core/src/lease/questions.ts, issue 25): the record
// read from the lease's bucket, the store's newest epoch, the clock, and the compare-and-set write,
// over the lease's own operations. Nothing here decides: a read that fails is answered as not read,
// with why, and the core waits or loses the lease on it (lease.ts). A write made once this controller
// stopped acting (a stop, a fence, its deadline) counts for nothing, so the look ends there, unsaid.
import { errorText } from "@mesh-core/core/text/error-text"
import type { LeaseQuestions } from "@mesh-core/core/lease/questions"
import { Clock, Data, Effect } from "effect"
import type { Answers } from "../program/drive.ts"
import type { openLeaseBucket } from "./bucket.ts"

type Bucket = Effect.Success<ReturnType<typeof openLeaseBucket>>

/** The look ended because this controller stopped acting around its write: nothing it wrote counts. */
export class LookStopped extends Data.TaggedError("LookStopped") {}

/**
 * The answers over `kv` and the store's `floor`. `stopped` says whether this controller has stopped
 * acting: asked before the write and after it, as the look read the lease's memory before deciding.
 */
export const leaseAnswers = <E, R>(
  kv: Bucket,
  floor: Effect.Effect<number, E, R>,
  retry: number,
  stopped: Effect.Effect<boolean>,
): Answers<LeaseQuestions, LookStopped, R> => ({
  "lease-record": () =>
    kv.read.pipe(
      Effect.map((value) => ({ ok: true as const, value })),
      Effect.catch((e) => Effect.succeed({ ok: false as const, why: e.message })),
    ),
  "lease-epoch-floor": () =>
    floor.pipe(
      Effect.map((value) => ({ ok: true as const, value })),
      Effect.catch((e) => Effect.succeed({ ok: false as const, why: errorText(e) })),
    ),
  "lease-now": () => Clock.currentTimeMillis,
  "lease-write": ({ write }) =>
    Effect.gen(function* () {
      if (yield* stopped) return yield* new LookStopped()
      const outcome = yield* kv.write(write, retry)
      if (yield* stopped) return yield* new LookStopped()
      return outcome
    }),
})
