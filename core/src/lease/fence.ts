// The store's side of the epoch (seed 004, issue 13): what the store says when it refuses a write
// under an epoch older than the newest it has seen, as the core reads it. The refusal is made in the
// store itself (migration 0006's `mesh_fence`), in every write's transaction, so an act already on
// its way when its controller was paused past the lease is refused however late it arrives.
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import { fencedWords, lostSentence } from "./lease.ts"

/** The SQLSTATE `mesh_fence` raises: a class of its own, so no other failure is read as fenced. */
export const fencedSqlState = "MF409"

/** An epoch as the store counts them: 0 before any, then each new holder's. */
export const StoreEpoch = Schema.Number.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(0))

/** The refusal's detail: the epoch the write carried and the newest the store has seen. */
const FencedDetail = Schema.Struct({ acting: StoreEpoch, newest: StoreEpoch })

const decodeDetail = Schema.decodeUnknownExit(Schema.fromJsonString(FencedDetail))

/** A refusal's epochs: the one the write carried and the newest the store has seen, when its detail says them. */
type Fenced = { readonly acting: number | undefined; readonly newest: number | undefined }

/**
 * A store failure read as a fencing refusal, or undefined for any other failure. A refusal whose
 * detail cannot be read is still a refusal (its SQLSTATE says so): its epochs are then not known.
 */
export const fencedOf = (code: string | undefined, detail: string | undefined): Fenced | undefined => {
  if (code !== fencedSqlState) return undefined
  const exit = decodeDetail(detail ?? "")
  return Exit.isSuccess(exit) ? exit.value : { acting: undefined, newest: undefined }
}

/** What a controller whose write was fenced says as it stops: the seed's lost sentence, and why. */
export const fencedSaid = (f: Fenced): string =>
  f.acting !== undefined && f.newest !== undefined
    ? fencedWords(f.acting, f.newest)
    : `the store refused a write under an epoch older than the newest it has seen, so another controller holds the lease; ${lostSentence}`

/** The newest epoch the store has seen, as its one row reads (`epoch::text`: a bigint is text on the wire); 0 when none has written. */
export const FenceRow = Schema.Struct({
  epoch: Schema.NumberFromString.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(0)),
})

/**
 * The client's codes and PostgreSQL's SQLSTATEs that say a session is gone with its transaction (issue 26):
 * the connection closed, reset or ended by the client; the server ending it on an operator's word, a
 * newer epoch's fence (`pg_terminate_backend`: 57P01) or a shutdown (class 57P); or its
 * `idle_in_transaction_session_timeout` (25P03). Nothing of such a transaction was committed, and nothing
 * more may be sent for it: a statement sent now would run on a new session, outside the transaction.
 */
const sessionEndedCodes = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "ECONNRESET",
  "EPIPE",
  "25P03",
])

/** Whether a store failure's code says its session is gone (see `sessionEndedCodes`). */
export const storeSessionEnded = (code: string | undefined): boolean =>
  code !== undefined && (sessionEndedCodes.has(code) || code.startsWith("57P"))

/** What the store says of this controller's role (`fencingRole`, shells/src/lease/fencing-role.ts). */
/** `grantee`: the role as an SQL identifier (`quote_ident`), as a GRANT names it. */
export const FencingRole = Schema.Struct({
  grantee: Schema.String,
  superuser: Schema.Boolean,
  signalBackend: Schema.Boolean,
})

/**
 * Why this controller may not act, or undefined. Found live (issue 40): a holder paused between the
 * client's Parse/Describe and its Bind/Execute/Sync (what postgres.js sends for every statement with
 * parameters not yet prepared on a connection) keeps its transaction, and the fence's lock, past every
 * bound: PostgreSQL ignores a statement's cancel while reading a command and arms its idle timeouts only
 * after a Sync. Only the next holder's `pg_terminate_backend` ends it, which needs `pg_signal_backend`
 * (or a superuser, whose sessions no one else may end).
 */
export const fencingRefused = (r: typeof FencingRole.Type): string | undefined =>
  r.superuser || r.signalBackend
    ? undefined
    : `the store's role ${r.grantee} cannot end another controller's sessions, which fencing a paused holder needs, so this controller does not act: GRANT pg_signal_backend TO ${r.grantee};`
