// The store as `doctor` finds it (issue 44): a connection of its own that writes nothing, the
// migration it is at (when its role may read it), whether its role may end other sessions (the
// takeover's fence, issue 26) and create its schema or use the one there, whether the signing key
// kept there signs (seed 002), and its clock.
import { createPrivateKey, createPublicKey, sign, verify } from "node:crypto"
import postgres from "postgres"
import { Effect, Schema } from "effect"
import { IdentityRow } from "@mesh-core/core/delivery/rows"
import { errorText } from "@mesh-core/core/text/error-text"
import { withoutSecrets } from "@mesh-core/core/text/connection-url"
import { migrations } from "./postgres.ts"

export interface StoreFound {
  readonly applied: number | undefined
  readonly carried: number
  readonly canEndSessions: boolean
  readonly canCreateSchema: boolean
  readonly key: string
  readonly skewMs: number
}

const Rights = Schema.Struct({
  ms: Schema.Number,
  end_sessions: Schema.Boolean,
  create_schema: Schema.Boolean,
  usable: Schema.Boolean,
})
const Tables = Schema.Struct({ migrated: Schema.Boolean, has_identity: Schema.Boolean })
const Applied = Schema.Struct({ v: Schema.NullOr(Schema.Number) })
const one = <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S, rows: ReadonlyArray<unknown>) =>
  Schema.decodeUnknownSync(schema)(rows[0])

const keyUsable = (privatePem: string, publicPem: string): string => {
  try {
    const said = Buffer.from("mesh-controller doctor")
    return verify(null, said, createPublicKey(publicPem), sign(null, said, createPrivateKey(privatePem)))
      ? "usable"
      : "its public half does not verify what its private half signs"
  } catch (e) {
    return errorText(e)
  }
}

export const probeStore = (url: string, schema: string): Effect.Effect<StoreFound, string> =>
  Effect.tryPromise({
    try: async () => {
      const sql = postgres(url, { max: 1, connect_timeout: 3, onnotice: () => undefined })
      try {
        await sql`select 1`
        const before = Date.now()
        const r = one(
          Rights,
          await sql`
          select extract(epoch from clock_timestamp())::float8 * 1000 as ms,
                 (select rolsuper from pg_roles where rolname = current_user)
                 or pg_has_role(current_user, 'pg_signal_backend', 'member') as end_sessions,
                 coalesce((select has_schema_privilege(oid, 'USAGE') and has_schema_privilege(oid, 'CREATE')
                           from pg_namespace where nspname = ${schema}),
                          has_database_privilege(current_database(), 'CREATE')) as create_schema,
                 coalesce((select has_schema_privilege(oid, 'USAGE') from pg_namespace where nspname = ${schema}),
                          false) as usable`,
        )
        // Its tables looked up only where the role may use the schema (a lookup there is refused).
        const t = r.usable
          ? one(
              Tables,
              await sql`
              select coalesce(has_table_privilege(to_regclass(${`${schema}.schema_migrations`}), 'SELECT'), false) as migrated,
                     coalesce(has_table_privilege(to_regclass(${`${schema}.identity`}), 'SELECT'), false) as has_identity`,
            )
          : { migrated: false, has_identity: false }
        const skewMs = r.ms - (before + Date.now()) / 2
        const applied = t.migrated
          ? (one(Applied, await sql`select max(version) as v from ${sql(schema)}.schema_migrations`).v ?? undefined)
          : undefined
        const keys = t.has_identity
          ? await sql`select private_pem, public_pem from ${sql(schema)}.identity where id = 1`
          : []
        const kept = keys.length === 0 ? undefined : one(IdentityRow, keys)
        return {
          applied,
          carried: Math.max(...migrations().map((m) => m.version)),
          canEndSessions: r.end_sessions,
          canCreateSchema: r.create_schema,
          key: kept === undefined ? "none" : keyUsable(kept.private_pem, kept.public_pem),
          skewMs,
        }
      } finally {
        await sql.end({ timeout: 1 })
      }
    },
    catch: (e) => withoutSecrets(errorText(e), url),
  })
