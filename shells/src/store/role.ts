// What the store says of this controller's own role (issue 40): whether it may end another
// controller's sessions, which the fence of a new epoch does with `pg_terminate_backend`.
import { FencingRole } from "@mesh-core/core/lease/fence"
import { printableUrl } from "@mesh-core/core/text/connection-url"
import { Effect, Schema } from "effect"
import { Store, StoreUnreadable, storeError } from "./postgres.ts"

export const readFencingRole = Effect.fn("Store.fencingRole")(function* () {
  const { sql, url } = yield* Store
  const rows = yield* Effect.tryPromise({
    try: () => sql`select quote_ident(current_user) as grantee, r.rolsuper as superuser,
      pg_has_role(current_user, 'pg_signal_backend', 'MEMBER') as "signalBackend"
      from pg_roles r where r.rolname = current_user`,
    catch: storeError(url),
  })
  return yield* Schema.decodeUnknownEffect(FencingRole)(rows[0]).pipe(
    Effect.mapError((e) => new StoreUnreadable({ url: printableUrl(url), reason: e.message, cause: e })),
  )
})
