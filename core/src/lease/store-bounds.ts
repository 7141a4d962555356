// How long the controller's sessions at the store may keep a transaction going, from the lease's
// settings (seed 004; issue 26). Found live: a holder paused (SIGSTOP) with its transaction open kept
// the fence's row locked, the new holder's first write waited behind it for 2 min 14 s, and on resume
// the old epoch's transaction committed after the takeover. The holder stops acting at its renew
// deadline and no candidate takes the lease before its duration has run, so the time between the two
// is what a transaction left open by a paused holder may last: the store ends it there (PostgreSQL's
// `statement_timeout`, then `idle_in_transaction_session_timeout`), before anyone else can act.
import { formatDuration } from "../duration.ts"
import { type LeaseSettings, maxDrift } from "./settings.ts"

/** The bounds set on every session of the controller's store, in milliseconds (each above zero: 0 means none to PostgreSQL). */
export interface StoreBounds {
  /** `statement_timeout`: a statement running when its holder was paused ends within this. */
  readonly statementMs: number
  /** `idle_in_transaction_session_timeout`: a transaction waiting on its paused holder is ended (its session with it) after this. */
  readonly idleInTransactionMs: number
  /** `lock_timeout`: a lock waited for this long fails its statement, so the wait does not spend the statement's whole bound. */
  readonly lockMs: number
}

/** Below this a statement bound would end the controller's ordinary statements, not only a paused holder's. */
export const leastStatementMs = 100

/**
 * The room between the holder's stop and the earliest takeover, as the lease's own rule counts it
 * (settings.ts: the deadline on a clock running 5 % slow, the lease on one running 5 % fast).
 */
const takeoverRoomMs = (s: LeaseSettings): number =>
  Math.floor(s.duration * (1 - maxDrift) - s.renewDeadline * (1 + maxDrift))

/**
 * The bounds, or why the lease's settings leave too little room for them (refused at start, like
 * settings that could let two holders overlap). A holder paused at its renew deadline at the latest,
 * a statement running: the statement ends within its bound, then the transaction, idle, within its
 * own, and the two together within the room, so the session is gone before any candidate takes over
 * (unless paused between a Describe and its Sync, which only the next fence ends: fence.ts `fencingRefused`).
 */
export const storeBounds = (
  s: LeaseSettings,
): { readonly ok: true; readonly bounds: StoreBounds } | { readonly ok: false; readonly problem: string } => {
  const room = takeoverRoomMs(s)
  const half = Math.floor(room / 2)
  if (half < leastStatementMs)
    return {
      ok: false,
      problem: `the lease (${formatDuration(s.duration)}) leaves ${formatDuration(Math.max(room, 0))} after the renew deadline (${formatDuration(s.renewDeadline)}) before a takeover: a transaction of the controller's would be bounded to ${formatDuration(Math.max(half, 0))}, under the ${formatDuration(leastStatementMs)} a statement needs; lengthen the lease or shorten the renew deadline`,
    }
  return { ok: true, bounds: { statementMs: half, idleInTransactionMs: half, lockMs: Math.floor(half / 2) } }
}
