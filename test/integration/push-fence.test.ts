// The rows a push writes when the gate sends through it under the lease (issue 13): the sequence it
// allots and the record of what it sent are each written in a transaction whose first statement is
// the store's fence, so a holder paused past its lease is refused by the store even after it passed
// the gate's own fence check. A sequence allotted for a declaration already sent stays allotted.
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Exit, Layer } from "effect"
import postgres from "postgres"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Bus, open } from "../../shells/src/bus/nats.ts"
import { push, type PushOptions } from "../../shells/src/delivery/push.ts"
import { deliveryNames } from "../../shells/src/bus/delivery-names.ts"
import { Fenced } from "../../shells/src/lease/fence.ts"
import { DeliveryStore } from "../../shells/src/store/delivery.ts"
import { Store } from "../../shells/src/store/postgres.ts"
import { applyMesh, onStream } from "../support/mesh-run.ts"
import { cleanUp, databaseUrl, natsUrl, requireNats, requirePostgres, uniqueNames } from "../support/servers.ts"

const { prefix, schema } = uniqueNames("push_fence")
const env = { NATS_URL: natsUrl, DATABASE_URL: databaseUrl, MESH_BUS_PREFIX: prefix, MESH_STORE_SCHEMA: schema }
const names = deliveryNames(prefix)
const dir = mkdtempSync(join(tmpdir(), "mesh-core-push-fence-"))
let sql: postgres.Sql

beforeAll(async () => {
  await (await requireNats()).close()
  await (await requirePostgres()).end()
  applyMesh(dir, env, JSON.parse(readFileSync(join(import.meta.dirname, "../../examples/mesh.json"), "utf8")))
  sql = postgres(databaseUrl, { max: 4, onnotice: () => undefined, connection: { search_path: schema } })
}, 120_000)

afterAll(async () => {
  await sql?.end({ timeout: 5 })
  await cleanUp(prefix, schema)
  rmSync(dir, { recursive: true, force: true })
})

const pushUnder = (epoch: number, machines: ReadonlyArray<string>) =>
  Effect.runPromiseExit(
    push({
      machines,
      node: undefined,
      behind: false,
      wait: 0,
      names,
      say: () => Effect.void,
      epoch,
    } satisfies PushOptions).pipe(
      Effect.provide(
        Layer.mergeAll(
          DeliveryStore.layer.pipe(
            Layer.provideMerge(Layer.succeed(Store, Store.of({ sql, url: databaseUrl, schema }))),
          ),
          Layer.effect(Bus, open(natsUrl)),
        ),
      ),
      Effect.scoped,
    ),
  )

const refusal = (exit: Exit.Exit<unknown, unknown>) => {
  if (Exit.isSuccess(exit)) return undefined
  const e = exit.cause.reasons.find((r) => r._tag === "Fail")?.error
  return e instanceof Fenced ? e : undefined
}

const sequences = async () =>
  new Map(
    (await sql`select name, sequence::int as sequence from nodes`).map((r) => [
      String(r["name"]),
      Number(r["sequence"]),
    ]),
  )
const sentNodes = async () => (await sql`select node from sent order by node`).map((r) => String(r["node"]))

/** The declarations on the bus for these machines, each with the epoch it carries. */
const declarationsOnTheBus = async (machines = ["hq-1", "hq-2", "hq-3", "hq-4", "hq-5"]) =>
  (
    await Promise.all(
      machines.map(async (node) =>
        (await onStream(names.declarations, names.declareSubject(node))).map((m) => ({ node, epoch: m.epoch })),
      ),
    )
  ).flat()

describe("a push the gate sends under the lease writes its rows behind the store's fence", () => {
  it("under an epoch older than the store's newest, no sequence is allotted and nothing is sent or recorded", async () => {
    await sql`select mesh_fence(5)`
    const before = await sequences()
    const exit = await pushUnder(4, ["hq-2"])
    const refused = refusal(exit)
    expect(refused, String(exit)).toBeDefined()
    expect(refused!.acting).toBe(4)
    expect(refused!.newest).toBe(5)
    expect(await sequences()).toEqual(before)
    expect(await sentNodes()).toEqual([])
    expect(await declarationsOnTheBus()).toEqual([])
  }, 60_000)

  it("a holder whose lease passed to epoch 7 between its sequence and its record: the declaration went out under 6, its record is refused, the sequence stays taken", async () => {
    // Another holder's first write lands the moment this one's sequence is taken (a pause past the
    // lease, made deterministic): the trigger moves the store's fence to 7 inside that transaction.
    await sql`create function take_over() returns trigger language plpgsql as $$
      begin perform mesh_fence(7); return new; end $$`
    await sql`create trigger take_over after update of sequence on nodes for each row when (new.name = 'hq-3') execute function take_over()`
    const before = await sequences()
    const exit = await pushUnder(6, ["hq-3"])
    await sql`drop trigger take_over on nodes`
    const refused = refusal(exit)
    expect(refused, String(exit)).toBeDefined()
    expect(refused!.acting).toBe(6)
    expect(refused!.newest).toBe(7)
    const onTheBus = await declarationsOnTheBus()
    expect(onTheBus.length).toBe(1)
    expect(onTheBus[0]!.epoch).toBe("6")
    expect(await sentNodes()).toEqual([])
    const after = await sequences()
    expect(after.get(onTheBus[0]!.node)).toBe(before.get(onTheBus[0]!.node)! + 1)
  }, 60_000)

  it("under the newest epoch, the machine is sent, its record written and its sequence taken", async () => {
    const before = await sequences()
    const exit = await pushUnder(7, ["hq-3"])
    expect(Exit.isSuccess(exit), String(exit)).toBe(true)
    expect(await sentNodes()).toContain("hq-3")
    expect((await sequences()).get("hq-3")).toBe(before.get("hq-3")! + 1)
    expect((await declarationsOnTheBus()).filter((d) => d.node === "hq-3").at(-1)?.epoch).toBe("7")
  }, 60_000)
})
