// The store's fence over the real PostgreSQL (issue 13; migrations 0006 and 0014): a write under an epoch
// older than the newest the store has seen is refused, in the store, however late it arrives; epochs
// never interleave among the writes it accepts, however many write at once; and a newer epoch ends the
// older epoch's sessions still open rather than wait for them, so none of their transactions commits
// after it (issue 26).
import { Effect, Exit, Fiber, Layer } from "effect"
import postgres from "postgres"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Fenced, FencedTransaction, newestEpoch, underLease } from "../../shells/src/lease/fence.ts"
import { actUnderTheLease, LeaseLost, untilTheLeaseIsLost } from "../../shells/src/lease/serve.ts"
import { ControllerLease, NotHolding } from "../../shells/src/lease/service.ts"
import { storeSessionEnded } from "@mesh-core/core/lease/fence"
import {
  CurrentTx,
  fenceFirst,
  newestEpochIn,
  Store,
  StoreTransaction,
  StoreUnreadable,
  type Sql,
  writeError,
} from "../../shells/src/store/postgres.ts"
import { beginGuarded } from "../../shells/src/store/session-guard.ts"
import { databaseUrl, migratedStore, uniqueNames } from "../support/servers.ts"

const { schema } = uniqueNames("lease_fence")
let sql: postgres.Sql

beforeAll(async () => {
  sql = await migratedStore(schema, 8)
  await sql`create table acts (id bigserial primary key, epoch bigint not null, seen_newest bigint not null, writer text not null)`
  // The order the acts' transactions committed in: each act's epoch noted as its transaction commits
  // (a deferred trigger runs at COMMIT), numbered as noted.
  await sql`create table act_commits (seq bigserial primary key, epoch bigint not null)`
  await sql`create function note_commit() returns trigger language plpgsql as $$
    begin insert into act_commits (epoch) values (new.epoch); return null; end $$`
  await sql`create constraint trigger note_commit after insert on acts deferrable initially deferred
    for each row execute function note_commit()`
})

afterAll(async () => {
  await sql`drop schema if exists ${sql(schema)} cascade`
  await sql.end({ timeout: 5 })
})

/**
 * One act: the fence first, its work (`holdMs`, a statement running), then what it reads of the acts
 * already accepted, and its row; `until`, when given, keeps the transaction open and idle until it
 * settles, as a controller paused in its transaction would, and a second row is written after it. As
 * the controller's own (beginGuarded).
 */
const act = (epoch: number, writer: string, holdMs = 0, until?: Promise<void>, over = sql) =>
  Effect.runPromiseExit(
    Effect.tryPromise({
      try: () =>
        beginGuarded(over, async (tx) => {
          await fenceFirst(tx, epoch)
          if (holdMs > 0) await tx`select pg_sleep(${holdMs / 1_000})`
          const [row] = await tx`select coalesce(max(epoch), 0)::int as newest from acts`
          await tx`insert into acts (epoch, seen_newest, writer) values (${epoch}, ${row!["newest"]}, ${writer})`
          if (until === undefined) return
          await until
          // Sent after the session may have ended: it must never run anywhere but in this transaction.
          await tx`insert into acts (epoch, seen_newest, writer) values (${epoch}, 0, ${`${writer} after`})`
        }),
      catch: writeError(databaseUrl),
    }),
  )

/** A transaction kept open until `release()`: its act's exit, once it ends. */
const heldOpen = (epoch: number, writer: string, holdMs = 0, over = sql) => {
  let release: () => void = () => undefined
  const until = new Promise<void>((r) => (release = r))
  return { exit: act(epoch, writer, holdMs, until, over), release }
}

/** The act ended with its session (ended by a newer epoch, or by the session's own bound): nothing of it committed. */
const sessionEnded = (exit: Exit.Exit<unknown, unknown>) => {
  if (Exit.isSuccess(exit)) return false
  const e = exit.cause.reasons.find((r) => r._tag === "Fail")?.error
  const code = e instanceof StoreUnreadable ? Reflect.get(Object(e.cause), "code") : undefined
  return storeSessionEnded(typeof code === "string" ? code : undefined)
}

