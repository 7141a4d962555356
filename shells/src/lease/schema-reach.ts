// Schema reach in the store (novox/hq issue 352, seed 004; migration 0006's `schema_reach`): `serve`
// records at start which migration its build reads up to, and the gate reads it before putting a
// controller's build back. The decisions and the words are the core's (core/src/gate/schema-reach.ts);
// this answers its questions.
import {
  type ReachAnswer, reachOf, type ReachQuestion, RunningBuild, runningBuildVar, schemaReachAtStart, type StoreReach,
} from "@mesh-core/core/gate/schema-reach"
import type { Readable } from "@mesh-core/core/gate/facts"
import { Config, Effect, Layer, Schema } from "effect"
import { Journal } from "../journal.ts"
import { migrations, Store, type Sql } from "../store/postgres.ts"
import { errorText } from "@mesh-core/core/error-text"

/** Which build this process is, from MESH_BUILD; undefined when not told. */
export const runningBuild: Effect.Effect<string | undefined, Config.ConfigError> = Effect.gen(function*() {
  const build = yield* Config.schema(RunningBuild, runningBuildVar).pipe(Config.withDefault(""))
  return build === "" ? undefined : build
})

/** The highest migration this build carries. */
const carriedReach = Effect.try({ try: () => reachOf(migrations().map((m) => m.version)), catch: errorText })

const answer = (sql: Sql, q: ReachQuestion): Effect.Effect<ReachAnswer> => {
  const settle = <A>(e: Effect.Effect<A, string>, value: (a: A) => number) =>
    e.pipe(Effect.map((a): ReachAnswer => ({ ok: true, value: value(a) })), Effect.catch((why) => Effect.succeed<ReachAnswer>({ ok: false, why })))
  switch (q.ask) {
    case "reach":
      return settle(carriedReach, (n) => n)
    case "record":
      return settle(
        Effect.tryPromise({
          try: () => sql`insert into schema_reach (build, reach) values (${q.build}, ${q.reach})
            on conflict (build) do update set reach = excluded.reach, recorded_at = now()`,
          catch: errorText,
        }),
        () => q.reach,
      )
  }
}

/** `serve` at start: records what this build reads of the store's schema, and says one of the seed's three sentences. */
export const recordSchemaReach = Effect.fn("SchemaReach.record")(function*(build: string | undefined) {
  const { sql } = yield* Store
  const program = schemaReachAtStart(build)
  let step = program.next()
  while (step.done !== true) step = program.next(yield* answer(sql, step.value))
  yield* Journal.use((j) => j.say(`[controller] ${step.value}`))
  return step.value
})

const Row = Schema.Struct({ store_at: Schema.Number, reach: Schema.NullOr(Schema.Number) })

/** What the gate reads before putting back a controller's build: the store's migration now, and the build's recorded reach. */
export const storeReach = Effect.fn("SchemaReach.read")(function*(build: string) {
  const { sql } = yield* Store
  return yield* Effect.tryPromise({
    try: () => sql`select (select coalesce(max(version), 0) from schema_migrations)::int as store_at,
      (select reach from schema_reach where build = ${build}) as reach`,
    catch: errorText,
  }).pipe(
    Effect.flatMap((rows) => Schema.decodeUnknownEffect(Row)(rows[0]).pipe(Effect.mapError((e) => e.message))),
    Effect.map((r): Readable<StoreReach> => ({ ok: true, value: { storeAt: r.store_at, reach: r.reach ?? undefined } })),
    Effect.catch((why) => Effect.succeed<Readable<StoreReach>>({ ok: false, why })),
  )
})

/**
 * `serve`'s record of its reach as a layer: beneath the lease's layer, so it is said at start, after the
 * store is open and before the lease is waited for (the seed's order). MESH_BUILD with spaces is refused.
 */
export const SchemaReachLive = Layer.effectDiscard(Effect.flatMap(runningBuild, recordSchemaReach))
