// `status`: every failing standing by name, and not well while any stands. A store that cannot be
// read is said, and never reads as well.
import { Effect } from "effect"
import { statusOf } from "@mesh-core/core/standings/standings"
import { Store, storeError } from "../store/postgres.ts"
import { failingStandings } from "../store/standings.ts"

export const readStatus = Effect.gen(function*() {
  const { sql, url } = yield* Store
  const kept = yield* Effect.tryPromise({
    try: async () => {
      const [present] = await sql`select to_regclass('standings') is not null as present`
      if (present?.["present"] !== true) {
        throw new Error("it has no standings table yet: start the controller (mesh-controller serve) once to set it up")
      }
      return failingStandings(sql)
    },
    catch: storeError(url),
  })
  return statusOf(kept)
})