/** Whether a backend is still there. */
/** The sessions of `epoch` open in the store, once there are `n` of them (waited for, at most 5 s). */
const sessionsOf = async (epoch: number, n: number) => {
  for (const end = Date.now() + 5_000; ; await new Promise((r) => setTimeout(r, 20))) {
    const open = await sql`select pid from pg_stat_activity where application_name = ${`mesh_fence epoch ${epoch}`}`
    if (open.length >= n || Date.now() > end) return open
  }
}

const backendAlive = async (pid: number) => (await sql`select 1 from pg_stat_activity where pid = ${pid}`).length > 0

const floor = () => Effect.runPromise(newestEpochIn(sql, databaseUrl))

const refusal = (exit: Exit.Exit<unknown, unknown>) => {
  if (Exit.isSuccess(exit)) return undefined
  const e = exit.cause.reasons.find((r) => r._tag === "Fail")?.error
  return e instanceof Fenced ? e : undefined
}

describe("the store's fence", () => {
  it("a store no epoch has written reads 0; writes under epoch 2 are refused once epoch 3 wrote, in the seed's words; the floor reads 3", async () => {
    expect(await floor()).toBe(0)
    expect(Exit.isSuccess(await act(2, "a"))).toBe(true)
    expect(await floor()).toBe(2)
    expect(Exit.isSuccess(await act(2, "a"))).toBe(true)
    expect(Exit.isSuccess(await act(3, "b"))).toBe(true)
    expect(await floor()).toBe(3)
    const refused = refusal(await act(2, "a"))
    expect(refused).toBeDefined()
    expect(refused!.acting).toBe(2)
    expect(refused!.newest).toBe(3)
    expect(refused!.message).toBe(
      "the store refused a write under epoch 2: epoch 3 is newer, so another controller holds the lease; " +
        "the controller lease was lost; this controller stopped acting and stands down, a candidate again until it holds the lease",
    )
    // Refused in the transaction: nothing of the act was kept, and the floor did not move back.
    const rows = await sql`select epoch::int as epoch, writer from acts order by id`
    expect(rows.map((r) => `${r["writer"]}${r["epoch"]}`)).toEqual(["a2", "a2", "b3"])
    expect(await floor()).toBe(3)
  })

  it("a new epoch's first write ends the older epoch's sessions still open, at once: neither transaction commits, and the older epoch is refused after", async () => {
    await sql`truncate acts, act_commits`
    const start = await floor()
    const old = start + 1
    const newer = start + 2
    expect(Exit.isSuccess(await act(old, "old"))).toBe(true)
    // Two transactions of the older epoch, fenced and open while the new holder writes: one running a
    // statement (5 s), one idle, its client paused, for as long as it likes.
    const running = act(old, "old running", 5_000)
    const idle = heldOpen(old, "old idle")
    const holding = await sessionsOf(old, 2)
    expect(holding).toHaveLength(2)
    const t0 = Date.now()
    const first = await act(newer, "new")
    const took = Date.now() - t0
    console.log(`[lease-fence] the new epoch's first write, two sessions of the older epoch open: ${took} ms`)
    expect(Exit.isSuccess(first), String(first)).toBe(true)
    // Not behind either: the running one had 4.7 s to go, the idle one no end at all.
    expect(took).toBeLessThan(2_000)
    expect(sessionEnded(await running)).toBe(true)
    idle.release()
    expect(sessionEnded(await idle.exit)).toBe(true)
    for (const p of holding) expect(await backendAlive(p["pid"] as number)).toBe(false)
    expect(refusal(await act(old, "old"))?.newest).toBe(newer)
    const rows = await sql`select writer, epoch::int as epoch, seen_newest::int as seen from acts order by id`
    // Neither open transaction of the older epoch committed, before the new epoch's act or after it.
    expect(rows.map((r) => r["writer"])).toEqual(["old", "new"])
    expect(rows.at(-1)!["seen"]).toBe(old)
  })

  it("sessions of the newest epoch itself are never ended: a second act of it waits for none and the open one still commits", async () => {
    await sql`truncate acts, act_commits`
    const newest = await floor()
    const open = heldOpen(newest, "open")
    expect(await sessionsOf(newest, 1)).toHaveLength(1)
    expect(Exit.isSuccess(await act(newest, "beside"))).toBe(true)
    open.release()
    expect(Exit.isSuccess(await open.exit)).toBe(true)
    const rows = await sql`select writer from acts order by id`
    expect(rows.map((r) => r["writer"]).sort()).toEqual(["beside", "open", "open after"])
  })

  it("eight writers at once under epochs handed out as holders change: no accepted act ever saw a newer epoch's act, every refusal was under an epoch below the newest, and every act ended with its session left nothing above the floor", async () => {
    await sql`truncate acts, act_commits`
    const base = await floor()
    let current = base + 1
    const bumps = setInterval(() => void (current += 1), 120)
    const refusals: Array<Fenced> = []
    const accepted: Array<number> = []
    const ended: Array<number> = []
    const writer = async (w: number) => {
      for (let i = 0; i < 25; i++) {
        // A writer's epoch as it read it a moment ago: sometimes the newest, sometimes one a newer holder replaced.
        const epoch = Math.max(base + 1, current - (Math.random() < 0.4 ? 1 : 0))
        const exit = await act(epoch, `w${w}`, Math.random() < 0.3 ? 20 : 0)
        const f = refusal(exit)
        if (f !== undefined) refusals.push(f)
        else if (Exit.isSuccess(exit)) accepted.push(epoch)
        else if (sessionEnded(exit)) ended.push(epoch)
        else throw new Error(`an act failed for another reason: ${String(exit.cause)}`)
      }
    }
    await Promise.all(Array.from({ length: 8 }, (_, w) => writer(w)))
    clearInterval(bumps)
    expect(accepted.length + refusals.length + ended.length).toBe(200)
    expect(refusals.length).toBeGreaterThan(0)
    for (const f of refusals) expect(f.acting!).toBeLessThan(f.newest!)
    const last = await floor()
    const rows = await sql`select epoch::int as epoch, seen_newest::int as seen from acts`
    // An act ended with its session was of an epoch a newer one replaced, but for the instant migration
    // 0017 leaves open and no SQL can close: a session read as older, that began an act of a newer epoch
    // just before it was ended (seen under CI's load: an act of epoch 65 ended by 63's look). Such an
    // act is rolled back with its session and leaves nothing: no row of an epoch above the floor.
    const justBegun = ended.filter((e) => e >= last)
    for (const e of justBegun.filter((x) => x > last)) expect(rows.some((r) => r["epoch"] === e)).toBe(false)
    if (justBegun.length > 0)
      console.log(`[lease-fence] ${justBegun.length} act(s) ended in the instant between the look and the end`)
    // An act whose session was ended as its COMMIT went through committed before the newer epoch took the
    // row (it held the row until then), though its client could not tell: every row below is checked all the same.
    expect(rows.length).toBeGreaterThanOrEqual(accepted.length)
    expect(rows.length).toBeLessThanOrEqual(accepted.length + ended.length)
    // An accepted act under epoch e never saw an act under an epoch above e: in commit order the epochs never interleave.
    const interleaved = rows.filter((r) => r["seen"] > r["epoch"])
    expect(interleaved).toEqual([])
    // And in the order they committed, the epochs only grow: no act of an older epoch committed after a newer one's.
    const committed = (await sql`select epoch::int as epoch from act_commits order by seq`).map(
      (r) => r["epoch"] as number,
    )
    expect(committed.length).toBe(rows.length)
    expect(committed.filter((e, i) => i > 0 && e < committed[i - 1]!)).toEqual([])
    expect(await floor()).toBe(Math.max(...accepted, ...refusals.map((f) => f.newest!)))
  })

  it("without the privilege to end another role's session, a new epoch waits for the older epoch's open transaction until that session's own bound ends it, and that transaction never commits", async () => {
    // Two roles of this test's own, neither superuser nor in pg_signal_backend nor a member of the
    // other: the newer epoch's fence cannot end the older's session (docs/lease.md). The older's
    // sessions carry the bound a controller's carry (idle_in_transaction_session_timeout, 1.5 s here).
    const roles = { old: `${schema}_old`, new: `${schema}_new` }
    const asRole = (role: string, bounds: Record<string, string>) => {
      const url = new URL(databaseUrl)
      url.username = role
      return postgres(url.toString(), {
        max: 2,
        onnotice: () => undefined,
        connection: { search_path: schema, ...bounds },
      })
    }
    for (const role of Object.values(roles)) {
      await sql.unsafe(`create role "${role}" login`)
      await sql.unsafe(`grant usage on schema "${schema}" to "${role}"`)
      await sql.unsafe(`grant all on all tables in schema "${schema}" to "${role}"`)
      await sql.unsafe(`grant all on all sequences in schema "${schema}" to "${role}"`)
    }
    const oldSql = asRole(roles.old, { idle_in_transaction_session_timeout: "1500" })
    const newSql = asRole(roles.new, {})
    try {
      await sql`truncate acts, act_commits`
      const base = await floor()
      const old = base + 1
      const newer = base + 2
      const idle = heldOpen(old, "old idle", 0, oldSql)
      expect(await sessionsOf(old, 1)).toHaveLength(1)
      const t0 = Date.now()
      const first = await act(newer, "new", 0, undefined, newSql)
      const waited = Date.now() - t0
      console.log(`[lease-fence] without the privilege, the new epoch waited ${waited} ms`)
      expect(Exit.isSuccess(first), String(first)).toBe(true)
      // Waited for the older session's own bound (1.5 s after it went idle), not for ever.
      expect(waited).toBeGreaterThan(1_000)
      expect(waited).toBeLessThan(5_000)
      idle.release()
      expect(sessionEnded(await idle.exit)).toBe(true)
      const rows = await sql`select writer from acts order by id`
      expect(rows.map((r) => r["writer"])).toEqual(["new"])
    } finally {
      // Its abandoned transaction keeps the client's connection reserved: ended at once.
      await oldSql.end({ timeout: 0 })
      await newSql.end({ timeout: 5 })
      for (const role of Object.values(roles)) {
        await sql.unsafe(`drop owned by "${role}"`)
        await sql.unsafe(`drop role "${role}"`)
      }
    }
  })

  it("an epoch that is no epoch is refused as bad input, not as fenced", async () => {
    const exit = await act(0, "zero")
    expect(Exit.isFailure(exit)).toBe(true)
    expect(refusal(exit)).toBeUndefined()
  })
})

