// The controller lease as it is kept on the bus (seed 004, novox/hq to-be 45 §6): one record in a
// key-value bucket, written only with compare-and-set on its revision. Its TTL is in the record
// (`durationMs`), not on the bucket: a bucket that expired the key would take the epoch with it, and
// the next holder could not number itself above the last one.
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import { firstIssue } from "../decoding.ts"

const Millis = Schema.Number.check(
  Schema.makeFilter((n: number) => (Number.isInteger(n) && n >= 0 ? undefined : "a whole number of milliseconds")),
)
const Epoch = Schema.Number.check(
  Schema.makeFilter((n: number) => (Number.isInteger(n) && n >= 1 ? undefined : "an epoch: a whole number from 1")),
)

/** The lease's record as the bucket keeps it (JSON), and as the lease's questions carry it (questions.ts). */
export const LeaseRecord = Schema.Struct({
  /** Who holds it: one process, never reused (a restarted controller is a new candidate). */
  holder: Schema.String,
  /** The fencing token: strictly greater for each new holder. */
  epoch: Epoch,
  /** When this holder took it, by its own clock (for `status` and the gate; never for expiry). */
  acquiredAt: Millis,
  /** When this holder last renewed it, by its own clock (said, never compared with another clock). */
  renewedAt: Millis,
  /** How long a candidate that sees no new revision waits before taking it (the TTL). */
  durationMs: Millis,
  /** Given back on stop: the next candidate takes it at once, and the epoch is on record. */
  givenBack: Schema.Boolean,
  /** The holder says it is ready: it acts (the gate's controller component reads this). */
  ready: Schema.Boolean,
  why: Schema.optionalKey(Schema.String),
  /**
   * What the holder says a person should know that does not stop it acting (a recording that stopped,
   * issue 27): `status` prints it beside the lease. Absent when there is nothing to say.
   */
  notes: Schema.optionalKey(Schema.Array(Schema.String)),
})

export type LeaseRecord = typeof LeaseRecord.Type

/** What a read of the lease's key found: nothing, a record at a revision, or bytes at a revision that are no record. */
export const LeaseRead = Schema.Union([
  Schema.Struct({ found: Schema.Literal(false) }),
  Schema.Struct({ found: Schema.Literal(true), revision: Schema.Number, record: LeaseRecord }),
  Schema.Struct({ found: Schema.Literal(true), revision: Schema.Number, unreadable: Schema.String }),
])
export type LeaseRead = typeof LeaseRead.Type

const decode = Schema.decodeUnknownExit(Schema.fromJsonString(LeaseRecord))

/** Reads a value found at a revision. Bytes that are no record are kept as unreadable, never as nobody holding. */
export const readLease = (revision: number, text: string): LeaseRead => {
  const exit = decode(text)
  if (Exit.isSuccess(exit)) return { found: true, revision, record: exit.value }
  const issue = firstIssue(exit)
  return {
    found: true,
    revision,
    unreadable: `the lease's record cannot be read: ${issue?.field ?? "(record)"}: ${issue?.problem ?? "not a lease record"}`,
  }
}

export const leaseText = (r: LeaseRecord): string => JSON.stringify(r)
