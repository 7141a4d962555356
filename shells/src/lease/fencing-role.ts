// Whether this controller's role may end another controller's sessions at the store (issue 40;
// core/src/lease/fence.ts `fencingRefused`): the fence of a new epoch ends the older epoch's sessions
// with `pg_terminate_backend`, and a holder paused mid-statement is ended by nothing else. Checked at
// serve's start, before the lease is waited for, and callable by any check of the settings.
import { FencingRole, fencingRefused } from "@mesh-core/core/lease/fence"
import { printableUrl } from "@mesh-core/core/connection-url"
import { Data, Effect, Runtime, Schema } from "effect"
import { untilItAnswers } from "../retry.ts"
import { Store, StoreUnreadable, storeError } from "../store/postgres.ts"

class FencingRefused extends Data.TaggedError("FencingRefused")<{ readonly said: string }> {
  override readonly [Runtime.errorExitCode] = 1
  override get message(): string {
    return this.said
  }
}

/** The refusal for this controller's role at the store, or undefined when it may fence (the core's word). */
export const fencingRole = Effect.fn("Lease.fencingRole")(function* () {
  const { sql, url } = yield* Store
  const rows = yield* Effect.tryPromise({
    try: () => sql`select quote_ident(current_user) as grantee, r.rolsuper as superuser,
      pg_has_role(current_user, 'pg_signal_backend', 'MEMBER') as "signalBackend"
      from pg_roles r where r.rolname = current_user`,
    catch: storeError(url),
  })
  const role = yield* Schema.decodeUnknownEffect(FencingRole)(rows[0]).pipe(
    Effect.mapError((e) => new StoreUnreadable({ url: printableUrl(url), reason: e.message, cause: e })),
  )
  return fencingRefused(role)
})

/** serve's start: a role that cannot fence a paused holder stops it with the grant to give. */
export const requireFencing = Effect.gen(function* () {
  const refused = yield* fencingRole().pipe(
    Effect.retry({ schedule: untilItAnswers, while: (e) => e._tag === "StoreUnreadable" }),
  )
  if (refused !== undefined) return yield* Effect.fail(new FencingRefused({ said: refused }))
})
