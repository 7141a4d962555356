// `serve` establishes its signing identity at start and says it (seed 002: "Established at start
// rather than on first use. A control plane that cannot sign is one whose declarations every node
// correctly refuses, and that should be a startup failure"; issue 28). Before, a controller that
// could not sign found out at its first send. Over the real servers.
import { afterAll, describe, expect, it } from "vitest"
import {
  cleanUp,
  databaseUrl,
  eventually,
  natsUrl,
  queryPostgres,
  runCli,
  startCli,
  uniqueNames,
} from "../support/servers.ts"

const worlds: Array<{ prefix: string; schema: string }> = []
const world = (what: string) => {
  const names = uniqueNames(what)
  worlds.push(names)
  return {
    ...names,
    env: {
      NATS_URL: natsUrl,
      DATABASE_URL: databaseUrl,
      MESH_BUS_PREFIX: names.prefix,
      MESH_STORE_SCHEMA: names.schema,
    },
  }
}
afterAll(async () => {
  for (const w of worlds) await cleanUp(w.prefix, w.schema)
})

describe("serve's signing identity", () => {
  it("said at start in the seed's line, the key `identity` gives out, before the lease is taken", async () => {
    const w = world("signs")
    const serve = startCli(["serve"], w.env)
    try {
      const line = await eventually(
        "signing as",
        () =>
          serve
            .output()
            .split("\n")
            .find((l) => l.includes("signing as")),
        60_000,
      )
      const id = runCli(["identity", "--json"], w.env)
      expect(id.code, id.err).toBe(0)
      const fingerprint = JSON.parse(id.out).fingerprint as string
      expect(line).toBe(`[controller] signing as ${fingerprint.slice(0, 16)}`)
      await eventually(
        "the lease",
        () => (serve.output().includes("holds the controller lease") ? true : undefined),
        60_000,
      )
      expect(serve.output().indexOf("signing as")).toBeLessThan(serve.output().indexOf("holds the controller lease"))
    } finally {
      await serve.stop()
    }
  }, 120_000)

  it("a key the store keeps that cannot be used refuses the start (exit 1), before anything acts", async () => {
    const w = world("nosign")
    expect(runCli(["identity"], w.env).code).toBe(0)
    await queryPostgres((sql) => sql`update ${sql(w.schema)}.identity set private_pem = 'not a key'`)
    const serve = startCli(["serve"], w.env)
    const code = await eventually("serve to end", () => serve.process.exitCode ?? undefined, 60_000)
    expect(code, serve.output()).toBe(1)
    expect(serve.output()).toContain(
      "this controller cannot sign (the controller's signing key kept in the store cannot be used:",
    )
    expect(serve.output()).toContain("every machine would refuse what it declares: it does not start")
    expect(serve.output()).not.toContain("holds the controller lease")
    expect(serve.output()).not.toMatch(/\n\s+at /)
  }, 120_000)
})
