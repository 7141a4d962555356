// The soak lost a word in the store (issue 43): a key stayed at an older word though the bus had
// acknowledged and kept a newer one, in a run where a `serve` was cut off from its store with the
// traffic dropped silently. Here the standings follower alone, its store reached through a TCP proxy
// and every session bounded as `serve`'s are (lease/store-bounds.ts: the soak's lease of 6 s and
// renew deadline of 4 s leave 750 ms to a statement and to an idle transaction), keeps a stream of
// words while its store is cut off silently, cut off with connections reset, and has its sessions
// ended by the server mid-transaction. Each word is a key of its own, so once the faults heal every
// word the bus acknowledged must be kept: a batch whose words were not written is never passed over.
// The same with its bus cut off (silently, and with connections reset) and killed and started again.
// A private nats-server; the shared PostgreSQL behind a proxy of the test's own, in a schema of its own.
import { jetstream, jetstreamManager } from "@nats-io/jetstream"
import { headers } from "@nats-io/transport-node"
import { Effect, Fiber, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MeshBus } from "../../shells/src/bus/mesh-bus.ts"
import * as Bus from "../../shells/src/bus/nats.ts"
import { busNames, saidAtHeader } from "../../shells/src/bus/subjects.ts"
import { followStandings } from "../../shells/src/controller/follow.ts"
import * as Journal from "../../shells/src/journal.ts"
import { ControllerLease } from "../../shells/src/lease/service.ts"
import * as Store from "../../shells/src/store/postgres.ts"
import { failingBody, sleep } from "../support/private-controller.ts"
import { startPrivateNats } from "../support/private-servers.ts"
import { databaseUrl, eventually, requirePostgres, uniqueNames } from "../support/servers.ts"
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.ts"

let nats: Awaited<ReturnType<typeof startPrivateNats>>
let storeProxy: TcpProxy
let busProxy: TcpProxy
const schemas: Array<string> = []
beforeAll(async () => {
  nats = await startPrivateNats()
  storeProxy = await startTcpProxy(Number(new URL(databaseUrl).port || 5432))
  busProxy = await startTcpProxy(nats.port)
}, 30_000)
afterAll(async () => {
  await storeProxy?.stop()
  await busProxy?.stop()
  nats?.stop()
  const sql = await requirePostgres()
  for (const schema of schemas) await sql`drop schema if exists ${sql(schema)} cascade`
  await sql.end()
})

/**
 * The follower keeping words (each a key of its own, so a word passed over is never hidden by a newer
 * one for its key) while `faults` runs; then every word the bus acknowledged must be in the store.
 */
const everyWordKept = async (
  what: string,
  faults: (direct: Awaited<ReturnType<typeof requirePostgres>>) => Promise<string>,
) => {
  const { prefix, schema } = uniqueNames(what)
  schemas.push(schema)
  const names = busNames(prefix)
  const nc = await nats.connect()
  await (await jetstreamManager(nc)).streams.add({ name: names.stream, subjects: [names.failing, names.recovered] })
  await nc.close()
  const direct = await requirePostgres()
  await Effect.runPromise(Effect.scoped(Layer.build(Store.layerMigrated(databaseUrl, schema))))
  const viaProxy = new URL(databaseUrl)
  viaProxy.port = String(storeProxy.port)
  const fiber = Effect.runFork(
    followStandings({ names, batch: 50 }).pipe(
      Effect.provide(
        Layer.mergeAll(
          Bus.layer(`nats://127.0.0.1:${busProxy.port}`),
          Store.layer(viaProxy.toString(), schema, { statementMs: 750, idleInTransactionMs: 750, lockMs: 375 }),
          Journal.memoryLayer([]),
          ControllerLease.layerTest(1),
        ),
      ),
    ),
  )
  const acked = new Map<string, number>()
  let stopping = false
  const words = (async () => {
    let publisher: Awaited<ReturnType<typeof nats.connect>> | undefined
    for (let i = 0; !stopping; i += 1) {
      try {
        publisher ??= await nats.connect()
        const h = headers()
        h.set(saidAtHeader, new Date(Date.parse("2026-12-05T06:00:00Z") + i).toISOString())
        await jetstream(publisher).publish(names.failing, JSON.stringify(failingBody(i)), {
          headers: h,
          timeout: 2_000,
        })
        acked.set(`c${i}`, i + 1)
      } catch {
        await publisher?.close().catch(() => undefined)
        publisher = undefined
        await sleep(200)
      }
      await sleep(5)
    }
    await publisher?.close().catch(() => undefined)
  })()
  const said = await faults(direct)
  stopping = true
  await words
  const kept = async () =>
    new Map(
      (await direct`select consumer, attempts from ${direct(schema)}.standings`).map((r) => [
        String(r["consumer"]),
        Number(r["attempts"]),
      ]),
    )
  const missing = (now: Map<string, number>) =>
    [...acked].filter(([c, a]) => now.get(c) !== a).map(([c, a]) => `${c}: ${now.get(c)} for ${a}`)
  await eventually(
    "every word acknowledged kept",
    async () => (missing(await kept()).length === 0 ? true : undefined),
    60_000,
  ).catch(() => undefined)
  expect(acked.size).toBeGreaterThan(500)
  const lost = missing(await kept())
  expect(lost.slice(0, 10), `${lost.length} of ${acked.size} words not kept, after ${said}`).toEqual([])
  await Effect.runPromise(Fiber.interrupt(fiber))
  await direct.end()
}

