// The gate's fact about the controller component, from the real lease (seed 004, issue 13): who holds
// it, since when, and whether it says it is ready. Until this, the gate read "no controller holds the
// lease" for ever, so a release of the controller module itself could never pass its gate.
import type { GateFactsRecord } from "./facts.ts"
import { leaseState, type LeaseSeen } from "../../lease/view.ts"
import { rfc3339 } from "../../duration.ts"
import { value } from "../../outcome.ts"

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
  if (s.state === "none" || s.state === "given-back") return { ok: true, value: null }
  if (s.state === "unreadable" || s.state === "unreachable") return { ok: false, why: s.why }
  const r = s.record
  const who = `${r.holder} (epoch ${r.epoch})`
  const said = r.why ? ` says: ${r.why}` : r.ready ? " says it is ready" : ""
  if (s.state !== "expired") return value({ taken: r.acquiredAt, ready: r.ready, why: `${who}${said}` })
  const why = `${who} has not renewed the lease since ${rfc3339(r.renewedAt)}: it is gone or paused`
  return value({ taken: r.acquiredAt, ready: false, why })
}
