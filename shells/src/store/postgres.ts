// The store: PostgreSQL through the porsager client, in the controller's own schema. Migrations are
// numbered SQL files applied at start, all in one transaction under an advisory lock, so two
// controllers starting at once apply each exactly once.
import { MigrationRow, readRows } from "@mesh-core/core/rows"
import postgres from "postgres"
import { fencedOf, fencedSaid, FenceRow } from "@mesh-core/core/lease/fence"
import type { StoreBounds } from "@mesh-core/core/lease/store-bounds"
import { Context, Data, Effect, Exit, Layer, Redacted, Ref, Schema } from "effect"
import { ControllerSettings } from "../config.ts"
import { printableUrl, withoutSecrets } from "@mesh-core/core/text/connection-url"
import { makeOutage, untilItAnswers } from "../retry.ts"
import { beginGuarded } from "./session-guard.ts"
import { migrationFiles } from "./migration-files.ts"
import { errorText } from "@mesh-core/core/text/error-text"

export type Sql = postgres.Sql
export type Tx = postgres.TransactionSql

export class StoreUnreadable extends Data.TaggedError("StoreUnreadable")<{
  readonly url: string
  readonly reason: string
  readonly cause?: unknown
}> {
  override get message(): string {
    return `the store at ${this.url} cannot be read: ${this.reason}`
  }
}

/** The connection: a porsager client in the controller's schema. The services of operations are built on it. */
export class Store extends Context.Service<
  Store,
  { readonly sql: Sql; readonly url: string; readonly schema: string }
>()("mesh-core/Store") {
  /**
   * The store `serve` keeps, from its settings, migrated: waited for under untilItAnswers when it
   * does not answer at start (said once), since nothing outside stops the controller (issue 14).
   * Every session carries `bounds`, the lease's (lease/store-bounds.ts, issue 26).
   */
  static readonly layer = (bounds: StoreBounds) =>
    Layer.effect(
      Store,
      Effect.gen(function* () {
        const settings = yield* ControllerSettings
        const url = Redacted.value(settings.databaseUrl)
        const outage = yield* makeOutage("controller")
        const opened = yield* open(url, settings.storeSchema, bounds).pipe(
          Effect.tap(({ sql }) =>
            Effect.tryPromise({ try: () => migrate(sql, settings.storeSchema), catch: storeError(url) }),
          ),
          Effect.tapError((e) => outage.failed(e)),
          Effect.retry(untilItAnswers),
        )
        yield* outage.answered
        return opened
      }),
    )
}

/** A store failure as it may be said: the URL without its password, and no spelling of the password in the reason. */
export const storeError = (url: string) => (e: unknown) =>
  new StoreUnreadable({ url: printableUrl(url), reason: withoutSecrets(errorText(e), url), cause: e })

/**
 * The transaction an operation runs in, when one is open (`transaction`): the services' operations
 * read it, so a follower's program is kept in one transaction whatever services it asks.
 */
export const CurrentTx = Context.Reference<Sql | undefined>("mesh-core/store/CurrentTx", {
  defaultValue: () => undefined,
})

/** One operation on the store, in the open transaction if there is one; a failure is a typed StoreUnreadable, never a defect. */
export const runSql =
  (store: { readonly sql: Sql; readonly url: string }, span: string) =>
  <A>(f: (sql: Sql) => Promise<A>): Effect.Effect<A, StoreUnreadable> =>
    Effect.gen(function* () {
      const tx = yield* CurrentTx
      return yield* Effect.tryPromise({ try: () => f(tx ?? store.sql), catch: storeError(store.url) })
    }).pipe(Effect.withSpan(span))

const rolledBack = Symbol("rolled back")

/**
 * Runs `effect` in one transaction: what it does through the services is committed together when it
 * succeeds, and rolled back when it fails (its own failure is answered as it was) or the store fails.
 */
