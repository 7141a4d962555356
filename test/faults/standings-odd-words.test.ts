// Issue 14: one odd word among 200 ordinary ones. Before, it failed every batch for ever and status
// said well; now it is set aside and counted, and all 200 are kept. Against a nats-server of the
// test's own (the store is the shared PostgreSQL, in a schema of the test's own).
import { jetstream, jetstreamManager } from "@nats-io/jetstream"
import { connect, headers } from "@nats-io/transport-node"
import { Effect, Fiber, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Bus from "../../shells/src/bus/nats.ts"
import { busNames, saidAtHeader } from "../../shells/src/bus/subjects.ts"
import { followStandings } from "../../shells/src/controller/follow.ts"
import * as Journal from "../../shells/src/journal.ts"
import * as Store from "../../shells/src/store/postgres.ts"
import { databaseUrl, eventually, requirePostgres, runCli, uniqueNames } from "../support/servers.ts"
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

const good = (i: number) => ({ attempts: i + 1, class: "unreachable", consumer: `c${i}`, error: "timeout", node: "hq-3", provider: "pg", "provider-node": "hq-2", since: "2026-10-05T06:00:00Z" })
const odd: ReadonlyArray<{ name: string; body: object; at?: string }> = [
  { name: "attempts 2147483648", body: { ...good(900), attempts: 2147483648 } },
  { name: "attempts 1.5", body: { ...good(901), attempts: 1.5 } },
  { name: "a NUL in error", body: { ...good(902), error: "bad\u0000byte" } },
  { name: "Mesh-At in the year 275760", body: good(903), at: "+275760-09-13T00:00:00.000Z" },
]

describe("an odd word among 200 ordinary ones", () => {
  for (const o of odd) {
    it(`${o.name}: all 200 are kept, the odd one is set aside once and counted, and status is not well`, async () => {
      const { prefix, schema } = uniqueNames("odd")
      schemas.push(schema)
      const names = busNames(prefix)
      const nc = await connect({ servers: nats.url })
      await (await jetstreamManager(nc)).streams.add({ name: names.stream, subjects: [names.failing, names.recovered] })
      const js = jetstream(nc)
      for (let i = 0; i < 200; i++) {
        if (i === 3) {
          const h = headers()
          h.set(saidAtHeader, o.at ?? new Date(Date.parse("2026-10-05T06:10:00Z") + i).toISOString())
          await js.publish(names.failing, JSON.stringify(o.body), { headers: h })
        }
        const h = headers()
        h.set(saidAtHeader, new Date(Date.parse("2026-10-05T06:10:00Z") + i).toISOString())
        await js.publish(names.failing, JSON.stringify(good(i)), { headers: h })
      }
      await nc.close()
      const said: Array<string> = []
      const fiber = Effect.runFork(followStandings({ names, batch: 50 }).pipe(
        Effect.provide(Layer.mergeAll(Bus.layer(nats.url), Store.layerMigrated(databaseUrl, schema), Journal.memoryLayer(said))),
      ))
      const env = { DATABASE_URL: databaseUrl, MESH_STORE_SCHEMA: schema, MESH_STALE_AFTER: "1000000h" }
      const status = await eventually("all 200 kept and the odd one set aside", () => {
        const r = runCli(["status", "--json"], env)
        const json = r.out === "" ? undefined : JSON.parse(r.out)
        return json?.failing.length === 200 && json.setAside.count === 1 ? { ...r, json } : undefined
      }, 30_000)
      await Effect.runPromise(Fiber.interrupt(fiber))
      expect(status.code).toBe(1)
      expect(status.json.well).toBe(false)
      expect(status.json.failing.map((f: { consumer: string }) => f.consumer).sort()).toEqual(Array.from({ length: 200 }, (_, i) => `c${i}`).sort())
      expect(said.filter((l) => l.includes("set aside a word")).length).toBe(1)
      const text = runCli(["status"], env)
      expect(text.out).toContain("1 word set aside")
    }, 60_000)
  }
})
