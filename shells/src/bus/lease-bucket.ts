// The controller lease's record: one key in a JetStream key-value bucket, read from the stream's leader
// (no direct gets from replicas) and written only with compare-and-set on the revision: `create` when
// absent, `update(key, value, revision)` otherwise. A plain put lets two holders both win, as happened
// to libkv (docker/libkv#31).
import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream"
import { type KV, Kvm } from "@nats-io/kv"
import type { LeaseWrite, WriteOutcome } from "@mesh-core/core/lease/lease"
import { leaseText, type LeaseRead, readLease } from "@mesh-core/core/lease/record"
import { errorText } from "@mesh-core/core/text/error-text"
import { Effect } from "effect"
import { Bus, type BusUnreachable, busError } from "./nats.ts"
import { leaseKey } from "./subjects.ts"

/** The lease's bucket as the lease works it: its key read, and written by compare-and-set. */
export interface LeaseBucket {
  /** What the key holds now: nothing (never written, or deleted), or its bytes at their revision. */
  readonly read: Effect.Effect<LeaseRead, BusUnreachable>
  /** One compare-and-set write; its outcome is the core's next fact. Never fails: no answer is an outcome. */
  readonly write: (w: LeaseWrite, timeoutMs: number) => Effect.Effect<WriteOutcome>
}

const isConflict = (e: unknown) =>
  e instanceof JetStreamApiError &&
  (e.code === JetStreamApiCodes.StreamWrongLastSequence || e.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)

const keyRead = async (kv: KV): Promise<LeaseRead> => {
  const e = await kv.get(leaseKey)
  if (e === null || e.operation !== "PUT") return { found: false }
  return readLease(e.revision, e.string())
}

/** The lease's bucket, created if need be. `replicas` is 3 on a clustered bus, so the lease outlives a node. */
export const leaseBucket = Effect.fn("Bus.leaseBucket")(function* (bucket: string, replicas = 1) {
  const { nc, url } = yield* Bus
  const kv = yield* Effect.tryPromise({
    try: () => new Kvm(nc).create(bucket, { history: 1, replicas, allow_direct: false }),
    catch: busError(url),
  })
  return {
    read: Effect.tryPromise({ try: () => keyRead(kv), catch: busError(url) }).pipe(Effect.withSpan("Bus.leaseRead")),
    write: (w, timeoutMs) =>
      Effect.tryPromise({
        try: () =>
          w.write === "create"
            ? kv.create(leaseKey, leaseText(w.record))
            : kv.update(leaseKey, leaseText(w.record), w.revision, timeoutMs),
        catch: (e) => e,
      }).pipe(
        Effect.map((revision): WriteOutcome => ({ outcome: "written", revision })),
        Effect.catch((e) =>
          Effect.succeed<WriteOutcome>(
            isConflict(e) ? { outcome: "conflict" } : { outcome: "unanswered", why: errorText(e) },
          ),
        ),
        Effect.withSpan("Bus.leaseWrite"),
      ),
  } satisfies LeaseBucket
})

const noBucket = (e: unknown) => e instanceof JetStreamApiError && e.code === JetStreamApiCodes.StreamNotFound

/** The lease's key as it is now, for one who does not take it: never creates the bucket; a bucket never made is nobody having held it. */
export const leaseRead = Effect.fn("Bus.leaseRead")(function* (bucket: string) {
  const { nc, url } = yield* Bus
  return yield* Effect.tryPromise({
    try: async (): Promise<LeaseRead> => {
      const kv = await new Kvm(nc).open(bucket)
      return keyRead(kv).catch((e: unknown) => {
        if (noBucket(e)) return { found: false } as const
        throw e
      })
    },
    catch: busError(url),
  })
})
