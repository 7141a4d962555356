// What the store keeps of itself, read for the controller: which migration each build reads up to
// (schema reach) and the census of what is kept now.
import { CensusRow } from "@mesh-core/core/controller/metrics"
import { printableUrl } from "@mesh-core/core/text/connection-url"
import { errorText } from "@mesh-core/core/text/error-text"
import { Effect, Schema } from "effect"
import { Store, StoreUnreadable, storeError } from "./postgres.ts"

// Schema reach (novox/hq issue 352, seed 004; migration 0006's `schema_reach`): which migration a
// build reads up to, recorded by `serve` at start and read by the gate before putting a build back.

/** Records that `build` reads the store's schema up to migration `reach`. */
export const recordReach = Effect.fn("Store.recordReach")(function* (build: string, reach: number) {
  const { sql, url } = yield* Store
  yield* Effect.tryPromise({
    try: () => sql`insert into schema_reach (build, reach) values (${build}, ${reach})
      on conflict (build) do update set reach = excluded.reach, recorded_at = now()`,
    catch: storeError(url),
  })
})

const ReachRow = Schema.Struct({ store_at: Schema.Number, reach: Schema.NullOr(Schema.Number) })

/** The store's migration now, and the reach recorded for `build` (undefined when none is). */
export const readReach = Effect.fn("Store.readReach")(function* (build: string) {
  const { sql, url } = yield* Store
  const rows = yield* Effect.tryPromise({
    try: () => sql`select (select coalesce(max(version), 0) from schema_migrations)::int as store_at,
      (select reach from schema_reach where build = ${build}) as reach`,
    catch: storeError(url),
  })
  const r = yield* Schema.decodeUnknownEffect(ReachRow)(rows[0]).pipe(
    Effect.mapError((e) => new StoreUnreadable({ url: printableUrl(url), reason: e.message, cause: e })),
  )
  return { storeAt: r.store_at, reach: r.reach ?? undefined }
})

const censusRows = Schema.decodeUnknownEffect(Schema.Array(CensusRow))

/**
 * What is kept now, counted (issue 10's gauges): plans by state, conditions open by severity, failing
 * standings by class; a row that is not a count is a store that cannot be read.
 */
export const census = Effect.fn("Store.census")(function* () {
  const { sql, url } = yield* Store
  const read = (query: () => Promise<unknown>) =>
    Effect.tryPromise({ try: query, catch: (e) => new StoreUnreadable({ url, reason: errorText(e), cause: e }) }).pipe(
      Effect.flatMap((rows) =>
        censusRows(rows).pipe(
          Effect.mapError(
            (e) => new StoreUnreadable({ url, reason: `a census row is not a count: ${e.message}`, cause: e }),
          ),
        ),
      ),
    )
  const [plans, conditions, failing] = yield* Effect.all([
    read(() => sql`select state as key, count(*)::int as count from plans group by state`),
    read(
      () =>
        sql`select severity as key, count(*)::int as count from conditions where cleared_at is null group by severity`,
    ),
    read(
      () =>
        sql`select coalesce(nullif(class, ''), 'none') as key, count(*)::int as count from standings where state = 'failing' group by 1`,
    ),
  ])
  return { plans, conditions, failing }
})
