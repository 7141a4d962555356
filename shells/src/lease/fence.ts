// Every act that changes the store carries the lease's epoch, and the store refuses one older than
// the newest it has seen (seed 004, issue 13; migration 0006's `mesh_fence`). A controller paused
// past its lease (a long GC, SIGSTOP) wakes believing it still holds epoch N: its lease stops it at
// the next look, but an act already on its way would land after epoch N+1 acted. The fence in the
// store is what stops that one, and the refusal stops the controller (`ControllerLease.fenced`).
import { fencedOf, fencedSaid, FenceRow } from "@mesh-core/core/lease/fence"
import { Context, Data, Effect, Layer, Ref, Schema } from "effect"
import { CurrentTx, Store, storeError, StoreTransaction, type StoreUnreadable, type Sql, type Tx } from "../store/postgres.ts"
import { ControllerLease } from "./service.ts"

export class Fenced extends Data.TaggedError("Fenced")<{ readonly acting: number | undefined; readonly newest: number | undefined }> {
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
export const writeError = (url: string) => (e: unknown): Fenced | StoreUnreadable => {
  const f = fencedOf(field(e, "code"), field(e, "detail"))
  return f === undefined ? storeError(url)(e) : new Fenced(f)
}

/**
 * The first statement of a write's transaction, in its async body (`sql.begin(async (tx) => { await
 * fenceFirst(tx, epoch); … })`): records a newer epoch, or rejects with the store's refusal, which
 * `writeError` reads as `Fenced`. First, so the transaction holds no other lock while a new epoch
 * waits for the older transactions still open.
 */
export const fenceFirst = async (tx: Tx | Sql, epoch: number): Promise<void> => {
  await tx`select mesh_fence(${epoch}::bigint)`
}

/**
 * The fence as an Effect, for a transaction driven from Effect code: `tx` is the open transaction's
 * connection (a transaction whose operations read it from the context hands it here first).
 */
export const fence = Effect.fn("Fence.fence")(function*(tx: Tx | Sql, url: string, epoch: number) {
  yield* Effect.tryPromise({ try: () => fenceFirst(tx, epoch), catch: writeError(url) })
})

/**
 * One write transaction under `epoch`, read from the lease when the act began: the fence first, then
 * `body`. Refused by the store, the lease is told, so `lost` completes and every act stops: nothing
 * this controller does from now is accepted.
 */
export const writeUnderEpoch = Effect.fn("Fence.writeUnderEpoch")(function*<A>(epoch: number, body: (tx: Tx) => Promise<A>) {
    yield* Effect.annotateCurrentSpan("epoch", epoch)
    const lease = yield* ControllerLease
    const { sql, url } = yield* Store
    return yield* Effect.tryPromise({
      try: () =>
        sql.begin(async (tx) => {
          await fenceFirst(tx, epoch)
          return body(tx)
        }),
      catch: writeError(url),
    }).pipe(Effect.tapError((e) => (e._tag === "Fenced" ? lease.fenced(e.message) : Effect.void)))
  })

/** One write transaction under the lease's epoch now: a controller that no longer holds it does not write (NotHolding). */
export const underLease = Effect.fn("Fence.underLease")(function*<A>(body: (tx: Tx, epoch: number) => Promise<A>) {
    const lease = yield* ControllerLease
    const epoch = yield* lease.epoch
    return yield* writeUnderEpoch(epoch, (tx) => body(tx, epoch))
  })

const decodeRow = Schema.decodeUnknownEffect(FenceRow)

/** The newest epoch the store has seen (0 when none has written): the floor `ControllerLease.layer` numbers above. */
export const newestEpochIn = (sql: Sql, url: string): Effect.Effect<number, StoreUnreadable> =>
  Effect.tryPromise({ try: () => sql`select epoch::text as epoch from lease_fence where one`, catch: storeError(url) }).pipe(
    Effect.flatMap((rows) => (rows.length === 0 ? Effect.succeed({ epoch: 0 }) : decodeRow(rows[0]).pipe(Effect.mapError(storeError(url))))),
    Effect.map((r) => r.epoch),
    Effect.withSpan("Fence.newestEpoch"),
  )

/** The same, from the Store service. */
export const newestEpoch: Effect.Effect<number, StoreUnreadable, Store> = Effect.gen(function*() {
  const { sql, url } = yield* Store
  return yield* newestEpochIn(sql, url)
})

/**
 * A transaction of the services (StoreTransaction) whose first statement is the store's fence under
 * `epoch`: what the controller's workers write through GateStore, DeliveryStore and StandingsStore.
 */
export class FencedTransaction extends Context.Service<FencedTransaction, {
  readonly within: <A, E, R>(epoch: number, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StoreUnreadable | Fenced, R>
}>()("mesh-core/FencedTransaction") {
  static readonly layer = Layer.effect(FencedTransaction, Effect.gen(function*() {
    const store = yield* Store
    const transactions = yield* StoreTransaction
    return FencedTransaction.of({
      // The fence is sent and the effect's statements go right after it on the same connection,
      // without waiting for its answer (one round trip fewer a transaction, issue 11): the store runs
      // them in order, so the fence is still first, and a refused fence fails every statement after
      // it. Its answer is awaited before the effect's outcome is taken, and a refusal is the outcome.
      within: (epoch, effect) =>
        transactions.within(Effect.gen(function*() {
          const tx = (yield* CurrentTx) ?? store.sql
          const fenced = fenceFirst(tx, epoch)
          // Answered below; until then a refusal must not read as unhandled.
          fenced.catch(() => undefined)
          const outcome = yield* Effect.exit(effect)
          yield* Effect.tryPromise({ try: () => fenced, catch: writeError(store.url) })
          return yield* outcome
        })),
    })
  }))

  /**
   * In memory, for shell tests over the in-memory services: the store's rule kept in a Ref (an epoch
   * older than the newest seen is refused), and every epoch that acted appended to `epochs`; `seen`
   * is the newest epoch the store has already seen.
   */
  static readonly layerTest = (epochs: Array<number> = [], seen = 0) =>
    Layer.effect(FencedTransaction, Effect.map(Ref.make(seen), (newest) =>
      FencedTransaction.of({
        within: (epoch, effect) =>
          Effect.gen(function*() {
            const seen = yield* Ref.get(newest)
            if (epoch < seen) return yield* Effect.fail(new Fenced({ acting: epoch, newest: seen }))
            yield* Ref.set(newest, epoch)
            epochs.push(epoch)
            return yield* effect
          }),
      })))
}
