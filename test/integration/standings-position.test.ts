// The standings follower reads its stream from a position it keeps in the store, with the words it
// read up to there (position.ts, issue 11), over the real NATS and PostgreSQL: a batch handed back
// comes again from the position kept; a restarted follower reads nothing twice; a controller that
// followed with the durable consumer of before starts after what that acknowledged, and removes it
// once a position is kept; a stream deleted and made again is read from its start.
import { AckPolicy, jetstream, jetstreamManager } from "@nats-io/jetstream"
import { headers } from "@nats-io/transport-node"
import { Effect, Fiber, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Delivered, MeshBus } from "../../shells/src/bus/mesh-bus.ts"
import * as Bus from "../../shells/src/bus/nats.ts"
import { busNames, saidAtHeader } from "../../shells/src/bus/subjects.ts"
import { followStandings } from "../../shells/src/controller/follow.ts"
import * as Journal from "../../shells/src/journal.ts"
import { ControllerLease } from "../../shells/src/lease/service.ts"
import * as Store from "../../shells/src/store/postgres.ts"
import {
  cleanUp,
  databaseUrl,
  eventually,
  natsUrl,
  requireNats,
  requirePostgres,
  requireServers,
  uniqueNames,
} from "../support/servers.ts"

const corners: Array<{ prefix: string; schema: string }> = []

beforeAll(requireServers)

afterAll(async () => {
  for (const c of corners) await cleanUp(c.prefix, c.schema)
})

/** Publishes words `from`..`to` (each its own standing, failing), numbered as their attempts. */
const publish = async (subjects: { readonly failing: string; readonly stream: string }, from: number, to: number) => {
  const nc = await requireNats()
  const js = jetstream(nc)
  for (let i = from; i <= to; i++) {
    const h = headers()
    h.set(saidAtHeader, new Date(Date.parse("2026-12-01T06:00:00Z") + i * 1_000).toISOString())
    await js.publish(
      subjects.failing,
      JSON.stringify({
        attempts: i,
        class: "unreachable",
        consumer: `c${i}`,
        error: "timeout",
        node: "hq-3",
        provider: "p",
        "provider-node": "hq-2",
        since: "2026-12-01T06:00:00Z",
      }),
      { headers: h },
    )
  }
  await nc.close()
}

/** A test's own bus prefix and store schema, its stream made, with `words` words said on it. */
const corner = async (what: string, words: number) => {
  const names = uniqueNames(what)
  corners.push(names)
  const bus = busNames(names.prefix)
  const nc = await requireNats()
  const jsm = await jetstreamManager(nc)
  await jsm.streams.add({ name: bus.stream, subjects: [bus.failing, bus.recovered] })
  await publish(bus, 1, words)
  return { ...names, bus, nc, jsm }
}

describe("a stream followed from a kept position", () => {
  it("hands out batches from the position asked, and after a batch is handed back, from the position asked again, on one consumer", async () => {
    const { prefix, bus: names, nc, jsm } = await corner("follow_from", 9)
    let kept = 0
    let asked = 0
    const from = Effect.sync(() => (asked++, kept + 1))
    const seqs = (batch: ReadonlyArray<Delivered>) => batch.map((d) => d.heard.seq)
    const consumers = async () => {
      let n = 0
      for await (const _ of jsm.consumers.list(names.stream)) n++
      return n
    }
    await Effect.runPromise(
      Effect.gen(function* () {
        const bus = yield* MeshBus
        const follower = yield* bus.followFrom(
          {
            stream: names.stream,
            subjects: [names.failing, names.recovered],
            eventOf: (s) => s,
            what: `follow ${prefix}`,
          },
          from,
        )
        expect(seqs(yield* follower.next(3))).toEqual([1, 2, 3])
        kept = 3
        const second = yield* follower.next(3)
        expect(seqs(second)).toEqual([4, 5, 6])
        expect(asked).toBe(1)
        second[0]!.settle.nak(1_000)
        expect(seqs(yield* follower.next(3))).toEqual([4, 5, 6])
        expect(asked).toBe(2)
        // The consumer handed back is gone: one consumer follows the stream, not one per hand-back.
        expect(yield* Effect.promise(consumers)).toBe(1)
        kept = 6
        expect(seqs(yield* follower.next(5))).toEqual([7, 8, 9])
        expect(yield* follower.next(5)).toEqual([])
      }).pipe(Effect.provide(MeshBus.layer.pipe(Layer.provide(Bus.layer(natsUrl))))),
    )
    await nc.close()
  })
})

