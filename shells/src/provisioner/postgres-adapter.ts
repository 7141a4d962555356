// A provider of PostgreSQL databases (seed 000: the postgres provider carries this loop). For each
// consumer: a login role under the login and password the mesh minted, and a database named by its
// values (`name`, else the login) that the role owns. Holds logs in as the role with that password
// and checks it owns the database; Remove drops every database the role owns, then the role.
// Errors carry the seed's classes: a rejected admin password is credentials-rejected, a server that
// does not answer is unreachable, a refused statement is refused.
import postgres from "postgres"
import type { Provision } from "@mesh-core/core/provisioner/model"
import { Effect } from "effect"
import { type Adapter, AdapterError } from "./adapter.ts"

const unreachableCodes = new Set(["ECONNREFUSED", "ENOTFOUND", "ETIMEDOUT", "EHOSTUNREACH", "ECONNRESET", "CONNECT_TIMEOUT", "CONNECTION_CLOSED", "CONNECTION_ENDED", "CONNECTION_DESTROYED"])

/** The class of a PostgreSQL client error, from its SQLSTATE or socket code. */
export const classOfPostgres = (e: unknown): string | undefined => {
  const code = typeof e === "object" && e !== null && "code" in e ? String((e as { code: unknown }).code) : ""
  if (code === "28P01" || code === "28000") return "credentials-rejected"
  if (unreachableCodes.has(code) || code.startsWith("08") || code === "57P03") return "unreachable"
  if (code === "42501") return "refused"
  return undefined
}

const failure = (e: unknown): AdapterError =>
  new AdapterError({ text: e instanceof Error ? e.message : String(e), class: classOfPostgres(e) })

const ident = (name: string): string => `"${name.replace(/"/g, '""')}"`
// Utility statements take no parameters; standard_conforming_strings makes '' the only escape.
const literal = (text: string): string => `'${text.replace(/'/g, "''")}'`

export const databaseOf = (p: Provision): string => {
  const name = p.values["name"]
  return typeof name === "string" && name !== "" ? name : p.as
}

export interface PostgresProvider {
  /** The admin's connection URL; its password is never said. */
  readonly adminUrl: string
}

const quietly = { onnotice: () => undefined, connect_timeout: 5, max: 1, idle_timeout: 5 } as const

export const postgresAdapter = (options: PostgresProvider) =>
  Effect.acquireRelease(
    Effect.sync(() => postgres(options.adminUrl, { ...quietly, max: 2 })),
    (admin) => Effect.promise(() => admin.end({ timeout: 2 })),
  ).pipe(Effect.map((admin): Adapter => {
    const run = <A>(f: () => Promise<A>) => Effect.tryPromise({ try: f, catch: failure })
    return {
      create: (p) =>
        run(async () => {
          const db = databaseOf(p)
          const [role] = await admin`select 1 from pg_roles where rolname = ${p.as}`
          await admin.unsafe(`${role ? "alter" : "create"} role ${ident(p.as)} with login password ${literal(p.password)}`)
          // Since PostgreSQL 15 an admin that is not a superuser may give a database only to a role
          // it is a member of.
          if (!role) await admin.unsafe(`grant ${ident(p.as)} to current_user`)
          const [found] = await admin`select d.datdba = r.oid as owned from pg_database d, pg_roles r where d.datname = ${db} and r.rolname = ${p.as}`
          if (found === undefined) await admin.unsafe(`create database ${ident(db)} owner ${ident(p.as)}`)
          else if (found["owned"] !== true) await admin.unsafe(`alter database ${ident(db)} owner to ${ident(p.as)}`)
        }),
      holds: (p) =>
        run(async () => {
          const db = databaseOf(p)
          const [role] = await admin`select 1 from pg_roles where rolname = ${p.as} and rolcanlogin`
          if (role === undefined) return false
          const url = new URL(options.adminUrl)
          url.username = encodeURIComponent(p.as)
          url.password = encodeURIComponent(p.password)
          url.pathname = `/${encodeURIComponent(db)}`
          const asConsumer = postgres(url.toString(), quietly)
          try {
            const [me] = await asConsumer`select current_user as who,
              (select d.datdba = r.oid from pg_database d, pg_roles r where d.datname = current_database() and r.rolname = current_user) as owns`
            return me?.["who"] === p.as && me?.["owns"] === true
          } catch (e) {
            // The consumer's own login refused, or its database gone, is the backend no longer
            // holding it as the mesh says; anything else is not evidence of loss.
            const code = (e as { code?: string }).code
            if (code === "28P01" || code === "28000" || code === "3D000") return false
            throw e
          } finally {
            await asConsumer.end({ timeout: 1 })
          }
        }),
      remove: (as) =>
        run(async () => {
          const owned = await admin`select datname from pg_database d join pg_roles r on d.datdba = r.oid where r.rolname = ${as}`
          for (const row of owned) await admin.unsafe(`drop database if exists ${ident(row["datname"] as string)} with (force)`)
          await admin.unsafe(`drop role if exists ${ident(as)}`)
        }),
    }
  }))
