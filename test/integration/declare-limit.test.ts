// A declaration over the bus's message limit (issue 28): a 30 MB declaration sent by hand was blamed
// on the store ("the store cannot be read", exit 3) and used up a sequence number the machine never
// saw. Now it is refused before a sequence is taken, naming the bus's limit, exit 2; the next
// declaration takes the number that was free. Over the real servers.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { applyMesh } from "../support/mesh-run.ts"
import { cleanUp, databaseUrl, natsUrl, queryPostgres, runCli, uniqueNames } from "../support/servers.ts"

const { prefix, schema } = uniqueNames("limit")
const env = { NATS_URL: natsUrl, DATABASE_URL: databaseUrl, MESH_BUS_PREFIX: prefix, MESH_STORE_SCHEMA: schema }
const dir = mkdtempSync(join(tmpdir(), "mesh-core-limit-"))
beforeAll(() => {
  applyMesh(dir, env, { mesh: "hq", nodes: ["hq-1"], modules: [], assignments: [] })
})
afterAll(async () => {
  await cleanUp(prefix, schema)
  rmSync(dir, { recursive: true, force: true })
})

const sentSequence = () =>
  queryPostgres(
    async (sql) => (await sql`select sequence from ${sql(schema)}.sent where node = 'hq-1'`)[0]?.["sequence"],
  )

describe("declare by hand, over the bus's limit", () => {
  it("refused before a sequence is taken, naming the limit; the next one takes sequence 1", async () => {
    const big = join(dir, "big.json")
    writeFileSync(big, JSON.stringify({ resources: [], padding: "x".repeat(2 * 1024 * 1024) }))
    const r = runCli(["declare", "hq-1", big], env)
    expect(r.code, r.err).toBe(2)
    expect(r.err).toMatch(
      /big\.json: hq-1's declaration would be \d+ bytes on the bus, over the 1048576 bytes it takes in one message \(its max_payload\): nothing was sent and no sequence number was taken/,
    )
    expect(await sentSequence()).toBeUndefined()
    const small = join(dir, "small.json")
    writeFileSync(small, JSON.stringify({ resources: [] }))
    const ok = runCli(["declare", "hq-1", small], env)
    expect(ok.code, ok.err).toBe(0)
    expect(Number(await sentSequence())).toBe(1)
  }, 60_000)
})

// Issue 43: a 100,000-character build was kept with its plan. Refused by its bound, exit 2, before
// any plan is stored or anything sent.
describe("release with a build over its bound", () => {
  it("refused naming the bound; no plan kept", async () => {
    const r = runCli(["release", "letta", "--build", "b".repeat(100_000), "--commit", "c0ffee", "--first", "hq-1"], env)
    expect(r.code, r.err).toBe(2)
    expect(r.err).toBe("--build: 100000 characters, over the 1024 it may be\n")
    const plans = await queryPostgres(
      async (sql) => (await sql`select count(*)::int as n from ${sql(schema)}.plans`)[0]?.["n"],
    )
    expect(plans).toBe(0)
  }, 60_000)
})