describe("writes under the lease", () => {
  it("underLease carries the lease's epoch into the fence; refused, the lease is told and every later write is refused by the lease itself", async () => {
    const base = await floor()
    const storeLayer = Layer.succeed(Store, { sql, url: databaseUrl, schema })
    const write = (tag: string) =>
      underLease((tx, epoch) => tx`insert into acts (epoch, seen_newest, writer) values (${epoch}, 0, ${tag})`)
    // A newer holder (base + 2) writes; then a holder of base + 1, paused past its lease, wakes and writes.
    await Effect.runPromise(
      write("newer").pipe(Effect.provide(Layer.mergeAll(storeLayer, ControllerLease.layerTest(base + 2)))),
    )
    const stale = await Effect.runPromise(
      Effect.gen(function* () {
        const lease = yield* ControllerLease
        const first = yield* Effect.exit(write("stale"))
        const lost = yield* lease.lost
        const second = yield* Effect.exit(write("stale again"))
        return { first, lost, second, floor: yield* newestEpoch }
      }).pipe(Effect.provide(Layer.mergeAll(storeLayer, ControllerLease.layerTest(base + 1)))),
    )
    expect(refusal(stale.first)?.newest).toBe(base + 2)
    expect(stale.lost.said).toBe(
      `the store refused a write under epoch ${base + 1}: epoch ${base + 2} is newer, so another controller holds the lease; ` +
        "the controller lease was lost; this controller stopped acting and stands down, a candidate again until it holds the lease",
    )
    // The second never reached the store: the lease refused it.
    expect(
      Exit.isFailure(stale.second) &&
        stale.second.cause.reasons.some((r) => r._tag === "Fail" && r.error instanceof NotHolding),
    ).toBe(true)
    expect(stale.floor).toBe(base + 2)
    const rows = await sql`select writer from acts where writer like 'stale%' or writer = 'newer'`
    expect(rows.map((r) => r["writer"])).toEqual(["newer"])
  })
})

