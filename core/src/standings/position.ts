// Where the standings follower is in its stream, kept in the store in the same fenced transaction as
// the words it read (issue 11). A durable consumer with an acknowledgement per message cost the
// follower a publish a word, and the bus the work of each: a third of the bus's CPU and a tenth of
// the follower's (`npm run bench:standings`). Acknowledging once a batch (AckPolicy.All) is not safe
// here: a batch handed back comes again only after its wait, and a later batch's acknowledgement
// would acknowledge it unkept. With the position in the store the words and the place they were read
// to commit together or not at all, and only the lease's holder can move it (the fence). Keeping a
// batch twice changes nothing (the newest word wins; a message is set aside once), so following
// again from the position after a failure is always safe.
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import type { Readable } from "../outcome.ts"

/** A row of `stream_positions` (migration 0013), its sequence as float8. */
const StreamPositionRow = Schema.Struct({ seq: Schema.Number })
const decodePositionRow = Schema.decodeUnknownExit(StreamPositionRow)

/** The position the store answered: none kept yet, or the sequence; a row that is not one, said. */
export const positionOf = (rows: ReadonlyArray<unknown>): Readable<number | undefined> => {
  if (rows.length === 0) return { ok: true, value: undefined }
  const e = decodePositionRow(rows[0])
  return Exit.isSuccess(e)
    ? { ok: true, value: e.value.seq }
    : { ok: false, why: `a stream_positions row the store answered is not one: ${String(e.cause)}` }
}

/**
 * Where to follow from: after the position kept, else after what the durable consumer of before it
 * acknowledged (a controller upgraded in place reads nothing twice), else from the stream's start.
 * The durable consumer is removed once the store keeps a position: it is read no more. A position
 * past the stream's last message was kept in a stream since deleted and made again (the controller
 * asserts its stream at every start): followed from it, the new stream's words would be passed over
 * until their sequences caught up, so the new stream is followed from its start, and that is said.
 */
export const followingFrom = (
  kept: number | undefined,
  durableAcknowledged: number | undefined,
  streamLast: number,
): { readonly from: number; readonly removeDurable: boolean; readonly said?: string } => {
  if (kept !== undefined && kept > streamLast)
    return {
      from: 1,
      removeDurable: false,
      said: `the position kept, ${kept}, is past the stream's last message, ${streamLast}: the stream was made again; following it from its start`,
    }
  return {
    from: (kept ?? durableAcknowledged ?? 0) + 1,
    removeDurable: kept !== undefined && durableAcknowledged !== undefined,
  }
}

/** The position a kept batch leaves: its highest stream sequence (asked, not assumed to be the last). */
export const positionAfter = (seqs: ReadonlyArray<{ readonly seq: number }>): number | undefined => {
  let top: number | undefined
  for (const { seq } of seqs) if (top === undefined || seq > top) top = seq
  return top
}
