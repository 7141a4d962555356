// The gate's fact about the controller component, from the real lease (seed 004, issue 13): who holds
// it, since when, and whether it says it is ready. Until this, the gate read "no controller holds the
// lease" for ever, so a release of the controller module itself could never pass its gate.
import type { GateFactsRecord } from "./facts.ts"
import { leaseState, type LeaseSeen } from "../../lease/view.ts"
import { rfc3339 } from "../../duration.ts"

/**
 * How far the holder's clock may be from the gate's before a lease not renewed is read as expired:
 * the same minute the judge allows between the lease's `taken` and the send (judge.ts).
 */
export const holderClockAllowanceMs = 60_000

/**
 * The `holder` fact a judging reads, in the form it is recorded (GateFactsRecord). A lease given back,
 * or never taken, is nobody holding; a record or bucket that cannot be read is not known, never
 * nobody; a holder that stopped renewing is not ready, said why. `why` names the holder and its
 * epoch either way, so a recorded judging says who held the lease.
 */
export const holderFact = (seen: LeaseSeen, now: number): GateFactsRecord["holder"] => {
  const s = leaseState(seen, now, holderClockAllowanceMs)
  switch (s.state) {
    case "none":
    case "given-back":
      return { ok: true, value: null }
    case "unreadable":
    case "unreachable":
      return { ok: false, why: s.why }
    case "expired":
      return {
        ok: true,
        value: {
          taken: s.record.acquiredAt,
          ready: false,
          why: `${s.record.holder} (epoch ${s.record.epoch}) has not renewed the lease since ${rfc3339(s.record.renewedAt)}: it is gone or paused`,
        },
      }
    case "held":
      return {
        ok: true,
        value: {
          taken: s.record.acquiredAt,
          ready: s.record.ready,
          why: `${s.record.holder} (epoch ${s.record.epoch})${s.record.why ? ` says: ${s.record.why}` : s.record.ready ? " says it is ready" : ""}`,
        },
      }
  }
}
