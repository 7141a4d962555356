// The controller lease's catalogue (issue 25, seed 004): what one look at the lease asks (the lease's
// record in its bucket, the store's newest epoch, this controller's clock) and the one act it does (a
// compare-and-set write of the record), each with the Schema of its question and of its answer. The
// look (look.ts) is a program of this catalogue; the lease's service answers it in
// shells/src/lease/answers.ts. The controller's log does not record the lease, so these kinds are a
// namespace of their own; they are named `lease-…` all the same, so no kind means two questions.
import * as Schema from "effect/Schema"
import { entry } from "../program.ts"
import { question, readable } from "../outcome.ts"
import { StoreEpoch } from "./fence.ts"
import { LeaseWrite, WriteOutcome } from "./lease.ts"
import { LeaseRead } from "./record.ts"

export const leaseQuestions = {
  /** The lease's key in its bucket, or why the bucket could not be read (never read as nobody holding). */
  "lease-record": entry({ question: question("lease-record", {}), answer: readable(LeaseRead), act: false }),
  /** The newest epoch the store has seen (0 when none has written), or why it could not be read. */
  "lease-epoch-floor": entry({ question: question("lease-epoch-floor", {}), answer: readable(StoreEpoch), act: false }),
  /** This controller's clock: the look's time, read after the record; and once more after its write. */
  "lease-now": entry({ question: question("lease-now", {}), answer: Schema.Number, act: false }),
  /** The write the core asks, compare-and-set on the revision read: written, a conflict, or no answer. */
  "lease-write": entry({ question: question("lease-write", { write: LeaseWrite }), answer: WriteOutcome, act: true }),
}

export type LeaseQuestions = typeof leaseQuestions
