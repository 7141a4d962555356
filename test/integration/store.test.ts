// The store: numbered migrations applied at start, once, however many controllers start together;
// and a store that cannot be read never reads as well.
import fc from "fast-check"
import { afterAll, describe, expect, it } from "vitest"
import { Effect, Layer } from "effect"
import { keepReport } from "@mesh-core/core/delivery/reports"
import { keepStatement } from "@mesh-core/core/gate/messages/statements"
import { done } from "@mesh-core/core/outcome"
import { type Answers, drive } from "../../shells/src/program/drive.ts"
import type { StatementQuestions } from "@mesh-core/core/gate/messages/questions"
import type { deliveryQuestions } from "@mesh-core/core/delivery/questions"
import type { setAsideQuestions } from "@mesh-core/core/standings/questions"
import * as Journal from "../../shells/src/journal.ts"
import { DeliveryStore, holdNodes } from "../../shells/src/store/delivery.ts"
import { GateStore } from "../../shells/src/store/gate.ts"
import * as Store from "../../shells/src/store/postgres.ts"
import { migrate, migrations, StoreTransaction, type StoreUnreadable } from "../../shells/src/store/postgres.ts"
import { StandingsStore, writeKept } from "../../shells/src/store/standings.ts"
import { arrayLiteral } from "../../shells/src/store/array-literal.ts"
import type { Kept } from "@mesh-core/core/standings/standings"
import { databaseUrl, requirePostgres, runCli, uniqueNames, dropSchemas } from "../support/servers.ts"

const schemas: Array<string> = []

afterAll(() => dropSchemas(schemas))

