// Issue 14: SIGTERM stops serve within 2 s and a clean stop exits 0, even with the bus frozen
// (before, exit 130, and with the bus frozen serve ignored SIGTERM for 30 s). The bus is a private
// nats-server, frozen by PID; the store is the shared PostgreSQL in a schema of the test's own.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { databaseUrl, eventually, requirePostgres, startCli, uniqueNames } from "../support/servers.ts"
import { startPrivateNats } from "../support/private-servers.ts"

let nats: Awaited<ReturnType<typeof startPrivateNats>>
const schemas: Array<string> = []
beforeAll(async () => { nats = await startPrivateNats() }, 30_000)
afterAll(async () => {
  nats?.stop()
  const sql = await requirePostgres()
  for (const s of schemas) await sql`drop schema if exists ${sql(s)} cascade`
  await sql.end()
})

const stopped = async (signal: NodeJS.Signals, freeze: boolean) => {
  const { prefix, schema } = uniqueNames("sig")
  schemas.push(schema)
  const serve = startCli(["serve"], { NATS_URL: nats.url, DATABASE_URL: databaseUrl, MESH_BUS_PREFIX: prefix, MESH_STORE_SCHEMA: schema })
  await eventually("serve following", () => (serve.output().includes("following") ? true : undefined), 30_000)
  if (freeze) nats.freeze()
  const exited = new Promise<{ code: number | null; ms: number }>((resolve) => {
    const t0 = Date.now()
    serve.process.once("exit", (code) => resolve({ code, ms: Date.now() - t0 }))
  })
  serve.process.kill(signal)
  const r = await exited
  if (freeze) nats.thaw()
  return r
}

describe("signals", () => {
  it("SIGTERM with the bus answering: exit 0 within 2 s", async () => {
    const r = await stopped("SIGTERM", false)
    expect(r.code).toBe(0)
    expect(r.ms).toBeLessThan(2_000)
  }, 60_000)

  it("SIGTERM with the bus frozen (SIGSTOP): exit 0 within 2 s", async () => {
    const r = await stopped("SIGTERM", true)
    expect(r.code).toBe(0)
    expect(r.ms).toBeLessThan(2_000)
  }, 60_000)

  it("SIGINT with the bus frozen: exit 0 within 2 s", async () => {
    const r = await stopped("SIGINT", true)
    expect(r.code).toBe(0)
    expect(r.ms).toBeLessThan(2_000)
  }, 60_000)
})