describe("serve's acts under the lease", () => {
  it("the workers' fenced transaction (the fence sent ahead of the act's statements): under an older epoch nothing lands and the refusal is the outcome; under the newest, all of it", async () => {
    const layer = FencedTransaction.layer.pipe(
      Layer.provideMerge(StoreTransaction.layer),
      Layer.provide(Layer.succeed(Store, { sql, url: databaseUrl, schema })),
    )
    const insert = (writer: string) =>
      Effect.gen(function* () {
        const tx: Sql = (yield* CurrentTx) ?? sql
        yield* Effect.tryPromise({
          try: () => tx`insert into acts (epoch, seen_newest, writer) values (0, 0, ${writer})`,
          catch: writeError(databaseUrl),
        })
        yield* Effect.tryPromise({
          try: () => tx`insert into acts (epoch, seen_newest, writer) values (0, 0, ${`${writer} again`})`,
          catch: writeError(databaseUrl),
        })
        return writer
      })
    const within = (epoch: number, writer: string) =>
      Effect.runPromiseExit(
        Effect.gen(function* () {
          const transactions = yield* FencedTransaction
          return yield* transactions.within(epoch, insert(writer))
        }).pipe(Effect.provide(layer)),
      )
    const newest = await floor()
    const refused = refusal(await within(newest - 1, "late"))
    expect(refused).toMatchObject({ acting: newest - 1, newest })
    // An act that asks nothing of the store is refused all the same.
    const nothing = await Effect.runPromiseExit(
      Effect.gen(function* () {
        return yield* (yield* FencedTransaction).within(newest - 1, Effect.succeed("nothing"))
      }).pipe(Effect.provide(layer)),
    )
    expect(refusal(nothing)).toMatchObject({ acting: newest - 1, newest })
    const accepted = await within(newest, "on time")
    expect(Exit.isSuccess(accepted) && accepted.value).toBe("on time")
    const rows = await sql`select writer from acts where epoch = 0 order by id`
    expect(rows.map((r) => r["writer"])).toEqual(["on time", "on time again"])
  })

  it("an act refused by the store never returns and ends serve's main fiber in the seed's words; acts after it do not start", async () => {
    const acted: Array<number> = []
    const out = await Effect.runPromise(
      Effect.gen(function* () {
        const act = (epoch: number) =>
          Effect.sync(() => acted.push(epoch)).pipe(
            Effect.andThen(Effect.fail(new Fenced({ acting: epoch, newest: epoch + 1 }))),
          )
        const worker = yield* Effect.forkChild(actUnderTheLease(act).pipe(Effect.andThen(actUnderTheLease(act))))
        const main = yield* Effect.exit(untilTheLeaseIsLost)
        const later = yield* Effect.exit(actUnderTheLease((epoch) => Effect.succeed(epoch)).pipe(Effect.timeout(200)))
        yield* Fiber.interrupt(worker)
        return { main, later }
      }).pipe(Effect.provide(ControllerLease.layerTest(4))),
    )
    expect(acted).toEqual([4])
    const failure = Exit.isFailure(out.main) ? out.main.cause.reasons.find((r) => r._tag === "Fail")?.error : undefined
    expect(failure).toBeInstanceOf(LeaseLost)
    expect((failure as LeaseLost).said).toBe(
      "the store refused a write under epoch 4: epoch 5 is newer, so another controller holds the lease; " +
        "the controller lease was lost; this controller stopped acting and stands down, a candidate again until it holds the lease",
    )
    // A controller that no longer holds the lease does not act: the act waits for serve to end it.
    expect(Exit.isFailure(out.later)).toBe(true)
  })
})
