// The rows a push writes when the gate sends through it under the lease (issue 13): the sequence it
// allots and the record of what it sent are each written in a transaction whose first statement is
// the store's fence, so a holder paused past its lease is refused by the store even after it passed
// the gate's own fence check. A sequence allotted for a declaration already sent stays allotted. Its
// grants pass the store's fence under the epoch before any membership goes out, and each membership
// carries the epoch as its `Mesh-Epoch` header (issue 26).
import { Effect, Exit, Layer } from "effect"
import postgres from "postgres"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Bus, open } from "../../shells/src/bus/nats.ts"
import { push, type PushOptions } from "../../shells/src/delivery/push.ts"
import { membershipSubject } from "../../shells/src/bus/delivery-streams.ts"
import { Fenced } from "../../shells/src/lease/fence.ts"
import { DeliveryStore } from "../../shells/src/store/delivery.ts"
import { Store } from "../../shells/src/store/postgres.ts"
import { liveMesh, onStream, shippedMesh } from "../support/mesh-run.ts"
import { databaseUrl, natsUrl, requireServers } from "../support/servers.ts"

const mesh = liveMesh("push_fence")
const { schema, names } = mesh
let sql: postgres.Sql

beforeAll(async () => {
  await requireServers()
  mesh.apply(shippedMesh())
  sql = postgres(databaseUrl, { max: 4, onnotice: () => undefined, connection: { search_path: schema } })
}, 120_000)

afterAll(async () => {
  await sql?.end({ timeout: 5 })
  await mesh.stop()
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

/** The memberships on the bus of these machines' modules, each with the epoch it carries. */
const membershipsOnTheBus = async (held: ReadonlyArray<{ node: string; module: string }>) =>
  (
    await Promise.all(
      held.map(async (m) =>
        (
          await onStream(`KV_${names.memberships}`, membershipSubject(names, m))
        ).map((x) => ({
          ...m,
          epoch: x.epoch,
        })),
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

  it("a holder whose lease passed to epoch 9 after the bus's machine was sent: its grants are refused by the store under 8, and no membership goes out", async () => {
    // hq-1 holds the bus: sent first, then the grants (core/src/delivery/order.ts). Another holder's
    // first write lands the moment hq-1's send is recorded: the trigger moves the store's fence to 9.
    await sql`create function take_over_at_record() returns trigger language plpgsql as $$
      begin perform mesh_fence(9); return new; end $$`
    await sql`create trigger take_over_at_record after insert or update on sent for each row when (new.node = 'hq-1') execute function take_over_at_record()`
    const modules = [
      { node: "hq-1", module: "broker" },
      { node: "hq-2", module: "postgres" },
    ]
    const grantedBefore = await membershipsOnTheBus(modules)
    const exit = await pushUnder(8, ["hq-1", "hq-2"])
    await sql`drop trigger take_over_at_record on sent`
    const refused = refusal(exit)
    expect(refused, String(exit)).toBeDefined()
    expect(refused).toMatchObject({ acting: 8, newest: 9 })
    // The bus's machine is sent with every push that finds it behind: its last declaration is this one's.
    expect((await declarationsOnTheBus(["hq-1"])).at(-1)?.epoch).toBe("8")
    // Nothing granted (the memberships on the bus are those an earlier push granted), and hq-2 was not sent.
    expect(await membershipsOnTheBus(modules)).toEqual(grantedBefore)
    expect(await declarationsOnTheBus(["hq-2"])).toEqual([])
  }, 60_000)

  it("under the newest epoch, every membership granted carries it (Mesh-Epoch), as the declarations do", async () => {
    const exit = await pushUnder(9, ["hq-1", "hq-2"])
    expect(Exit.isSuccess(exit), String(exit)).toBe(true)
    const granted = await membershipsOnTheBus([
      { node: "hq-1", module: "broker" },
      { node: "hq-2", module: "postgres" },
    ])
    expect(granted).toEqual([
      { node: "hq-1", module: "broker", epoch: "9" },
      { node: "hq-2", module: "postgres", epoch: "9" },
    ])
    expect((await declarationsOnTheBus(["hq-2"])).map((d) => d.epoch)).toEqual(["9"])
  }, 60_000)
})
