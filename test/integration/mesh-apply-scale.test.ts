// Records at the scale the store takes (issue 28): `mesh apply` of 400,000 machines failed with the
// store's parameter limit (a parameter a machine, 65,535 at most) and was said as "the store cannot be
// read", exit 3; checking the records took 70 s (a pairwise search for names given twice). Now the
// machines go to the store as one array, the check is one pass, and a document over the size a
// records file may be is refused before the store is opened, naming the limit.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { cleanUp, databaseUrl, natsUrl, queryPostgres, runCli, uniqueNames } from "../support/servers.ts"

const { prefix, schema } = uniqueNames("scale")
const env = { NATS_URL: natsUrl, DATABASE_URL: databaseUrl, MESH_BUS_PREFIX: prefix, MESH_STORE_SCHEMA: schema }
const dir = mkdtempSync(join(tmpdir(), "mesh-core-scale-"))
afterAll(async () => {
  await cleanUp(prefix, schema)
  rmSync(dir, { recursive: true, force: true })
})

const records = (machines: number, everyNth: number) => ({
  mesh: "hq",
  nodes: Array.from({ length: machines }, (_, i) => `m-${String(i).padStart(6, "0")}`),
  modules: [
    { name: "broker", build: "broker-41", busUsers: true, claims: ["bus"] },
    { name: "letta", build: "letta-203" },
  ],
  assignments: [
    { module: "broker", node: "m-000000" },
    ...Array.from({ length: Math.floor(machines / everyNth) }, (_, i) => ({
      module: "letta",
      node: `m-${String(i * everyNth + 1).padStart(6, "0")}`,
    })),
  ],
})
const apply = (r: unknown, name: string) => {
  const file = join(dir, name)
  writeFileSync(file, JSON.stringify(r))
  return { file, ...runCli(["mesh", "apply", file], env) }
}
const machinesKept = () =>
  queryPostgres(async (sql) => Number((await sql`select count(*)::int as n from ${sql(schema)}.nodes`)[0]!["n"]))

describe("mesh apply at scale", () => {
  it("400,000 machines apply, and a smaller document afterwards leaves only its own", async () => {
    const started = Date.now()
    const big = apply(records(400_000, 40), "big.json")
    expect(big.code, big.err).toBe(0)
    expect(big.out).toContain("400000 machine(s), 2 module(s), 10001 assignment(s)")
    expect(await machinesKept()).toBe(400_000)
    console.log(`mesh apply of 400,000 machines: ${Date.now() - started} ms`)
    const small = apply(records(1_000, 40), "small.json")
    expect(small.code, small.err).toBe(0)
    expect(await machinesKept()).toBe(1_000)
  }, 120_000)

  it("a document over the size a records file may be is refused before the store is opened, the limit named", () => {
    const r = apply(records(400_000, 1), "too-big.json")
    expect(r.code, r.err).toBe(2)
    expect(r.err).toMatch(/too-big\.json: cannot be read: \d+ bytes, over the 8388608 it may be/)
  })
})
