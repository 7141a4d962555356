// One read of the lease for those who do not take it: `status` (who holds it, its epoch, since when)
// and the gate (its `holder` fact). It never creates the bucket, never writes, and a bus that does not
// answer is a value said, never a failure of the command that asked.
import { natsConnectOptions } from "../bus-credentials.ts"
import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream"
import { Kvm } from "@nats-io/kv"
import { connect, type NatsConnection } from "@nats-io/transport-node"
import type { LeaseSeen } from "@mesh-core/core/lease/view"
import { Effect } from "effect"
import { redactUrl } from "../config.ts"
import { leaseKey } from "./bucket.ts"
import { readLease } from "@mesh-core/core/lease/record"
import { holderFact } from "@mesh-core/core/gate/holder"
import { errorText } from "@mesh-core/core/error-text"

const noBucket = (e: unknown) => e instanceof JetStreamApiError && e.code === JetStreamApiCodes.StreamNotFound

/** The lease's key as it is now, over a connection the caller holds. A bucket never made is nobody having held it. */
export const leaseSeen = (nc: NatsConnection, bucket: string): Effect.Effect<LeaseSeen> =>
  Effect.tryPromise({
    try: async (): Promise<LeaseSeen> => {
      const kv = await new Kvm(nc).open(bucket)
      const e = await kv.get(leaseKey).catch((e: unknown) => {
        if (noBucket(e)) return null
        throw e
      })
      if (e === null || e.operation !== "PUT") return { found: false }
      return readLease(e.revision, e.string())
    },
    catch: (e) => e,
  }).pipe(
    Effect.catch((e) => Effect.succeed<LeaseSeen>({ unreachable: `the bucket ${bucket} cannot be read: ${errorText(e)}` })),
    Effect.withSpan("Lease.seen"),
  )

/** The same over a connection of its own, for a command that has no bus otherwise (`status`). */
export const leaseSeenAt = (url: string, bucket: string): Effect.Effect<LeaseSeen> =>
  Effect.acquireUseRelease(
    Effect.tryPromise({ try: () => connect({ ...natsConnectOptions(url), timeout: 3_000, maxReconnectAttempts: 0 }), catch: errorText }),
    (nc) => leaseSeen(nc, bucket),
    (nc) => Effect.tryPromise(() => nc.close()).pipe(Effect.ignore),
  ).pipe(Effect.catch((why) => Effect.succeed<LeaseSeen>({ unreachable: `the bus at ${redactUrl(url)} is not answering: ${why}` })))

/** The gate's `holder` fact from the lease as it is now, judged at `now` (the judging's clock). */
export const leaseHolderFact = (nc: NatsConnection, bucket: string, now: number) => Effect.map(leaseSeen(nc, bucket), (seen) => holderFact(seen, now))