const transaction =
  (store: { readonly sql: Sql; readonly url: string }) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | StoreUnreadable, R> =>
    Effect.gen(function* () {
      const context = yield* Effect.context<R>()
      let inner: Exit.Exit<A, E> | undefined
      const outer = yield* Effect.exit(
        Effect.tryPromise({
          try: () =>
            beginGuarded(store.sql, async (tx) => {
              inner = await Effect.runPromiseExitWith(context)(
                effect.pipe(Effect.provideService(CurrentTx, tx as unknown as Sql)),
              )
              if (Exit.isFailure(inner)) throw rolledBack
            }),
          catch: (e) => (e === rolledBack ? rolledBack : storeError(store.url)(e)),
        }),
      )
      if (inner !== undefined && Exit.isFailure(inner)) return yield* inner
      if (Exit.isFailure(outer)) {
        const failure = outer.cause.reasons.find((r) => r._tag === "Fail")
        if (failure !== undefined && failure.error !== rolledBack)
          return yield* Effect.fail(failure.error as StoreUnreadable)
        return yield* Effect.die(outer.cause)
      }
      return inner !== undefined && Exit.isSuccess(inner)
        ? inner.value
        : yield* Effect.die(new Error("a transaction ended without its outcome"))
    }).pipe(Effect.withSpan("Store.transaction"))

export const migrations = (): ReadonlyArray<{ version: number; name: string; text: string }> =>
  migrationFiles()
    .filter((f) => /^\d{4}_.+\.sql$/.test(f.name))
    .toSorted((a, b) => (a.name < b.name ? -1 : 1))
    .map((f) => ({ version: Number(f.name.slice(0, 4)), ...f }))

/** Applies every migration not yet applied. Idempotent; safe against a second controller starting. */
export const migrate = (sql: Sql, schema: string) =>
  sql.begin(async (tx) => {
    // Migrations run before the lease is taken and may rewrite a large table, or wait for another
    // controller's: the sessions' bounds are for acts under the lease (issue 26), not for these.
    await tx`set local statement_timeout = 0`
    await tx`set local lock_timeout = 0`
    await tx`set local idle_in_transaction_session_timeout = 0`
    await tx`select pg_advisory_xact_lock(hashtext(${`mesh-core migrations ${schema}`}))`
    await tx`create schema if not exists ${tx(schema)}`
    await tx`create table if not exists ${tx(schema)}.schema_migrations (
      version integer primary key, name text not null, applied_at timestamptz not null default now())`
    const read = readRows(
      "schema_migrations",
      MigrationRow,
      await tx`select version from ${tx(schema)}.schema_migrations`,
      (r) => r.version,
    )
    if (!read.ok) throw new Error(read.why)
    const done = new Set(read.value)
    const applied: Array<string> = []
    for (const m of migrations()) {
      if (done.has(m.version)) continue
      await tx.unsafe(`set local search_path to "${schema.replace(/"/g, '""')}"`)
      await tx.unsafe(m.text)
      await tx`insert into ${tx(schema)}.schema_migrations (version, name) values (${m.version}, ${m.name})`
      applied.push(m.name)
    }
    return applied
  })

/**
 * Locks what a transaction is about to read, decide on and write, by key, until it ends. `FOR
 * UPDATE` locks only rows that exist: two controllers keeping the first word for a key would both
 * read nothing and the later write would win, newer or not. Keys share 256 locks per scope (two keys
 * in one only wait for each other), so a batch of a thousand never fills the server's lock table;
 * taken in one order, so two transactions never wait on each other in a circle.
 */
export const lockKeys = async (tx: Tx | Sql, scope: string, keys: ReadonlyArray<string>) => {
  if (keys.length === 0) return
  // JSON-quoted: a key may hold characters PostgreSQL text cannot (the standings' keys are NUL-separated).
  const quoted = [...new Set(keys)].map((k) => JSON.stringify(k))
  await tx`select pg_advisory_xact_lock(hashtext(${scope}), b) from (
    select distinct (abs(hashtext(k)) % 256)::int as b from unnest(${quoted}::text[]) as k order by b) as s`
}

/**
 * What a session of the controller's is told at its start: `bounds`, when given, as PostgreSQL's own
 * timeouts, so the server ends a transaction its holder left open (issue 26) whatever the holder does.
 */
const sessionSettings = (schema: string, bounds: StoreBounds | undefined): Record<string, string> => ({
  search_path: schema,
  application_name: "mesh-core",
  ...(bounds === undefined
    ? {}
    : {
        statement_timeout: String(bounds.statementMs),
        idle_in_transaction_session_timeout: String(bounds.idleInTransactionMs),
        lock_timeout: String(bounds.lockMs),
      }),
})

/**
 * How long a connection waits before it tries the store again, in seconds: doubling from 0.1 s to at
 * most 1 s. The driver's own waits grow to 20 s, counted over every connection of the client, and a
 * query asked meanwhile waits for the next try: found live (issue 27), an operator's verb during a
 * store outage waited 17 s inside the controller to be told the store could not be read, and under
 * load the verb's 20 s ran out with no answer. A try against a stopped store is refused at once, so
 * trying every second costs nothing; a frozen one is said by the heartbeat (metrics/probes.ts).
 */
