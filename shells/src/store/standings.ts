// Reading and writing kept standings and words set aside. What to write, and which word is newer,
// is the core's decision (applyWords, orderOf); this only moves rows.
import { Context, Effect, Exit, Layer, Ref } from "effect"
import type { DeadLetterRecord as DeadLetter } from "@mesh-core/core/standings/questions"
import type { DeadLetterRecord } from "@mesh-core/core/standings/questions"
import { isNewer } from "@mesh-core/core/standings/standings"
import { keyText } from "@mesh-core/core/standings/word"
import { decodeSetAside, keptFromRow, rowOf } from "@mesh-core/core/standings/rows"
import type { Kept } from "@mesh-core/core/standings/standings"
import type { SetAsideCount } from "@mesh-core/core/standings/status"
import { positionOf } from "@mesh-core/core/standings/position"
import { arrayLiteral } from "./array-literal.ts"
import { isoTime } from "./iso-time.ts"
import { runSql, type Sql, Store, type StoreUnreadable } from "./postgres.ts"

const columns = `provider, provider_node, consumer, state, (extract(epoch from said_at) * 1000)::float8 as said_ms,
  consumer_node, class, error, since, attempts, why, forgotten_by`

const keptOfRows = (rows: ReadonlyArray<unknown>): Array<Kept> =>
  rows.map((r) => {
    const k = keptFromRow(r)
    if (!k.ok) throw new Error(k.why)
    return k.value
  })

// Column by column in one pass over the rows, each field read by its name (issue 30: read through a
// key given at run time, a thousand rows of thirteen columns were a tenth of a batch's making).
/** Standings as the upsert's parameters: one array literal a column, for `unnest` (rows as the core makes them, rowOf). */
const columnsOf = (kept: ReadonlyArray<Kept>) => {
  const n = kept.length
  const column = <T>() => new Array<T>(n)
  const c = {
    provider: column<string>(),
    providerNode: column<string>(),
    consumer: column<string>(),
    state: column<string>(),
    saidAt: column<string>(),
    consumerNode: column<string | null>(),
    class: column<string | null>(),
    error: column<string | null>(),
    since: column<string | null>(),
    attempts: column<number | null>(),
    why: column<string | null>(),
    forgottenBy: column<string | null>(),
    wordOrder: column<string>(),
  }
  for (let i = 0; i < n; i++) {
    const r = rowOf(kept[i]!)
    c.provider[i] = r.provider
    c.providerNode[i] = r.provider_node
    c.consumer[i] = r.consumer
    c.state[i] = r.state
    c.saidAt[i] = isoTime(r.said_ms)
    c.consumerNode[i] = r.consumer_node
    c.class[i] = r.class
    c.error[i] = r.error
    c.since[i] = r.since
    c.attempts[i] = r.attempts
    c.why[i] = r.why
    c.forgottenBy[i] = r.forgotten_by
    c.wordOrder[i] = r.word_order
  }
  return {
    rows: n,
    provider: arrayLiteral(c.provider),
    provider_node: arrayLiteral(c.providerNode),
    consumer: arrayLiteral(c.consumer),
    state: arrayLiteral(c.state),
    said_at: arrayLiteral(c.saidAt),
    consumer_node: arrayLiteral(c.consumerNode),
    class: arrayLiteral(c.class),
    error: arrayLiteral(c.error),
    since: arrayLiteral(c.since),
    attempts: arrayLiteral(c.attempts),
    why: arrayLiteral(c.why),
    forgotten_by: arrayLiteral(c.forgottenBy),
    word_order: arrayLiteral(c.wordOrder),
  }
}
type KeptColumns = ReturnType<typeof columnsOf>

/**
 * Writes each standing unless the row kept for its key is newer, in one statement: the order keys
 * compared are the core's (orderOf), so what wins is decided there, and a row's update under
 * `on conflict` sees the newest committed row, so two controllers keeping words for one key at
 * once cannot let the older win. Answers how many rows changed.
 */
const writeColumns = async (sql: Sql, c: KeptColumns): Promise<number> => {
  if (c.rows === 0) return 0
  const result = await sql`
    insert into standings (provider, provider_node, consumer, state, said_at, consumer_node, class, error, since, attempts, why, forgotten_by, word_order)
    select * from unnest(
      ${c.provider}::text[], ${c.provider_node}::text[], ${c.consumer}::text[], ${c.state}::text[],
      ${c.said_at}::timestamptz[], ${c.consumer_node}::text[], ${c.class}::text[],
      ${c.error}::text[], ${c.since}::text[], ${c.attempts}::int[], ${c.why}::text[], ${c.forgotten_by}::text[],
      ${c.word_order}::text[])
    on conflict (provider, provider_node, consumer) do update set
      state = excluded.state, said_at = excluded.said_at, consumer_node = excluded.consumer_node, class = excluded.class,
      error = excluded.error, since = excluded.since, attempts = excluded.attempts, why = excluded.why,
      forgotten_by = excluded.forgotten_by, word_order = excluded.word_order, heard_at = now()
    where excluded.word_order > standings.word_order`
  return result.count
}