describe("the store", () => {
  it("applies every numbered migration exactly once, even when two controllers start at the same moment", async () => {
    const { schema } = uniqueNames("migrate")
    schemas.push(schema)
    const a = await requirePostgres()
    const b = await requirePostgres()
    const [first, second] = await Promise.all([migrate(a, schema), migrate(b, schema)])
    expect([...first, ...second].sort()).toEqual(migrations().map((m) => m.name))
    expect(await migrate(a, schema)).toEqual([])
    const rows = await a`select version, name from ${a(schema)}.schema_migrations order by version`
    expect(rows.map((r) => r["name"])).toEqual(migrations().map((m) => m.name))
    const [table] = await a`select to_regclass(${`${schema}.standings`}) is not null as present`
    expect(table!["present"]).toBe(true)
    await a.end()
    await b.end()
  })

  it("the order key migration 0012 gives a row kept before it is the key the core gives it: every field, escaped, absent or not", async () => {
    const { schema } = uniqueNames("order_key")
    schemas.push(schema)
    const sql = await requirePostgres()
    await migrate(sql, schema)
    const base: Kept = {
      provider: "p",
      providerNode: "hq-2",
      consumer: "c",
      state: "failing",
      at: Date.parse("2026-12-01T06:00:00.123Z"),
      consumerNode: "hq-3",
      class: "unreachable",
      error: "timeout",
      since: "2026-12-01T05:00:00Z",
      attempts: 3,
    }
    const kept: Array<Kept> = [
      base,
      { ...base, consumer: "pipes", error: "a|b\\c\\|d", class: "x\\-", consumerNode: "ünïcode 😀" },
      {
        ...base,
        consumer: "recovered",
        state: "recovered",
        why: "",
      },
      { ...base, consumer: "forgotten", state: "forgotten", why: "-", by: "ana|\\-", since: "t|\\" },
    ]
    await sql.begin(async (tx) => {
      await tx.unsafe(`set local search_path to "${schema}"`)
      await writeKept(tx as unknown as Parameters<typeof writeKept>[0], kept)
    })
    const before = await sql`select consumer, word_order from ${sql(schema)}.standings order by consumer`
    expect(before).toHaveLength(kept.length)
    await sql.begin(async (tx) => {
      await tx.unsafe(`set local search_path to "${schema}"`)
      await tx.unsafe(migrations().find((m) => m.version === 12)!.text)
    })
    const after = await sql`select consumer, word_order from ${sql(schema)}.standings order by consumer`
    expect(after).toEqual(before)
    await sql.end()
  })

  it("an array literal written by hand reads back through PostgreSQL as the values it was made of: text, integers, times, nulls", async () => {
    const sql = await requirePostgres()
    // Read back element by element: porsager's own reading of an array answers the text "NULL" for a null.
    const elements = async (literal: string, type: string) =>
      (await sql.unsafe(`select x from unnest($1::${type}) with ordinality as u(x, i) order by i`, [literal])).map(
        (r) => r["x"],
      )
    // Every character PostgreSQL's text takes (not NUL), with the ones an array literal treats specially often.
    const special = fc.constantFrom('"', "\\", ",", "{", "}", " ", "NULL", "null", "", "'", "\t", "\n", "😀", "ü")
    const text = fc
      .oneof(
        fc.string({ unit: "grapheme" }),
        fc.array(special, { maxLength: 6 }).map((xs) => xs.join("")),
        special,
      )
      .filter((t) => !t.includes("\u0000"))
    await fc.assert(
      fc.asyncProperty(fc.array(fc.option(text, { nil: null }), { maxLength: 12 }), async (xs) => {
        expect(await elements(arrayLiteral(xs), "text[]")).toEqual(xs)
      }),
      { numRuns: 200 },
    )
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.option(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { nil: null }), { maxLength: 12 }),
        async (xs) => {
          expect(await elements(arrayLiteral(xs), "int[]")).toEqual(xs)
        },
      ),
      { numRuns: 50 },
    )
    const times = fc.array(
      fc.date({ min: new Date("1990-01-01T00:00:00Z"), max: new Date("2100-01-01T00:00:00Z"), noInvalidDate: true }),
      { maxLength: 12 },
    )
    await fc.assert(
      fc.asyncProperty(times, async (ds) => {
        const [row] =
          await sql`select array(select (extract(epoch from t) * 1000)::float8 from unnest(${arrayLiteral(ds.map((d) => d.toISOString()))}::timestamptz[]) as t) as a`
        expect(row!["a"]).toEqual(ds.map((d) => d.getTime()))
      }),
      { numRuns: 50 },
    )
    await sql.end()
  })

  it("status on a store that cannot be read says so, names the store without its password, and exits 3, never well", () => {
    const r = runCli(["status"], { DATABASE_URL: "postgres://postgres:hunter2@127.0.0.1:1/test" })
    expect(r.code).toBe(3)
    expect(r.out).toBe("")
    expect(r.err).toContain("the store at postgres://postgres:***@127.0.0.1:1/test cannot be read")
    expect(r.err).not.toContain("hunter2")
  })

  it("status on a store never set up says how to set it up, and exits 3", () => {
    const r = runCli(["status", "--json"], { MESH_STORE_SCHEMA: uniqueNames("never").schema })
    expect(r.code).toBe(3)
    expect(r.err).toContain("no standings table yet")
  })

  it("holds machines from composing to sending: a second push on a machine the first holds waits until it lets go (ADR 0100)", async () => {
    const a = await requirePostgres()
    const b = await requirePostgres()
    const machine = `${uniqueNames("hold").prefix}-hq-2`
    const releaseFirst = await holdNodes(a, [`${machine}-x`, machine])
    let secondHeld = false
    const second = holdNodes(b, [machine]).then((release) => {
      secondHeld = true
      return release
    })
    await new Promise((r) => setTimeout(r, 400))
    expect(secondHeld).toBe(false)
    const other = await holdNodes(b, [`${machine}-y`]) // a machine nobody holds is not kept waiting
    await other()
    await releaseFirst()
    const releaseSecond = await second
    expect(secondHeld).toBe(true)
    await releaseSecond()
    await a.end()
    await b.end()
  })

  it("a hold whose session the store ended lets go quietly, and the machine can be held again (issue 43)", async () => {
    // Found by the soak: the store stopped while a push held its machines, and the release's unlock,
    // written to a connection the client had let go, ended serve (porsager/postgres#1208).
    const a = await requirePostgres()
    const b = await requirePostgres()
    const machine = `${uniqueNames("gone").prefix}-hq-2`
    const release = await holdNodes(a, [machine])
    const holders = await b`select pid from pg_locks where locktype = 'advisory' and granted
      and objid = hashtext(${`mesh-core node ${machine}`})::oid`
    expect(holders).toHaveLength(1)
    await b`select pg_terminate_backend(${holders[0]!["pid"]})`
    await new Promise((r) => setTimeout(r, 300))
    await release()
    const again = await holdNodes(b, [machine])
    await again()
    await a.end()
    await b.end()
  })

  it("two controllers keeping the first words about a machine at once: the newer is kept, whichever commits last", async () => {
    const { schema } = uniqueNames("race")
    schemas.push(schema)
    const setup = await requirePostgres()
    await migrate(setup, schema)
    await setup.end()
    // Two controllers: each its own client, services and transactions, driving the core's programs.
    const controller = (url: string) =>
      Layer.mergeAll(GateStore.layer, DeliveryStore.layer, StandingsStore.layer, StoreTransaction.layer).pipe(
        Layer.provideMerge(Store.layer(url, schema)),
        Layer.provideMerge(Journal.memoryLayer([])),
      )
    const keepingStatement = (program: ReturnType<typeof keepStatement>) =>
      Effect.gen(function* () {
        const gates = yield* GateStore
        const standings = yield* StandingsStore
        const tx = yield* StoreTransaction
        const answers: Answers<StatementQuestions, StoreUnreadable, never> = {
          "kept-statement": (q) => gates.keptStatement(q.machine),
          "write-statement": (q) => Effect.as(gates.writeStatement(q.statement, q.streaks), done),
          "raise-condition": (q) => Effect.as(gates.raiseCondition(q.observation, q.at), done),
          "clear-condition": (q) => Effect.as(gates.clearCondition(q.key, q.by), done),
          "set-aside": (q) => Effect.map(standings.setAside(q.letters), (fresh) => ({ fresh: [...fresh] })),
        }
        return yield* tx.within(drive(program, answers))
      })
    const keepingReport = (program: ReturnType<typeof keepReport>) =>
      Effect.gen(function* () {
        const delivery = yield* DeliveryStore
        const standings = yield* StandingsStore
        const tx = yield* StoreTransaction
        const answers: Answers<typeof deliveryQuestions & typeof setAsideQuestions, StoreUnreadable, never> = {
          "kept-report": (q) => delivery.keptReport(q.node),
          "write-report": (q) => Effect.as(delivery.writeReport(q.report), done),
          "set-aside": (q) => Effect.map(standings.setAside(q.letters), (fresh) => ({ fresh: [...fresh] })),
        }
        return yield* tx.within(drive(program, answers))
      })
    const heard = (body: object) => ({ subject: "s", event: "s", body: JSON.stringify(body), seq: 1 })
    const a = await requirePostgres()
    await a.unsafe(`set search_path to "${schema}"`)
    const [ca, cb] = [controller(databaseUrl), controller(databaseUrl)]
    const run = <A, E>(
      layer: typeof ca,
      keeping: () => Effect.Effect<
        A,
        E,
        GateStore | DeliveryStore | StandingsStore | StoreTransaction | Journal.Journal
      >,
    ) => Effect.runPromise(Effect.scoped(Effect.provide(keeping(), layer)))
    for (let round = 0; round < 25; round++) {
      const machine = `m${round}`
      const statement = (second: number, state: "healthy" | "unhealthy") =>
        heard({ machine, at: `2026-12-01T10:00:0${second}Z`, resources: [{ resource: "r", module: "x", state }] })
      await Promise.all([
        run(ca, () => keepingStatement(keepStatement(statement(2, "unhealthy")))),
        run(cb, () => keepingStatement(keepStatement(statement(1, "healthy")))),
      ])
      const [kept] = await a`select stated_at from health_statements where machine = ${machine}`
      expect((kept!["stated_at"] as Date).toISOString()).toBe("2026-12-01T10:00:02.000Z")
      const report = (second: number) =>
        heard({
          node: machine,
          digest: `d${second}`,
          sequence: second,
          outcome: "applied",
          at: `2026-12-01T10:00:0${second}Z`,
        })
      await Promise.all([
        run(ca, () => keepingReport(keepReport(report(2)))),
        run(cb, () => keepingReport(keepReport(report(1)))),
      ])
      const [r] = await a`select digest from reports where node = ${machine}`
      expect(r!["digest"]).toBe("d2")
    }
    await a.end()
  })
})
