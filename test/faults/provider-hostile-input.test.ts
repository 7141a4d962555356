// The shipped `provide postgres` against a private cluster whose admin role runs with
// standard_conforming_strings = off and a private nats-server (issue 14): hostile passwords make no
// SQL and all log in, malformed documents and a document withdrawing everyone withdraw nothing, no
// password in any form is in any byte it wrote, any bus message or any row we can read, and it is
// still running at the end.
import { connect } from "@nats-io/transport-node"
import postgres from "postgres"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { leaksOf } from "../support/leaks.ts"
import { providerFiles } from "../support/private-provider.ts"
import { startPrivateNats } from "../support/private-servers.ts"
import { eventually, startBackendPostgres, startCli } from "../support/servers.ts"

const passwords: Record<string, string> = {
  mesh_inject: "x\\'; create role injected; --",
  mesh_md5: `md5${"0123456789abcdef".repeat(2)}`,
  mesh_e: "e",
}
const adminPassword = "private-admin-pw-7"

describe("provide postgres fed hostile input", () => {
  let backend: Awaited<ReturnType<typeof startBackendPostgres>>
  let nats: Awaited<ReturnType<typeof startPrivateNats>>
  let sql: postgres.Sql
  beforeAll(async () => {
    backend = await startBackendPostgres(adminPassword)
    sql = backend.admin()
    await sql`alter role mesh_admin set standard_conforming_strings = off`
    await sql`alter role mesh_admin set escape_string_warning = off`
    nats = await startPrivateNats()
  }, 60_000)
  afterAll(async () => {
    await sql?.end({ timeout: 1 })
    backend?.stop()
    nats?.stop()
  })

  it("makes no SQL of a password, withdraws nothing for a malformed or emptying document, leaks nothing", async () => {
    const files = providerFiles(passwords)
    const bus: Array<string> = []
    const tap = await connect({ servers: nats.url })
    const sub = tap.subscribe(">")
    void (async () => {
      for await (const m of sub) bus.push(`${m.subject} ${m.string()} ${m.headers?.toString() ?? ""}`)
    })()
    const provider = startCli(
      [
        "provide",
        "postgres",
        "--receives",
        files.receives,
        "--outbox",
        `${files.dir}/outbox`,
        "--node",
        "hq-1",
        "--set",
        "every=250ms",
        "--set",
        "verifyEvery=250ms",
        "--set",
        "failingAfter=2s",
      ],
      { PROVIDER_ADMIN_URL: backend.url(adminPassword), NATS_URL: nats.url, MESH_BUS_PREFIX: "faults" },
    )
    let badInputs = 0
    try {
      const logsIn = async (as: string) => {
        const me = postgres(backend.url(adminPassword), {
          max: 1,
          onnotice: () => undefined,
          username: as,
          password: passwords[as]!,
          database: as,
          connect_timeout: 2,
        })
        try {
          return (await me`select current_user as u`)[0]!["u"] === as
        } finally {
          await me.end({ timeout: 1 })
        }
      }
      for (const as of Object.keys(passwords))
        await eventually(
          `${as} logs in with its password`,
          async () => ((await logsIn(as)) ? true : undefined),
          15_000,
        ).catch((e) => {
          throw new Error(`${e.message}\n${provider.output()}`)
        })
      expect(await sql`select 1 from pg_roles where rolname = 'injected'`).toHaveLength(0)
      const stillThere = async () => {
        await new Promise((r) => setTimeout(r, 1_500))
        const roles =
          await sql`select rolname from pg_roles where rolname like 'mesh_%' and rolname <> 'mesh_admin' order by rolname`
        expect(roles.map((r) => r["rolname"])).toEqual(Object.keys(passwords).sort())
        for (const as of Object.keys(passwords)) expect(await logsIn(as)).toBe(true)
      }
      const given = Object.keys(passwords)
      for (const bad of [
        `{"given":[null,null]}`,
        JSON.stringify({
          given: given.map((as, i) => (i === 0 ? { as, node: "n" } : { as, secret: files.secretOf(as), node: "n" })),
        }),
        `{"given":[]}`,
        JSON.stringify({ given: [{ as: given[0], secret: files.secretOf(given[0]!), node: "n" }] }),
      ]) {
        files.writeText(bad)
        badInputs += 1
        await stillThere()
      }
      expect(provider.output()).toContain("cannot be read as a grant")
      expect(provider.output()).toContain("has no secret")
      expect(provider.output()).toContain("WITHDRAWAL HELD")
      expect(provider.process.exitCode).toBeNull()
      const rows = await sql`select rolname, rolpassword::text as p from pg_authid`
      const found = leaksOf([...Object.values(passwords), adminPassword], {
        output: provider.output(),
        bus: bus.join("\n"),
        rows: JSON.stringify(rows.filter((r) => r["rolname"] !== "mesh_admin")),
      })
      console.log(
        `hostile input: ${badInputs + Object.keys(passwords).length} bad inputs tried, ${found.length} secrets found, ${bus.length} bus messages searched`,
      )
      expect(found).toEqual([])
    } finally {
      await provider.stop()
      await tap.close()
      files.remove()
    }
  }, 60_000)
})
