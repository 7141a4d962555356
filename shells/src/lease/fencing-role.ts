// Whether this controller's role may end another controller's sessions at the store (issue 40;
// core/src/lease/fence.ts `fencingRefused`): the fence of a new epoch ends the older epoch's sessions
// with `pg_terminate_backend`, and a holder paused mid-statement is ended by nothing else. Checked at
// serve's start, before the lease is waited for, and callable by any check of the settings.
import { fencingRefused } from "@mesh-core/core/lease/fence"
import { Data, Effect, Runtime } from "effect"
import { untilItAnswers } from "../retry.ts"
import { readFencingRole } from "../store/role.ts"

class FencingRefused extends Data.TaggedError("FencingRefused")<{ readonly said: string }> {
  override readonly [Runtime.errorExitCode] = 1
  override get message(): string {
    return this.said
  }
}

/** The refusal for this controller's role at the store, or undefined when it may fence (the core's word). */
export const fencingRole = Effect.fn("Lease.fencingRole")(function* () {
  return fencingRefused(yield* readFencingRole())
})

/** serve's start: a role that cannot fence a paused holder stops it with the grant to give. */
export const requireFencing = Effect.gen(function* () {
  const refused = yield* fencingRole().pipe(
    Effect.retry({ schedule: untilItAnswers, while: (e) => e._tag === "StoreUnreadable" }),
  )
  if (refused !== undefined) return yield* Effect.fail(new FencingRefused({ said: refused }))
})