// Exported for test/integration/store.test.ts alone (migration 0012's order key against rows it wrote); callers go through StandingsStore.
export const writeKept = (sql: Sql, kept: ReadonlyArray<Kept>): Promise<number> => writeColumns(sql, columnsOf(kept))

/** The position kept for a follower of a stream (migration 0013), if any. */
const streamPosition = async (sql: Sql, stream: string, follower: string): Promise<number | undefined> => {
  const read = positionOf(
    await sql`select seq::float8 as seq from stream_positions where stream = ${stream} and follower = ${follower}`,
  )
  if (!read.ok) throw new Error(read.why)
  return read.value
}

/** Keeps a follower's position; in the transaction that keeps what it read up to there. */
const keepStreamPosition = async (sql: Sql, stream: string, follower: string, seq: number): Promise<void> => {
  await sql`insert into stream_positions (stream, follower, seq) values (${stream}, ${follower}, ${seq})
    on conflict (stream, follower) do update set seq = excluded.seq, kept_at = now()`
}

/** Keeps what was set aside; answers the ones not already kept (a message comes again when its ack was lost). */
const setAside = async (sql: Sql, letters: ReadonlyArray<DeadLetter>): Promise<ReadonlyArray<DeadLetter>> => {
  if (letters.length === 0) return []
  const fresh = await sql`
    insert into dead_letters ${sql(
      letters.map((d) => ({
        kind: d.kind,
        stream: d.stream,
        subject: d.subject,
        stream_sequence: d.streamSequence,
        body: d.body,
        why: d.why,
      })),
    )}
    on conflict (kind, stream, stream_sequence) do nothing
    returning stream_sequence::float8 as seq`
  const seqs = new Set(fresh.map((r) => r["seq"]))
  return letters.filter((d) => seqs.has(d.streamSequence))
}

const failingStandings = async (sql: Sql): Promise<Array<Kept>> =>
  keptOfRows(
    await sql.unsafe(
      `select ${columns} from standings where state = 'failing' order by provider, provider_node, consumer`,
    ),
  )

const standingsOf = async (sql: Sql, provider: string, consumer: string): Promise<Array<Kept>> =>
  keptOfRows(
    await sql.unsafe(`select ${columns} from standings where provider = $1 and consumer = $2 order by provider_node`, [
      provider,
      consumer,
    ]),
  )

const setAsideCount = async (sql: Sql): Promise<SetAsideCount> => {
  const [row] =
    await sql`select count(*)::float8 as count, (extract(epoch from max(at)) * 1000)::float8 as newest_ms from dead_letters`
  const e = decodeSetAside(row)
  if (Exit.isFailure(e)) throw new Error(`the dead_letters count is not one: ${String(e.cause)}`)
  return { count: e.value.count, newest: e.value.newest_ms ?? undefined }
}

/** What the controller keeps of providers' words, and of every message it set aside. */
export class StandingsStore extends Context.Service<
  StandingsStore,
  {
    /** Writes each standing unless the one kept for its key is newer (the core's order key decides). Answers how many rows changed. */
    readonly writeStandings: (writes: ReadonlyArray<Kept>) => Effect.Effect<number, StoreUnreadable>
    /** Keeps messages set aside, once per stream message; answers the stream sequences not kept before. */
    readonly setAside: (
      letters: ReadonlyArray<DeadLetterRecord>,
    ) => Effect.Effect<ReadonlyArray<number>, StoreUnreadable>
    readonly failing: Effect.Effect<ReadonlyArray<Kept>, StoreUnreadable>
    readonly setAsideCount: Effect.Effect<SetAsideCount, StoreUnreadable>
    /** Where a follower of a stream is: the last stream sequence it kept, if it kept any. */
    readonly position: (stream: string, follower: string) => Effect.Effect<number | undefined, StoreUnreadable>
    /** Keeps a follower's position, in the transaction that keeps what it read. */
    readonly keepPosition: (stream: string, follower: string, seq: number) => Effect.Effect<void, StoreUnreadable>
    /** The standings kept for a provider's resource and a consumer, one per provider machine. */
    readonly standingsOf: (provider: string, consumer: string) => Effect.Effect<ReadonlyArray<Kept>, StoreUnreadable>
    /** Writes standings as the core made them (a forget), newest wins; answers how many rows changed. */
    readonly writeKept: (kept: ReadonlyArray<Kept>) => Effect.Effect<number, StoreUnreadable>
    /**
     * What `status` shows of the standings: the failing ones and the words set aside, or why not (a
     * store never set up says how to set it up).
     */
    readonly failingAndSetAside: Effect.Effect<
      { readonly kept: ReadonlyArray<Kept>; readonly aside: SetAsideCount },
      StoreUnreadable
    >
  }
