// One read of the lease for those who do not take it: `status` (who holds it, its epoch, since when)
// and the gate (its `holder` fact). It never creates the bucket, never writes, and a bus that does not
// answer is a value said, never a failure of the command that asked.
import type { LeaseSeen } from "@mesh-core/core/lease/view"
import { Effect } from "effect"
import { Bus, openOnce } from "../bus/nats.ts"
import { leaseRead } from "../bus/lease-bucket.ts"
import { holderFact } from "@mesh-core/core/gate/judging/holder"
import { errorText } from "@mesh-core/core/text/error-text"

/** The lease's key as it is now, over the bus the caller holds. A bucket never made is nobody having held it. */
export const leaseSeen = (bucket: string): Effect.Effect<LeaseSeen, never, Bus> =>
  leaseRead(bucket).pipe(
    Effect.map((read): LeaseSeen => read),
    Effect.catch((e) =>
      Effect.succeed<LeaseSeen>({ unreachable: `the bucket ${bucket} cannot be read: ${errorText(e.cause)}` }),
    ),
    Effect.withSpan("Lease.seen"),
  )

/** The same over `bus`: for a worker that was given the connection once (the gate, the verbs, /readyz). */
export const leaseSeenOn = (bus: Bus["Service"], bucket: string): Effect.Effect<LeaseSeen> =>
  Effect.provideService(leaseSeen(bucket), Bus, bus)

/** The same over a connection of its own, for a command that has no bus otherwise (`status`). */
export const leaseSeenAt = (url: string, bucket: string): Effect.Effect<LeaseSeen> =>
  Effect.scoped(Effect.flatMap(openOnce(url), (bus) => leaseSeenOn(bus, bucket))).pipe(
    Effect.catch((e) =>
      Effect.succeed<LeaseSeen>({ unreachable: `the bus at ${e.url} is not answering: ${errorText(e.cause)}` }),
    ),
  )

/** The gate's `holder` fact from the lease as it is now over `bus`, judged at `now` (the judging's clock). */
export const leaseHolderFact = (bus: Bus["Service"], bucket: string, now: number) =>
  Effect.map(leaseSeenOn(bus, bucket), (seen) => holderFact(seen, now))
