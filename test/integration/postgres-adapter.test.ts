// The PostgreSQL adapter: its errors carry the seed's classes, and no password is ever SQL (issue 14).
// The hostile passwords run against a private cluster whose admin role has
// `standard_conforming_strings = off`, the setting under which a quoted password once ran as SQL.
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import postgres from "postgres"
import { nameProblem, postgresAdapter } from "../../shells/src/provisioner/postgres-adapter.ts"
import { keysOf, scramVerifier, verifierShape } from "../../shells/src/provisioner/scram.ts"
import { startBackendPostgres } from "../support/servers.ts"

const provision = { as: "mesh_nobody", password: "pw-unused-1", values: {}, derived: {}, at: "hq-3", consumer: "hq-3" }
const outcome = (adminUrl: string) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const adapter = yield* postgresAdapter({ adminUrl })
        return yield* Effect.flip(adapter.create(provision))
      }),
    ),
  )

describe("the PostgreSQL adapter", () => {
  it("classes a stopped server as unreachable, without saying the admin password", async () => {
    const e = await outcome("postgres://mesh_admin:s3cret-admin@127.0.0.1:1/postgres")
    expect(e.class).toBe("unreachable")
    expect(e.text).not.toContain("s3cret-admin")
  })

  it("refuses names PostgreSQL would cut short or cannot take, before sending anything", () => {
    expect(nameProblem("role", "a".repeat(63))).toBeUndefined()
    expect(nameProblem("role", "a".repeat(64))).toContain("64 bytes")
    expect(nameProblem("role", "é".repeat(32))).toContain("64 bytes")
    expect(nameProblem("role", "a\u0000b")).toContain("NUL")
    expect(nameProblem("database", "")).toContain("empty")
  })
})

const hostile = [
  "x\\'; create role injected; --",
  `md5${"0123456789abcdef".repeat(2)}`,
  "e",
  'it\'s \\\\ "quoted" $$ $x$',
  "pässwörd ünïcode",
]
const adminPassword = "adm1n-Pw-4-private"

describe("the PostgreSQL adapter under standard_conforming_strings = off", () => {
  let backend: Awaited<ReturnType<typeof startBackendPostgres>>
  let sql: postgres.Sql
  beforeAll(async () => {
    backend = await startBackendPostgres(adminPassword)
    sql = backend.admin()
    await sql`alter role mesh_admin set standard_conforming_strings = off`
    await sql`alter role mesh_admin set escape_string_warning = off`
  }, 60_000)
  afterAll(async () => {
    await sql?.end({ timeout: 1 })
    backend?.stop()
  })

  const withAdapter = <A>(f: (a: Effect.Success<ReturnType<typeof postgresAdapter>>) => Effect.Effect<A, unknown>) =>
    Effect.runPromise(Effect.scoped(Effect.flatMap(postgresAdapter({ adminUrl: backend.url(adminPassword) }), f)))

  it("computes the verifier PostgreSQL itself computes for the same password and salt", async () => {
    // The server, given a plain password (as a parameterless literal of safe characters here, in the
    // test only), stores its own verifier; ours under the same salt must be that verifier exactly.
    for (const [i, pw] of ["pencil", "e", "Zq9-long-minted-password-XXXXXXXXXXXXXXXXXXXX", "pässwörd"].entries()) {
      const role = `mesh_scram_${i}`
      const admin = postgres(backend.url(adminPassword), { max: 1, onnotice: () => undefined })
      await admin.unsafe(`set password_encryption = 'scram-sha-256'`)
      await admin.unsafe(`create role ${role} password '${pw}'`)
      const [row] = await admin`select rolpassword from pg_authid where rolname = ${role}`
      await admin.end()
      const stored = String(row!["rolpassword"])
      expect(stored).toMatch(verifierShape)
      expect(scramVerifier(pw, keysOf(stored)!)).toBe(stored)
    }
    expect(scramVerifier("pencil")).not.toBe(scramVerifier("pencil")) // a fresh salt each time
  })

  it("makes logins for hostile passwords that run no SQL, store no md5 hash, and log in", async () => {
    const admin = postgres(backend.url(adminPassword), { max: 1, onnotice: () => undefined })
    const [setting] = await admin`show standard_conforming_strings`
    expect(setting!["standard_conforming_strings"]).toBe("off")
    await admin.end()
    const provisions = hostile.map((password, i) => ({
      ...provision,
      as: `mesh_hostile_${i}`,
      password,
      values: { name: `db "${i}" \\ x` },
    }))
    const held = await withAdapter((a) => Effect.forEach(provisions, (p) => Effect.andThen(a.create(p), a.holds(p))))
    expect(held).toEqual(provisions.map(() => true))
    const injected = await sql`select rolname from pg_roles where rolname = 'injected'`
    expect(injected).toHaveLength(0)
    const rows =
      await sql`select rolname, rolpassword from pg_authid where rolname like 'mesh_hostile_%' order by rolname`
    expect(rows.map((r) => String(r["rolpassword"]))).toEqual(
      provisions.map(() => expect.stringMatching(verifierShape)),
    )
    // Each logs in with its password directly, not only through the adapter's Holds.
    for (const p of provisions) {
      const me = postgres(backend.url(adminPassword), {
        max: 1,
        onnotice: () => undefined,
        username: p.as,
        password: p.password,
        database: p.values.name,
      })
      const [who] = await me`select current_user as u`
      await me.end()
      expect(who!["u"]).toBe(p.as)
    }
    // A wrong password is still refused, and Holds then says not held.
    const wrong = { ...provisions[1]!, password: "not-the-one" }
    expect(await withAdapter((a) => a.holds(wrong))).toBe(false)
    await withAdapter((a) => Effect.forEach(provisions, (p) => a.remove(p.as, {})))
    expect(await sql`select 1 from pg_roles where rolname like 'mesh_hostile_%'`).toHaveLength(0)
  }, 60_000)
})
