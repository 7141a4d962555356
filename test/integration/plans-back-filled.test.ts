// Plan rows kept before tiers and the verbs back-filled by migration 0019 (issue 39): each row reads
// afterwards with its tiers, what was sent and its history spelt out, and the core reads it exactly as
// it read the row with those columns missing (tiersOf, sentOf, unsentOf, the history it adds to).
import { Effect, Layer } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { emptyHistory } from "@mesh-core/core/gate/plan/history"
import { sentOf, tiersOf, unsentOf } from "@mesh-core/core/gate/plan/plan"
import type { PlanRecord } from "@mesh-core/core/gate/plan/records"
import * as Journal from "../../shells/src/journal.ts"
import { GateStore } from "../../shells/src/store/gate.ts"
import * as Store from "../../shells/src/store/postgres.ts"
import { migrate } from "../../shells/src/store/postgres.ts"
import { databaseUrl, requirePostgres, uniqueNames } from "../support/servers.ts"

const { schema } = uniqueNames("back_filled")
afterAll(async () => {
  const sql = await requirePostgres()
  await sql`drop schema if exists ${sql(schema)} cascade`
  await sql.end()
})

const plans = () =>
  Effect.runPromise(
    Effect.gen(function* () {
      return yield* (yield* GateStore).plans
    }).pipe(
      Effect.provide(GateStore.layer.pipe(Layer.provideMerge(Store.layer(databaseUrl, schema)))),
      Effect.provide(Journal.memoryLayer([])),
    ),
  )

describe("plan rows kept before (migration 0019)", () => {
  it("are back-filled with what the core read their missing columns as; rows that spell them are left as they were", async () => {
    const sql = await requirePostgres()
    try {
      await migrate(sql, schema)
      await sql.unsafe(`set search_path to "${schema}"`)
      const row = (id: string, state: string, machines: Array<string>, rest: Array<string>, tiers: unknown = null) =>
        sql`insert into plans (id, module, build, commit, previous, machines, rest, sent_at, state, tiers)
          values (${id}, 'letta', ${`b-${id}`}, 'c', 'p', ${sql.json(machines)}, ${sql.json(rest)}, now(), ${state},
          ${tiers === null ? null : sql.json(tiers as Array<Array<string>>)})`
      await row("open-before-tiers", "open", ["hq-3"], ["hq-4", "hq-5"])
      await row("passed-before-tiers", "passed", ["hq-3", "hq-4"], ["hq-4", "hq-5"])
      await row("passed-in-tiers", "passed", ["hq-1"], ["hq-3", "hq-2"], [["hq-1"], ["hq-2", "hq-1"]])
      const before = new Map((await plans()).map((p) => [p.id, p]))
      expect([...before.values()].every((p) => p.sent === undefined && p.history === undefined)).toBe(true)
      // Run 0019 again over the rows kept before it.
      await sql`delete from schema_migrations where version = 19`
      expect(await migrate(sql, schema)).toEqual(["0019_plans_back_filled.sql"])
      const after = new Map((await plans()).map((p) => [p.id, p]))
      const read = (p: PlanRecord) => ({ tiers: tiersOf(p), sent: sentOf(p), unsent: unsentOf(p) })
      for (const [id, was] of before) {
        const now = after.get(id)!
        expect(read(now), id).toEqual(read(was))
        expect(now.tiers, id).toEqual(tiersOf(was))
        expect(now.sent, id).toEqual(sentOf(was))
        expect(now.history, id).toEqual(emptyHistory)
      }
      // The seed's order, first seen first: the tiers, then the rest.
      expect(after.get("passed-in-tiers")!.sent).toEqual(["hq-1", "hq-2", "hq-3"])
      expect(after.get("open-before-tiers")!.sent).toEqual(["hq-3"])
    } finally {
      await sql.end()
    }
  })
})
