// `mesh-controller doctor` (issue 44) against the real servers and against each broken ground: a
// closed port, a store role that may not end other sessions, a bus without JetStream, replicas a
// single server cannot hold. Each broken one: exit 1 and the line naming it; serve refuses the ones
// that could only fail later (issue 43), exit 2, before opening the store. The shared servers are
// never touched: the role is made for this file and dropped, the bus without JetStream is our own.
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { connect } from "@nats-io/transport-node"
import postgres from "postgres"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { cliPath } from "../support/cli.ts"
import { freePort } from "../support/private-servers.ts"
import { databaseUrl, natsUrl, requireNats, requirePostgres } from "../support/servers.ts"

const top = new URL("../..", import.meta.url).pathname
const role = `mesh_doctor_${process.pid}`
let plainBus: ChildProcess | undefined
let plainBusUrl = ""

const run = (args: ReadonlyArray<string>, env: Record<string, string> = {}) => {
  const r = spawnSync(process.execPath, [cliPath, ...args], {
    cwd: top,
    encoding: "utf8",
    env: {
      PATH: process.env["PATH"] ?? "",
      NATS_URL: natsUrl,
      DATABASE_URL: databaseUrl,
      MESH_METRICS_ADDR: "127.0.0.1:0",
      ...env,
    },
  })
  return { code: r.status, out: r.stdout, err: r.stderr }
}
const line = (out: string, check: string) => out.split("\n").find((l) => l.slice(5).startsWith(`${check} `)) ?? ""

beforeAll(async () => {
  await (await requireNats()).close()
  await (await requirePostgres()).end()
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => undefined })
  await sql.unsafe(`create role ${role} login`)
  await sql.end()
  const port = await freePort()
  plainBusUrl = `nats://127.0.0.1:${port}`
  plainBus = spawn("/usr/sbin/nats-server", ["-a", "127.0.0.1", "-p", String(port)], { stdio: "ignore" })
  for (let i = 0; i < 100; i++) {
    try {
      await (await connect({ servers: plainBusUrl, timeout: 300 })).close()
      return
    } catch {
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  throw new Error(`our nats-server without JetStream at ${plainBusUrl} did not start`)
})

afterAll(async () => {
  if (plainBus?.pid !== undefined) process.kill(plainBus.pid, "SIGKILL")
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => undefined })
  await sql.unsafe(`drop role if exists ${role}`)
  await sql.end()
})

describe("mesh-controller doctor", () => {
  it("on the local servers: every check ok, one line each, exit 0; --json the same findings", () => {
    const r = run(["doctor"])
    expect(r.code, r.out + r.err).toBe(0)
    const checks = ["settings", "bus", "jetstream", "replicas", "message-limit", "bus-clock", "store"]
    for (const c of [...checks, "migrations", "fence", "schema", "signing-key", "store-clock", "metrics-port"])
      expect(line(r.out, c), c).toMatch(/^ok {3}/)
    const json = run(["doctor", "--json"])
    expect(json.code).toBe(0)
    const findings: Array<{ check: string; ok: boolean; line: string }> = JSON.parse(json.out)
    expect(findings.map((f) => f.check)).toContain("fence")
    expect(findings.every((f) => f.ok)).toBe(true)
  })

  it("a closed port: the bus or the store that does not answer named, with what to do, exit 1", async () => {
    const closed = await freePort()
    const bus = run(["doctor"], { NATS_URL: `nats://127.0.0.1:${closed}` })
    expect(bus.code).toBe(1)
    expect(line(bus.out, "bus")).toBe(
      `FIX  bus           the bus at nats://127.0.0.1:${closed} does not answer: connection refused; start nats-server or fix NATS_URL`,
    )
    const store = run(["doctor", "--json"], { DATABASE_URL: `postgres://postgres@127.0.0.1:${closed}/test` })
    expect(store.code).toBe(1)
    const findings: Array<{ check: string; ok: boolean; line: string }> = JSON.parse(store.out)
    expect(findings.filter((f) => !f.ok).map((f) => f.check)).toEqual(["store"])
    expect(findings.find((f) => f.check === "store")?.line).toContain("start PostgreSQL or fix DATABASE_URL")
  })

  it("a store role without the right to end other sessions: the fence named, GRANT pg_signal_backend said, exit 1; its schema rights too", () => {
    const r = run(["doctor"], { DATABASE_URL: `postgres://${role}@127.0.0.1:5432/test` })
    expect(r.code, r.out + r.err).toBe(1)
    expect(line(r.out, "fence"), r.out).toBe(
      "FIX  fence         the store's role cannot end other sessions, so a takeover cannot fence the old holder: GRANT pg_signal_backend TO the role",
    )
    expect(line(r.out, "store")).toMatch(/^ok {3}/)
    // Nor may it create a schema in the database, or use one another role made.
    expect(line(r.out, "schema")).toMatch(/^FIX {2}schema +the store's role can neither create its schema nor use/)
  })

  it("a bus without JetStream: named, exit 1; serve refuses it at start, exit 2", () => {
    const r = run(["doctor"], { NATS_URL: plainBusUrl })
    expect(r.code).toBe(1)
    expect(line(r.out, "jetstream")).toMatch(
      /^FIX {2}jetstream +JetStream cannot be used: .*start nats-server with -js/,
    )
    const serve = run(["serve"], { NATS_URL: plainBusUrl, MESH_BUS_PREFIX: role, MESH_STORE_SCHEMA: role })
    expect(serve.code, serve.err).toBe(2)
    expect(serve.err).toContain("JetStream cannot be used")
  })

  it("replicas beyond the cluster's size: said as such; serve refuses them before opening the store (issue 43)", async () => {
    const r = run(["doctor"], { MESH_LEASE_REPLICAS: "3" })
    expect(r.code).toBe(1)
    expect(line(r.out, "replicas")).toContain(
      "MESH_BUS_REPLICAS 1 / MESH_LEASE_REPLICAS 3: 3 copies asked of a bus of 1 server(s), which can never hold them",
    )
    const sql = postgres(databaseUrl, { max: 1, onnotice: () => undefined })
    const serve = run(["serve"], { MESH_BUS_REPLICAS: "3", MESH_BUS_PREFIX: role, MESH_STORE_SCHEMA: role })
    expect(serve.code, serve.err).toBe(2)
    expect(serve.err).toContain("3 copies asked of a bus of 1 server(s)")
    // Nothing was made in the store: refused before it was opened.
    const made = await sql`select 1 from pg_namespace where nspname = ${role}`
    await sql.end()
    expect(made.length).toBe(0)
  })
})
