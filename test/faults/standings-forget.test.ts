// Issue 14: a standing nobody repeats is shown stale, and a person can forget it; an older word
// cannot bring it back and a newer word still counts. Private nats-server; the shared PostgreSQL in
// a schema of the test's own.
import { jetstream, jetstreamManager } from "@nats-io/jetstream"
import { connect, headers } from "@nats-io/transport-node"
import { Effect, Fiber, Layer } from "effect"
import { ControllerLease } from "../../shells/src/lease/service.ts"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Bus from "../../shells/src/bus/nats.ts"
import { busNames, saidAtHeader } from "../../shells/src/bus/subjects.ts"
import { followStandings } from "../../shells/src/controller/follow.ts"
import * as Journal from "../../shells/src/journal.ts"
import * as Store from "../../shells/src/store/postgres.ts"
import { databaseUrl, eventually, requirePostgres, runCli, uniqueNames, dropSchemas } from "../support/servers.ts"
import { startPrivateNats } from "../support/private-servers.ts"
import { unreachableWord } from "../support/standing-words.ts"

let nats: Awaited<ReturnType<typeof startPrivateNats>>
const { prefix, schema } = uniqueNames("forget")
beforeAll(async () => {
  nats = await startPrivateNats()
}, 30_000)
afterAll(async () => {
  nats?.stop()
  await dropSchemas([schema])
})

const body = (attempts: number) => unreachableWord("letta", attempts, "2026-10-05T06:00:00Z")

describe("forgetting a stale standing", () => {
  it("stale is shown and counted; forget clears it with who; an older word changes nothing; a newer word counts", async () => {
    const names = busNames(prefix)
    const nc = await connect({ servers: nats.url })
    await (await jetstreamManager(nc)).streams.add({ name: names.stream, subjects: [names.failing, names.recovered] })
    const js = jetstream(nc)
    const publish = async (attempts: number, at: string) => {
      const h = headers()
      h.set(saidAtHeader, at)
      await js.publish(names.failing, JSON.stringify(body(attempts)), { headers: h })
    }
    const fiber = Effect.runFork(
      followStandings({ names, batch: 10 }).pipe(
        Effect.provide(
          Layer.mergeAll(
            Bus.layer(nats.url),
            Store.layerMigrated(databaseUrl, schema),
            Journal.memoryLayer([]),
            ControllerLease.layerTest(1),
          ),
        ),
      ),
    )
    const env = { DATABASE_URL: databaseUrl, MESH_STORE_SCHEMA: schema }
    const status = () => {
      const r = runCli(["status", "--json"], env)
      return { code: r.code, json: r.out === "" ? undefined : JSON.parse(r.out) }
    }
    // The follower runs in this process: wait on the store with async queries, never with a
    // spawnSync'd status in a loop, which blocks the event loop the follower needs on a loaded machine.
    const probe = await requirePostgres()
    const failingAttempts = async () =>
      (await probe`select attempts from ${probe(schema)}.standings where state = 'failing'`.catch(() => [])).map((r) =>
        Number(r["attempts"]),
      )
    await publish(5, "2026-10-05T06:10:00.000Z")
    await eventually(
      "the standing kept",
      async () => ((await failingAttempts()).length === 1 ? true : undefined),
      50_000,
    )
    const stale = await eventually(
      "status saying it",
      () => (status().json?.failing.length === 1 ? status() : undefined),
      20_000,
    )
    expect(stale.code).toBe(1)
    expect(stale.json.failing[0]).toMatchObject({ consumer: "letta", stale: true })
    expect(runCli(["status"], env).out).toContain("STALE pg on hq-2 is failing letta")

    expect(runCli(["standings", "forget", "pg", "nobody", "--by", "ana"], env).code).toBe(2)
    const forgot = runCli(["standings", "forget", "pg", "letta", "--by", "ana"], env)
    expect(forgot.code, forgot.err).toBe(0)
    expect(status()).toMatchObject({ code: 0, json: { well: true } })
    const sql = await requirePostgres()
    const [row] = await sql`select state, forgotten_by, word_order from ${sql(schema)}.standings`
    expect(row).toMatchObject({ state: "forgotten", forgotten_by: "ana" })
    // the key migration 0012 computes for rows kept before it is the core's key
    // (run again over a row the core keyed, it leaves the key as it is)
    await sql.begin(async (tx) => {
      await tx.unsafe(`set local search_path to "${schema}"`)
      await tx.unsafe(
        readFileSync(
          join(import.meta.dirname, "../../shells/src/store/migrations/0012_word_order_attempts_said.sql"),
          "utf8",
        ),
      )
    })
    const [migrated] = await sql`select word_order from ${sql(schema)}.standings`
    expect(migrated!["word_order"]).toBe(row!["word_order"])

    await publish(6, "2026-10-05T06:11:00.000Z") // older than the forget: changes nothing
    await new Promise((r) => setTimeout(r, 2_500))
    expect(status().code).toBe(0)
    await publish(7, new Date(Date.now() - 1_000 + 2_000).toISOString()) // newer: counts, and is not stale
    await eventually(
      "the newer word kept",
      async () => ((await failingAttempts()).join() === "7" ? true : undefined),
      50_000,
    )
    await probe.end()
    const again = await eventually("status saying it", () => (status().code === 1 ? status() : undefined), 20_000)
    expect(again.json.failing[0]).toMatchObject({ attempts: 7, stale: false })
    await sql.end()
    await nc.close()
    await Effect.runPromise(Fiber.interrupt(fiber))
  }, 150_000)
})
