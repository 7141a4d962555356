// The lease's bucket: its name for a mesh, and the lease's own error when it cannot be reached. What is
// read and written in it, compare-and-set on the revision, is the bus's (bus/nats.ts, leaseBucket).
import { Data, Effect } from "effect"
import type { BusUnreachable } from "../bus/nats.ts"
import { leaseBucket } from "../bus/lease-bucket.ts"
import { prefixed } from "../bus/subjects.ts"

export { leaseKey } from "../bus/subjects.ts"

class LeaseUnreachable extends Data.TaggedError("LeaseUnreachable")<{
  readonly bucket: string
  readonly reason: string
  readonly cause?: unknown
}> {
  override get message(): string {
    return `the controller lease's bucket ${this.bucket} cannot be reached: ${this.reason}`
  }
}

/** The bucket's name for a mesh's prefix (`P_controller_lease`, its stream `KV_P_controller_lease`). */
export const leaseBucketName = (prefix: string): string => `${prefixed(prefix).upper}controller_lease`

const unreachable = (bucket: string) => (e: BusUnreachable) =>
  new LeaseUnreachable({ bucket, reason: e.reason, cause: e })

/** The bucket, created if need be, its reads failing as the lease's own error. `replicas` is 3 on a clustered bus. */
export const openLeaseBucket = Effect.fn("Lease.openBucket")(function* (bucket: string, replicas = 1) {
  const kv = yield* leaseBucket(bucket, replicas).pipe(Effect.mapError(unreachable(bucket)))
  return { read: kv.read.pipe(Effect.mapError(unreachable(bucket))), write: kv.write }
})