const reconnectBackoff = (tries: number): number => Math.min(0.1 * 2 ** Math.max(0, tries - 1), 1)

/** A client for the store, checked to answer before it is handed out; each session bounded by `bounds` when given. */
export const open = (
  url: string,
  schema: string,
  bounds?: StoreBounds,
): Effect.Effect<{ sql: Sql; url: string; schema: string }, StoreUnreadable, import("effect").Scope.Scope> =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const sql = postgres(url, {
          max: 4,
          onnotice: () => undefined,
          connect_timeout: 5,
          idle_timeout: 20,
          backoff: reconnectBackoff,
          connection: sessionSettings(schema, bounds),
        })
        try {
          await sql`select 1`
        } catch (e) {
          await sql.end({ timeout: 1 })
          throw e
        }
        return { sql, url, schema }
      },
      catch: storeError(url),
    }),
    ({ sql }) => Effect.tryPromise(() => sql.end({ timeout: 5 })).pipe(Effect.ignore),
  )

export const layer = (url: string, schema: string, bounds?: StoreBounds) =>
  Layer.effect(Store, open(url, schema, bounds))

/** The store, migrated: what the controller opens at start. */
export const layerMigrated = (url: string, schema: string) =>
  Layer.effect(
    Store,
    Effect.tap(open(url, schema), ({ sql }) =>
      Effect.tryPromise({ try: () => migrate(sql, schema), catch: storeError(url) }),
    ),
  )

/** Rows read by the core's Schema: a row that is not one is a store that cannot be read, said with why. */
export const decodedRows =
  (store: { readonly url: string }) =>
  <A>(
    read: { readonly ok: true; readonly value: A } | { readonly ok: false; readonly why: string },
  ): Effect.Effect<A, StoreUnreadable> =>
    read.ok
      ? Effect.succeed(read.value)
      : Effect.fail(new StoreUnreadable({ url: printableUrl(store.url), reason: read.why }))

/**
 * Runs a follower's program in one transaction of the store (live), or as it is (layerTest, over the
 * in-memory services, where each operation is atomic already).
 */
export class StoreTransaction extends Context.Service<
  StoreTransaction,
  {
    readonly within: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StoreUnreadable, R>
  }
>()("mesh-core/store/StoreTransaction") {
  static readonly layer = Layer.effect(
    StoreTransaction,
    Effect.gen(function* () {
      const store = yield* Store
      return StoreTransaction.of({ within: transaction(store) })
    }),
  )
  static readonly layerTest = Layer.succeed(StoreTransaction, { within: (effect) => effect })
}

// The store's fence (seed 004, issue 13; migration 0006's `mesh_fence`): every act that changes the
// store carries the lease's epoch, and the store refuses one older than the newest it has seen. The
// lease's side (lease/fence.ts) tells the lease when the store refused; these are the store's operations.

export class Fenced extends Data.TaggedError("Fenced")<{
  readonly acting: number | undefined
  readonly newest: number | undefined
}> {
  override get message(): string {
    return fencedSaid({ acting: this.acting, newest: this.newest })
  }
}

const field = (e: unknown, name: string): string | undefined => {
  if (typeof e !== "object" || e === null || !(name in e)) return undefined
  const v: unknown = Reflect.get(e, name)
  return typeof v === "string" ? v : undefined
}

/** A failed write, as what it is: refused under an older epoch, or the store not answering. */
export const writeError =
  (url: string) =>
  (e: unknown): Fenced | StoreUnreadable => {
    const f = fencedOf(field(e, "code"), field(e, "detail"))
    return f === undefined ? storeError(url)(e) : new Fenced(f)
  }

/**
 * The first statement of a write's transaction, in its async body: records a newer epoch, or rejects
 * with the store's refusal, which `writeError` reads as `Fenced`. First, so the transaction holds no
 * other lock while a new epoch ends the older epoch's sessions still open, or waits for those it may
 * not end (migration 0014).
 */
export const fenceFirst = async (tx: Tx | Sql, epoch: number): Promise<void> => {
  await tx`select mesh_fence(${epoch}::bigint)`
}

/** The body of a fenced write: its statements on the transaction's connection, after the fence. */
export type FencedBody<A> = (tx: Tx) => Promise<A>

