// The store: PostgreSQL through the porsager client, in the controller's own schema. Migrations are
// numbered SQL files applied at start, all in one transaction under an advisory lock, so two
// controllers starting at once apply each exactly once.
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import postgres from "postgres"
import { Context, Data, Effect, Layer } from "effect"
import { redactUrl } from "../config.ts"

export type Sql = postgres.Sql
export type Tx = postgres.TransactionSql

export class StoreUnreadable extends Data.TaggedError("StoreUnreadable")<{ readonly url: string; readonly reason: string }> {
  override get message(): string {
    return `the store at ${this.url} cannot be read: ${this.reason}`
  }
}

export class Store extends Context.Service<Store, { readonly sql: Sql; readonly url: string; readonly schema: string }>()("mesh-core/Store") {}

const reasonOf = (e: unknown): string => (e instanceof Error ? e.message : String(e))

export const storeError = (url: string) => (e: unknown) => new StoreUnreadable({ url: redactUrl(url), reason: reasonOf(e) })

const migrationsDir = join(import.meta.dirname, "migrations")

export const migrations = (): ReadonlyArray<{ version: number; name: string; text: string }> =>
  readdirSync(migrationsDir)
    .filter((f) => /^\d{4}_.+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: Number(f.slice(0, 4)), name: f, text: readFileSync(join(migrationsDir, f), "utf8") }))

/** Applies every migration not yet applied. Idempotent; safe against a second controller starting. */
export const migrate = (sql: Sql, schema: string) =>
  sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtext(${`mesh-core migrations ${schema}`}))`
    await tx`create schema if not exists ${tx(schema)}`
    await tx`create table if not exists ${tx(schema)}.schema_migrations (
      version integer primary key, name text not null, applied_at timestamptz not null default now())`
    const done = new Set((await tx`select version from ${tx(schema)}.schema_migrations`).map((r) => r["version"] as number))
    const applied: Array<string> = []
    for (const m of migrations()) {
      if (done.has(m.version)) continue
      await tx.unsafe(`set local search_path to "${schema.replace(/"/g, '""')}"`)
      await tx.unsafe(m.text)
      await tx`insert into ${tx(schema)}.schema_migrations (version, name) values (${m.version}, ${m.name})`
      applied.push(m.name)
    }
    return applied
  })

/**
 * Locks what a transaction is about to read, decide on and write, by key, until it ends. `FOR
 * UPDATE` locks only rows that exist: two controllers keeping the first word for a key would both
 * read nothing and the later write would win, newer or not. Keys share 256 locks per scope (two keys
 * in one only wait for each other), so a batch of a thousand never fills the server's lock table;
 * taken in one order, so two transactions never wait on each other in a circle.
 */
export const lockKeys = async (tx: Tx, scope: string, keys: ReadonlyArray<string>) => {
  if (keys.length === 0) return
  // JSON-quoted: a key may hold characters PostgreSQL text cannot (the standings' keys are NUL-separated).
  const quoted = [...new Set(keys)].map((k) => JSON.stringify(k))
  await tx`select pg_advisory_xact_lock(hashtext(${scope}), b) from (
    select distinct (abs(hashtext(k)) % 256)::int as b from unnest(${quoted}::text[]) as k order by b) as s`
}

/** A client for the store, checked to answer before it is handed out. */
export const open = (url: string, schema: string) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const sql = postgres(url, {
          max: 4, onnotice: () => undefined, connect_timeout: 5, idle_timeout: 20,
          connection: { search_path: schema, application_name: "mesh-core" },
        })
        try {
          await sql`select 1`
        } catch (e) {
          await sql.end({ timeout: 1 })
          throw e
        }
        return { sql, url, schema }
      },
      catch: storeError(url),
    }),
    ({ sql }) => Effect.promise(() => sql.end({ timeout: 5 })),
  )

export const layer = (url: string, schema: string) => Layer.effect(Store, open(url, schema))

/** The store, migrated: what the controller opens at start. */
export const layerMigrated = (url: string, schema: string) =>
  Layer.effect(
    Store,
    Effect.tap(open(url, schema), ({ sql }) => Effect.tryPromise({ try: () => migrate(sql, schema), catch: storeError(url) })),
  )