describe("the standings follower's position", () => {
  it("starts after what the durable consumer of before acknowledged, reads nothing twice when restarted, removes the durable once a position is kept, and reads a stream made again from its start", async () => {
    const { schema, bus: names, nc, jsm } = await corner("upgrade", 30)
    // The durable consumer a controller of before followed with, which kept words 1..10.
    await jsm.consumers.add(names.stream, { durable_name: names.durable, ack_policy: AckPolicy.Explicit })
    const durable = await jetstream(nc).consumers.get(names.stream, names.durable)
    for await (const m of await durable.fetch({ max_messages: 10, expires: 2_000 })) await m.ackAck()
    expect((await jsm.consumers.info(names.stream, names.durable)).ack_floor.stream_seq).toBe(10)

    const lines: Array<string> = []
    const layers = Layer.mergeAll(
      Bus.layer(natsUrl),
      Store.layerMigrated(databaseUrl, schema),
      Journal.memoryLayer(lines),
      ControllerLease.layerTest(1),
    )
    const follow = (expected: number) =>
      Effect.runPromise(
        Effect.gen(function* () {
          let kept = 0
          const fiber = yield* Effect.forkChild(followStandings({ names, batch: 7, onKept: (n) => void (kept += n) }))
          yield* Effect.promise(() => eventually(`${expected} words kept`, () => (kept >= expected ? true : undefined)))
          // Whatever else it would read, it has read within a fetch's wait.
          yield* Effect.sleep("1500 millis")
          yield* Fiber.interrupt(fiber)
          return kept
        }).pipe(Effect.provide(layers)),
      )
    const sql = await requirePostgres()
    const state = async () => ({
      consumers: (await sql`select consumer from ${sql(schema)}.standings order by attempts`).map((r) => r["consumer"]),
      position: (
        await sql`select seq::int from ${sql(schema)}.stream_positions where stream = ${names.stream} and follower = ${names.durable}`
      ).map((r) => r["seq"]),
    })
    const durableThere = async () =>
      jsm.consumers.info(names.stream, names.durable).then(
        () => true,
        () => false,
      )

    expect(await follow(20)).toBe(20)
    expect(await state()).toEqual({ consumers: Array.from({ length: 20 }, (_, i) => `c${i + 11}`), position: [30] })
    expect(lines.some((l) => l.includes(`from the position kept as ${names.durable}`))).toBe(true)

    await publish(names, 31, 35)
    expect(await follow(5)).toBe(5)
    expect(await state()).toEqual({ consumers: Array.from({ length: 25 }, (_, i) => `c${i + 11}`), position: [35] })
    expect(await durableThere()).toBe(false)

    // The stream deleted and made again: its new words are read from its start, not passed over
    // until their sequences reach the position kept in the old one.
    await jsm.streams.delete(names.stream)
    await jsm.streams.add({ name: names.stream, subjects: [names.failing, names.recovered] })
    await publish(names, 36, 38)
    expect(await follow(3)).toBe(3)
    expect(await state()).toEqual({ consumers: Array.from({ length: 28 }, (_, i) => `c${i + 11}`), position: [3] })
    expect(lines).toContain(
      "[controller] the position kept, 35, is past the stream's last message, 3: the stream was made again; following it from its start",
    )
    await sql.end()
    await nc.close()
  }, 60_000)
})
