// A provider of PostgreSQL databases (seed 000: the postgres provider carries this loop). For each
// consumer: a login role under the login and password the mesh minted, and a database named by its
// values (`name`, else the login) that the role owns. Holds logs in as the role with that password
// and checks it owns the database; Remove drops every database the role owns, then the role.
// Errors carry the seed's classes: a rejected admin password is credentials-rejected, a server that
// does not answer is unreachable, a refused statement is refused.
//
// No SQL text is ever made of a password (issue 14: with `standard_conforming_strings = off` a
// password `x\'; create role injected; --` ran as SQL, and one of the form `md5` + 32 hex digits was
// stored as a hash its consumer could never log in with). The role is given a SCRAM-SHA-256 verifier
// computed here, which is digits, base64 and `$:` only. Names are double-quoted identifiers, in
// which no setting gives a backslash a meaning; a name PostgreSQL would cut short or refuse is
// refused before any statement is sent.
import postgres from "postgres"
import type { Provision } from "@mesh-core/core/provisioner/model"
import { Effect } from "effect"
import { type Adapter, AdapterError } from "./adapter.ts"
import { scramVerifier, verifierShape } from "./scram.ts"
import { errorText } from "@mesh-core/core/text/error-text"

const unreachableCodes = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ECONNRESET",
  "CONNECT_TIMEOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
])

/** The class of a PostgreSQL client error, from its SQLSTATE or socket code. */
const classOfPostgres = (e: unknown): string | undefined => {
  const code = typeof e === "object" && e !== null && "code" in e ? String((e as { code: unknown }).code) : ""
  if (code === "28P01" || code === "28000") return "credentials-rejected"
  if (unreachableCodes.has(code) || code.startsWith("08") || code === "57P03") return "unreachable"
  if (code === "42501") return "refused"
  return undefined
}

const failure = (e: unknown): AdapterError =>
  new AdapterError({ text: errorText(e), class: classOfPostgres(e), cause: e })

// PostgreSQL keeps NAMEDATALEN - 1 = 63 bytes of a name and silently drops the rest, so two long
// names would be one role, and a name with NUL cannot be sent at all.
const longestName = 63

/** Why a role or database name cannot be used as it is, or undefined when it can. */
export const nameProblem = (what: string, name: string): string | undefined => {
  if (name === "") return `the ${what} name is empty`
  if (name.includes("\u0000")) return `the ${what} name holds a NUL byte`
  const bytes = Buffer.byteLength(name, "utf8")
  if (bytes > longestName) return `the ${what} name is ${bytes} bytes; PostgreSQL keeps only ${longestName}`
  return undefined
}

const ident = (name: string): string => `"${name.replace(/"/g, '""')}"`

/** A verifier as a literal: checked to hold no quote and no backslash, so no setting can change it. */
const verifierLiteral = (password: string): string => {
  const v = scramVerifier(password)
  if (!verifierShape.test(v)) throw new Error("the SCRAM verifier is not of its shape")
  return `'${v}'`
}

// An empty password is no login (PostgreSQL stores none), and the client would fall back to the
// admin's from the URL.
const emptyPassword = (password: string): string | undefined =>
  password === "" ? "the minted password is empty" : undefined

const refusedName = (problem: string) => new AdapterError({ text: problem, class: "refused" })

const databaseOf = (p: Provision): string => {
  const name = p.values["name"]
  return typeof name === "string" && name !== "" ? name : p.as
}

export interface PostgresProvider {
  /** The admin's connection URL; its password is never said. */
  readonly adminUrl: string
}

// No array types fetched at connect: postgres.js runs that fetch as a promise nobody awaits, so a
// backend reset or ended during it is an unhandled rejection that ends the provider (the soak, seed 42:
// `provide` ended by itself with `read ECONNRESET` after recovering from a store stop; porsager/postgres
// #1192, #1223). The provider reads and binds no arrays, and reserves no connection (#1219).
const quietly = { onnotice: () => undefined, connect_timeout: 5, max: 1, idle_timeout: 5, fetch_types: false } as const

export const postgresAdapter = (options: PostgresProvider) =>
  Effect.acquireRelease(
    Effect.sync(() => postgres(options.adminUrl, { ...quietly, max: 2 })),
    (admin) => Effect.tryPromise(() => admin.end({ timeout: 2 })).pipe(Effect.ignore),
  ).pipe(
    Effect.map((admin): Adapter => {
      const run = <A>(f: () => Promise<A>) => Effect.tryPromise({ try: f, catch: failure })
      return {
        create: (p) => {
          const db = databaseOf(p)
          const problem = nameProblem("role", p.as) ?? nameProblem("database", db) ?? emptyPassword(p.password)
          if (problem !== undefined) return Effect.fail(refusedName(problem))
          return run(async () => {
            const [role] = await admin`select 1 from pg_roles where rolname = ${p.as}`
            await admin.unsafe(
              `${role ? "alter" : "create"} role ${ident(p.as)} with login password ${verifierLiteral(p.password)}`,
            )
            // Since PostgreSQL 15 an admin that is not a superuser may give a database only to a role
            // it is a member of.
            if (!role) await admin.unsafe(`grant ${ident(p.as)} to current_user`)
            const [found] =
              await admin`select d.datdba = r.oid as owned from pg_database d, pg_roles r where d.datname = ${db} and r.rolname = ${p.as}`
            if (found === undefined) await admin.unsafe(`create database ${ident(db)} owner ${ident(p.as)}`)
            else if (found["owned"] !== true) await admin.unsafe(`alter database ${ident(db)} owner to ${ident(p.as)}`)
          })
        },
        holds: (p) => {
          const db = databaseOf(p)
          const problem = nameProblem("role", p.as) ?? nameProblem("database", db) ?? emptyPassword(p.password)
          if (problem !== undefined) return Effect.fail(refusedName(problem))
          return run(async () => {
            const [role] = await admin`select 1 from pg_roles where rolname = ${p.as} and rolcanlogin`
            if (role === undefined) return false
            // The consumer's login given as options, not spliced into a URL: nothing to escape.
            const asConsumer = postgres(options.adminUrl, {
              ...quietly,
              username: p.as,
              password: p.password,
              database: db,
            })
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
          })
        },
        remove: (as) => {
          const problem = nameProblem("role", as)
          if (problem !== undefined) return Effect.fail(refusedName(problem))
          return run(async () => {
            const owned =
              await admin`select datname from pg_database d join pg_roles r on d.datdba = r.oid where r.rolname = ${as}`
            for (const row of owned)
              await admin.unsafe(`drop database if exists ${ident(String(row["datname"]))} with (force)`)
            await admin.unsafe(`drop role if exists ${ident(as)}`)
          })
        },
      }
    }),
  )
