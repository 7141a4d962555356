// A read the core is given as it came out: its value, or why it could not be made (seed 004: what
// cannot be read is said with why and is never well, never read as nothing).
//
// Each read is bounded (issue 27: a store or bus that stops answering is said within seconds, with a
// timeout on every call): a frozen store never answers and never fails, so a read of it would hold its
// caller for as long as the freeze lasts — an operator's verb waited out its own 20 s with no word.
// Past the bound the read is answered as not made, with why, and that is the answer recorded: a read
// changes nothing, so answering it unread is always true.
import type { Readable } from "@mesh-core/core/outcome"
import { formatDuration } from "@mesh-core/core/duration"
import { Duration, Effect } from "effect"

/** How long a read may take before it is answered as not made: well under an operator's 20 s wait for a verb. */
const readBoundMs = 5_000

export const readOrWhy = <A, E extends { readonly message: string }, R>(
  read: Effect.Effect<A, E, R>,
  boundMs = readBoundMs,
): Effect.Effect<Readable<A>, never, R> =>
  read.pipe(
    Effect.map((value): Readable<A> => ({ ok: true, value })),
    Effect.catch((e: E) => Effect.succeed<Readable<A>>({ ok: false, why: e.message })),
    Effect.timeoutOrElse({
      duration: Duration.millis(boundMs),
      orElse: () => Effect.succeed<Readable<A>>({ ok: false, why: `no answer within ${formatDuration(boundMs)}` }),
    }),
  )