>()("mesh-core/store/StandingsStore") {
  static readonly layer = Layer.effect(
    StandingsStore,
    Effect.gen(function* () {
      const store = yield* Store
      const run = (span: string) => runSql(store, span)
      return StandingsStore.of({
        writeStandings: (writes) => run("StandingsStore.writeStandings")((sql) => writeKept(sql, writes)),
        setAside: (letters) =>
          run("StandingsStore.setAside")(async (sql) => (await setAside(sql, letters)).map((d) => d.streamSequence)),
        failing: run("StandingsStore.failing")((sql) => failingStandings(sql)),
        setAsideCount: run("StandingsStore.setAsideCount")((sql) => setAsideCount(sql)),
        position: (stream, follower) => run("StandingsStore.position")((sql) => streamPosition(sql, stream, follower)),
        keepPosition: (stream, follower, seq) =>
          run("StandingsStore.keepPosition")((sql) => keepStreamPosition(sql, stream, follower, seq)),
        standingsOf: (provider, consumer) =>
          run("StandingsStore.standingsOf")((sql) => standingsOf(sql, provider, consumer)),
        writeKept: (kept) => run("StandingsStore.writeKept")((sql) => writeKept(sql, kept)),
        failingAndSetAside: run("StandingsStore.failingAndSetAside")(async (sql) => {
          const [present] =
            await sql`select to_regclass('standings') is not null and to_regclass('dead_letters') is not null as present`
          if (present?.["present"] !== true) {
            throw new Error(
              "it has no standings table yet (or no dead_letters table): start the controller (mesh-controller serve) once to set it up",
            )
          }
          return { kept: await failingStandings(sql), aside: await setAsideCount(sql) }
        }),
      })
    }),
  )

  /** In memory, for shell tests: the same newest-wins rule and once-per-message setting aside. */
  static readonly layerTest = Layer.effect(
    StandingsStore,
    Effect.gen(function* () {
      const kept = yield* Ref.make(new Map<string, Kept>())
      const letters = yield* Ref.make(new Map<string, DeadLetterRecord>())
      const positions = yield* Ref.make(new Map<string, number>())
      return StandingsStore.of({
        writeStandings: (writes) =>
          Ref.modify(kept, (m) => {
            const next = new Map(m)
            let n = 0
            for (const w of writes) {
              const k = next.get(keyText(w))
              if (k === undefined || isNewer(w, k)) next.set(keyText(w), w), n++
            }
            return [n, next]
          }),
        setAside: (ls) =>
          Ref.modify(letters, (m) => {
            const next = new Map(m)
            const fresh: Array<number> = []
            for (const d of ls) {
              const key = `${d.kind}\u0000${d.stream}\u0000${d.streamSequence}`
              if (!next.has(key)) next.set(key, d), fresh.push(d.streamSequence)
            }
            return [fresh, next]
          }),
        failing: Effect.map(Ref.get(kept), (m) => [...m.values()].filter((k) => k.state === "failing")),
        setAsideCount: Effect.map(Ref.get(letters), (m) => ({ count: m.size, newest: undefined })),
        position: (stream, follower) => Effect.map(Ref.get(positions), (m) => m.get(`${stream}\u0000${follower}`)),
        keepPosition: (stream, follower, seq) =>
          Ref.update(positions, (m) => new Map(m).set(`${stream}\u0000${follower}`, seq)),
        standingsOf: (provider, consumer) =>
          Effect.map(Ref.get(kept), (m) =>
            [...m.values()].filter((k) => k.provider === provider && k.consumer === consumer),
          ),
        writeKept: (ws) =>
          Ref.modify(kept, (m) => {
            const next = new Map(m)
            let n = 0
            for (const w of ws) {
              const k = next.get(keyText(w))
              if (k === undefined || isNewer(w, k)) next.set(keyText(w), w), n++
            }
            return [n, next]
          }),
        failingAndSetAside: Effect.all({
          kept: Effect.map(Ref.get(kept), (m) => [...m.values()].filter((k) => k.state === "failing")),
          aside: Effect.map(Ref.get(letters), (m) => ({ count: m.size, newest: undefined })),
        }),
      })
    }),
  )
}