describe("the standings follower, partitioned", () => {
  it(
    "keeps every word acknowledged through silent and reset partitions from its store and sessions ended",
    () =>
      everyWordKept("storecut", async (direct) => {
        // Silent, reset, and the server ending the follower's sessions (a fence or a bound would) in the
        // middle of whatever it was doing.
        const faults = { silent: 0, reset: 0, ended: 0 }
        for (let round = 0; round < 5; round += 1) {
          await sleep(1_500)
          storeProxy.stall()
          faults.silent += 1
          await sleep(1_000 + 400 * round)
          storeProxy.heal()
          await sleep(1_500)
          storeProxy.cut()
          faults.reset += 1
          await sleep(800)
          storeProxy.heal()
          await sleep(1_000)
          for (let k = 0; k < 5; k += 1) {
            // Only the follower's own sessions (those through this test's proxy), whatever they are doing
            // (busy, idle in a transaction, idle: asked only for busy ones, a run found none in 25 tries):
            // the server is shared, and ending every busy `mesh-core` session ended other files' tests
            // mid-query (57P01 in CI).
            // Not a session still asking for the array types: postgres.js sends that question on each
            // new connection and awaits it nowhere, so ending it there is an unhandled rejection in this
            // process, not the follower's (porsager/postgres#1192, #1223; docs/operations.md "Known: a store session ended as it starts").
            const ours = storeProxy.upstreamPorts()
            if (ours.length > 0) {
              const ended = await direct`select pg_terminate_backend(pid) from pg_stat_activity
              where client_port = any(${ours}::int[]) and client_addr = '127.0.0.1' and pid <> pg_backend_pid()
              and query not like '%pg_catalog.pg_type%'`
              faults.ended += ended.length
            }
            await sleep(150 + 97 * k)
          }
        }
        expect(faults.ended, "sessions of the follower's ended mid-statement").toBeGreaterThan(0)
        return JSON.stringify(faults)
      }),
    180_000,
  )

  it(
    "keeps every word acknowledged through its bus cut off, silently and reset, and killed",
    () =>
      everyWordKept("buscut", async () => {
        const faults = { silent: 0, reset: 0, killed: 0 }
        for (let round = 0; round < 4; round += 1) {
          await sleep(1_500)
          busProxy.stall()
          faults.silent += 1
          await sleep(1_000 + 1_000 * round)
          busProxy.heal()
          await sleep(1_500)
          busProxy.cut()
          faults.reset += 1
          await sleep(800)
          busProxy.heal()
          await sleep(1_500)
          await nats.kill()
          faults.killed += 1
          await sleep(500)
          await nats.start()
        }
        await sleep(1_000)
        return JSON.stringify(faults)
      }),
    180_000,
  )

  it("gives up a fetch its bus never answers within its bound, so the follower follows again", async () => {
    const { prefix } = uniqueNames("frozenbus")
    const names = busNames(prefix)
    const nc = await nats.connect()
    await (await jetstreamManager(nc)).streams.add({ name: names.stream, subjects: [names.failing, names.recovered] })
    await nc.close()
    const outcome = await Effect.runPromise(
      Effect.gen(function* () {
        const bus = yield* MeshBus
        const follower = yield* bus.followFrom(
          {
            stream: names.stream,
            subjects: [names.failing],
            eventOf: () => "failing",
            what: "follow the test's stream",
          },
          Effect.succeed(1),
        )
        expect(yield* follower.next(10)).toEqual([])
        nats.freeze()
        const began = Date.now()
        const frozen = yield* Effect.exit(follower.next(10).pipe(Effect.timeout("40 seconds")))
        const waited = Date.now() - began
        // Thawed before the connection is closed (closing waits on the bus).
        nats.thaw()
        return { frozen, waited }
      }).pipe(Effect.provide(MeshBus.layer.pipe(Layer.provide(Bus.layer(`nats://127.0.0.1:${busProxy.port}`))))),
    ).finally(() => nats.thaw())
    // Failed as the bus not answering (BusUnreachable), within the bound and its second, never the 40 s.
    expect(outcome.frozen._tag, JSON.stringify(outcome.frozen)).toBe("Failure")
    expect(JSON.stringify(outcome.frozen)).toContain("BusUnreachable")
    expect(outcome.waited).toBeLessThan(20_000)
  }, 90_000)
})
