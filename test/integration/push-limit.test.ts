// A push whose declaration would be over the bus's message limit (issue 28), over a NATS of the
// test's own whose max_payload is 8 KiB and the shared PostgreSQL: the machine holding the bus, whose
// declaration carries the user list of the whole mesh, is refused before its sequence is taken,
// naming both sizes; every other machine is sent; the push ends 1.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { applyMesh } from "../support/mesh-run.ts"
import { type PrivateNats, startPrivateNats } from "../support/private-servers.ts"
import { cleanUp, databaseUrl, queryPostgres, runCli, uniqueNames } from "../support/servers.ts"

const { prefix, schema } = uniqueNames("limitpush")
const dir = mkdtempSync(join(tmpdir(), "mesh-core-limit-push-"))
let nats: PrivateNats
let env: Record<string, string>
const machines = Array.from({ length: 300 }, (_, i) => `m-${i}`)

beforeAll(async () => {
  nats = await startPrivateNats(undefined, 8 * 1024)
  env = { NATS_URL: nats.url, DATABASE_URL: databaseUrl, MESH_BUS_PREFIX: prefix, MESH_STORE_SCHEMA: schema }
  applyMesh(dir, env, {
    mesh: "hq",
    nodes: machines,
    modules: [
      { name: "broker", build: "broker-41", busUsers: true, claims: ["bus"], subscribes: ["mesh.>"] },
      { name: "app", build: "app-1", publishes: ["app.>"] },
    ],
    assignments: [{ module: "broker", node: "m-0" }, ...machines.slice(1).map((node) => ({ module: "app", node }))],
  })
}, 60_000)
afterAll(async () => {
  nats?.stop()
  await cleanUp(prefix, schema)
  rmSync(dir, { recursive: true, force: true })
})

describe("push, over the bus's message limit", () => {
  it("the holder refused before its number is taken, the limit named; every other machine sent", async () => {
    const r = runCli(["push"], env)
    expect(r.code, r.err).toBe(1)
    expect(r.out + r.err).toMatch(
      /m-0's declaration would be \d+ bytes on the bus, over the 8192 bytes it takes in one message \(its max_payload\): nothing was sent and no sequence number was taken/,
    )
    const sent = await queryPostgres(async (sql) =>
      (await sql`select node from ${sql(schema)}.sent order by node`).map((x) => String(x["node"])),
    )
    expect(sent).toHaveLength(299)
    expect(sent).not.toContain("m-0")
    // No number taken for it; every other machine took its first.
    const numbers = await queryPostgres(async (sql) =>
      Object.fromEntries(
        (await sql`select name, sequence::int as n from ${sql(schema)}.nodes`).map((x) => [String(x["name"]), x["n"]]),
      ),
    )
    expect(numbers["m-0"]).toBe(0)
    expect(numbers["m-1"]).toBe(1)
  }, 60_000)
})