/** One write transaction under `epoch`: the fence first, then `body`; refused by the store, `Fenced`. */
export const fencedWrite = Effect.fn("Store.fencedWrite")(function* <A>(epoch: number, body: FencedBody<A>) {
  const { sql, url } = yield* Store
  return yield* Effect.tryPromise({
    try: () =>
      beginGuarded(sql, async (tx) => {
        await fenceFirst(tx, epoch)
        return body(tx)
      }),
    catch: writeError(url),
  })
})

const decodeFenceRow = Schema.decodeUnknownEffect(FenceRow)

/** The newest epoch the store has seen (0 when none has written): the floor `ControllerLease.layer` numbers above. */
export const newestEpochIn = (sql: Sql, url: string): Effect.Effect<number, StoreUnreadable> =>
  Effect.tryPromise({
    try: () => sql`select epoch::text as epoch from lease_fence where one`,
    catch: storeError(url),
  }).pipe(
    Effect.flatMap((rows) =>
      rows.length === 0 ? Effect.succeed({ epoch: 0 }) : decodeFenceRow(rows[0]).pipe(Effect.mapError(storeError(url))),
    ),
    Effect.map((r) => r.epoch),
    Effect.withSpan("Fence.newestEpoch"),
  )

/** The same, from the Store service. */
export const newestEpoch: Effect.Effect<number, StoreUnreadable, Store> = Effect.gen(function* () {
  const { sql, url } = yield* Store
  return yield* newestEpochIn(sql, url)
})

/**
 * The fence sent and the effect's statements right after it on the same connection, without waiting
 * for its answer (one round trip fewer a transaction, issue 11): the store runs them in order, so the
 * fence is still first, and a refused fence fails every statement after it. Its answer is awaited
 * before the effect's outcome is taken, and a refusal is the outcome.
 */
const fencedWithin =
  (
    store: { readonly sql: Sql; readonly url: string },
    within: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StoreUnreadable, R>,
  ) =>
  <A, E, R>(epoch: number, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | StoreUnreadable | Fenced, R> =>
    within(
      Effect.gen(function* () {
        const tx = (yield* CurrentTx) ?? store.sql
        const fenced = fenceFirst(tx, epoch)
        // Answered below; until then a refusal must not read as unhandled.
        fenced.catch(() => undefined)
        const outcome = yield* Effect.exit(effect)
        yield* Effect.tryPromise({ try: () => fenced, catch: writeError(store.url) })
        return yield* outcome
      }),
    )

/**
 * A transaction of the services (StoreTransaction) whose first statement is the store's fence under
 * `epoch`: what the controller's workers write through GateStore, DeliveryStore and StandingsStore,
 * and a push sent under the lease writes (its sequences and records) and passes before its grants.
 */
export class FencedTransaction extends Context.Service<
  FencedTransaction,
  {
    readonly within: <A, E, R>(
      epoch: number,
      effect: Effect.Effect<A, E, R>,
    ) => Effect.Effect<A, E | StoreUnreadable | Fenced, R>
  }
>()("mesh-core/FencedTransaction") {
  static readonly layer = Layer.effect(
    FencedTransaction,
    Effect.gen(function* () {
      const store = yield* Store
      const transactions = yield* StoreTransaction
      return FencedTransaction.of({ within: fencedWithin(store, transactions.within) })
    }),
  )

  /** Over `store` alone, each in a transaction of its own: what a push writes under the lease when no workers' are given. */
  static readonly over = (store: { readonly sql: Sql; readonly url: string }) =>
    FencedTransaction.of({ within: fencedWithin(store, transaction(store)) })

  /**
   * In memory, for shell tests over the in-memory services: the store's rule kept in a Ref (an epoch
   * older than the newest seen is refused), and every epoch that acted appended to `epochs`; `seen`
   * is the newest epoch the store has already seen.
   */
  static readonly layerTest = (epochs: Array<number> = [], seen = 0) =>
    Layer.effect(
      FencedTransaction,
      Effect.map(Ref.make(seen), (newest) =>
        FencedTransaction.of({
          within: (epoch, effect) =>
            Effect.gen(function* () {
              const seen = yield* Ref.get(newest)
              if (epoch < seen) return yield* Effect.fail(new Fenced({ acting: epoch, newest: seen }))
              yield* Ref.set(newest, epoch)
              epochs.push(epoch)
              return yield* effect
            }),
        }),
      ),
    )
}

/** A `select 1` on the store: readiness's probe. */
export const ping = Effect.fn("Store.ping")(function* () {
  const { sql, url } = yield* Store
  yield* Effect.tryPromise({ try: () => sql`select 1`, catch: storeError(url) })
})
