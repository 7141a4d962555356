// A read the core is given as it came out: its value, or why it could not be made (seed 004: what
// cannot be read is said with why and is never well, never read as nothing).
import type { Readable } from "@mesh-core/core/gate/facts"
import { Effect } from "effect"

export const readOrWhy = <A, E extends { readonly message: string }, R>(
  read: Effect.Effect<A, E, R>,
): Effect.Effect<Readable<A>, never, R> =>
  read.pipe(
    Effect.map((value): Readable<A> => ({ ok: true, value })),
    Effect.catch((e: E) => Effect.succeed<Readable<A>>({ ok: false, why: e.message })),
  )
