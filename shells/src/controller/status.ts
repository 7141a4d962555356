// `status`: every failing standing by name, stale ones marked, and the words set aside; not well
// while any standing stands. A store that cannot be read is said, and never reads as well.
import { Clock, Config, Effect } from "effect"
import { parseDuration } from "@mesh-core/core/duration"
import { StaleAfterSetting, statusOf } from "@mesh-core/core/standings/status"
import { Store, storeError } from "../store/postgres.ts"
import { failingStandings, setAsideCount } from "../store/standings.ts"

/** How long a standing may go unsaid before it is shown stale: MESH_STALE_AFTER, default two of the seed's SayAgainEvery. */
export const staleAfterMs = Config.schema(StaleAfterSetting, "MESH_STALE_AFTER").pipe(Config.withDefault("30m"), Config.map((s) => parseDuration(s)!))

export const readStatus = (staleAfter: number) => Effect.gen(function*() {
  const { sql, url } = yield* Store
  const { kept, aside } = yield* Effect.tryPromise({
    try: async () => {
      const [present] = await sql`select to_regclass('standings') is not null and to_regclass('dead_letters') is not null as present`
      if (present?.["present"] !== true) {
        throw new Error("it has no standings table yet (or no dead_letters table): start the controller (mesh-controller serve) once to set it up")
      }
      return { kept: await failingStandings(sql), aside: await setAsideCount(sql) }
    },
    catch: storeError(url),
  })
  return statusOf(kept, yield* Clock.currentTimeMillis, staleAfter, aside)
})
