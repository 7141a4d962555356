// The lease's record on the bus: one key in a JetStream key-value bucket, read from the stream's leader
// (no direct gets from replicas) and written only with compare-and-set on the revision: `create` when
// absent, `update(key, value, revision)` otherwise. A plain put lets two holders both win, as happened
// to libkv (docker/libkv#31).
import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream"
import { type KV, Kvm } from "@nats-io/kv"
import type { NatsConnection } from "@nats-io/transport-node"
import type { LeaseWrite, WriteOutcome } from "@mesh-core/core/lease/lease"
import { leaseText, type LeaseRead, readLease } from "@mesh-core/core/lease/record"
import { Data, Effect } from "effect"
import { prefixed } from "../bus/subjects.ts"
import { errorText } from "@mesh-core/core/error-text"

export class LeaseUnreachable extends Data.TaggedError("LeaseUnreachable")<{ readonly bucket: string; readonly reason: string; readonly cause?: unknown }> {
  override get message(): string {
    return `the controller lease's bucket ${this.bucket} cannot be reached: ${this.reason}`
  }
}

export const leaseKey = "controller"

/** The bucket's name for a mesh's prefix (`P_controller_lease`, its stream `KV_P_controller_lease`). */
export const leaseBucketName = (prefix: string): string => `${prefixed(prefix).upper}controller_lease`

/** The bucket, created if need be. `replicas` is 3 on a clustered bus, so the lease outlives a node. */
export const openLeaseBucket = (nc: NatsConnection, bucket: string, replicas = 1) =>
  Effect.tryPromise({
    try: () => new Kvm(nc).create(bucket, { history: 1, replicas, allow_direct: false }),
    catch: (e) => new LeaseUnreachable({ bucket, reason: errorText(e), cause: e }),
  })

/** What the key holds now: nothing (never written, or deleted), or its bytes at their revision. */
export const readLeaseRecord = (kv: KV, bucket: string): Effect.Effect<LeaseRead, LeaseUnreachable> =>
  Effect.tryPromise({
    try: async () => {
      const e = await kv.get(leaseKey)
      if (e === null || e.operation !== "PUT") return { found: false } as const
      return readLease(e.revision, e.string())
    },
    catch: (e) => new LeaseUnreachable({ bucket, reason: errorText(e), cause: e }),
  })

const isConflict = (e: unknown) =>
  e instanceof JetStreamApiError && (e.code === JetStreamApiCodes.StreamWrongLastSequence || e.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)

/** One compare-and-set write; its outcome is the core's next fact. Never fails: no answer is an outcome. */
export const writeLeaseRecord = (kv: KV, w: LeaseWrite, timeoutMs: number): Effect.Effect<WriteOutcome> =>
  Effect.tryPromise({
    try: () => (w.write === "create" ? kv.create(leaseKey, leaseText(w.record)) : kv.update(leaseKey, leaseText(w.record), w.revision, timeoutMs)),
    catch: (e) => e,
  }).pipe(
    Effect.map((revision): WriteOutcome => ({ outcome: "written", revision })),
    Effect.catch((e) => Effect.succeed<WriteOutcome>(isConflict(e) ? { outcome: "conflict" } : { outcome: "unanswered", why: errorText(e) })),
  )
