// The census over the real PostgreSQL (issue 10): plans by state, open conditions by severity and
// failing standings by class, read from a migrated store of the test's own and scraped; a second
// census after rows changed replaces the gauges (a state no longer kept drops out); a store that
// cannot answer is one store error and leaves the gauges as they were.
import { Effect, Layer } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { takeCensus } from "../../shells/src/metrics/census.ts"
import { Metrics } from "../../shells/src/metrics/service.ts"
import * as Store from "../../shells/src/store/postgres.ts"
import { parseExposition } from "../support/exposition.ts"
import { databaseUrl, requirePostgres, uniqueNames, dropSchemas } from "../support/servers.ts"

const schemas: Array<string> = []
afterAll(() => dropSchemas(schemas))

const censusScraped = Effect.gen(function* () {
  yield* takeCensus()
  const m = yield* Metrics
  return yield* m.exposition
})

const only = (body: string, name: string) =>
  new Map([...parseExposition(body).samples].filter(([k]) => k === name || k.startsWith(`${name}{`)))

describe("the census", () => {
  it("counts what the store keeps, replaces it on the next census, and counts a store that cannot answer as one store error", async () => {
    const { schema } = uniqueNames("census")
    schemas.push(schema)
    const sql = await requirePostgres()
    const run = <A, E>(e: Effect.Effect<A, E, Metrics | Store.Store>, metrics: Layer.Layer<Metrics>) =>
      Effect.runPromise(e.pipe(Effect.provide(Layer.merge(metrics, Store.layerMigrated(databaseUrl, schema)))))
    // One registry across the censuses, as serve keeps one.
    const metrics = Layer.succeed(
      Metrics,
      await Effect.runPromise(
        Effect.gen(function* () {
          return yield* Metrics
        }).pipe(Effect.provide(Metrics.layerTest)),
      ),
    )
    await run(Effect.void, metrics)
    try {
      const t = (s: string) => sql`set search_path to ${sql(schema)}`.then(() => sql.unsafe(s))
      await t(`insert into plans (id, module, build, commit, previous, machines, sent_at, state) values
        ('p1','letta','b1','c','p','["hq-3"]',now(),'open'), ('p2','letta','b2','c','p','["hq-3"]',now(),'failed'), ('p3','hermes','b3','c','p','["hq-3"]',now(),'failed')`)
      await t(`insert into conditions (key, source, scope, subject_id, kind, severity, summary, raised_at, cleared_at) values
        ('k1','DG','build','x','rolled-back','warning','s',now(),null), ('k2','DG','core','y','rolled-back','urgent','s',now(),null), ('k3','DH','module','z','unhealthy','warning','s',now(),now())`)
      await t(`insert into standings (provider, provider_node, consumer, state, said_at, class, word_order) values
        ('identity','hq-2','letta','failing',now(),'credentials-rejected','1'), ('identity','hq-2','hermes','failing',now(),'credentials-rejected','2'),
        ('identity','hq-2','atlas','recovered',now(),null,'3'), ('pg','hq-4','atlas','failing',now(),null,'4')`)
      const first = await run(censusScraped, metrics)
      expect(only(first.body, "mesh_plans")).toEqual(
        new Map([
          ['mesh_plans{state="open"}', 1],
          ['mesh_plans{state="failed"}', 2],
        ]),
      )
      expect(only(first.body, "mesh_conditions_open")).toEqual(
        new Map([
          ['mesh_conditions_open{severity="warning"}', 1],
          ['mesh_conditions_open{severity="urgent"}', 1],
        ]),
      )
      expect(only(first.body, "mesh_standings_failing")).toEqual(
        new Map([
          ['mesh_standings_failing{class="credentials-rejected"}', 2],
          ['mesh_standings_failing{class="none"}', 1],
        ]),
      )

      await t(`update plans set state = 'passed' where id = 'p1'`)
      const second = await run(censusScraped, metrics)
      expect(only(second.body, "mesh_plans")).toEqual(
        new Map([
          ['mesh_plans{state="passed"}', 1],
          ['mesh_plans{state="failed"}', 2],
        ]),
      )

      await t(`alter table plans rename to plans_away`)
      const third = await run(censusScraped, metrics)
      expect(only(third.body, "mesh_store_errors_total")).toEqual(
        new Map([['mesh_store_errors_total{operation="census"}', 1]]),
      )
      expect(only(third.body, "mesh_plans")).toEqual(only(second.body, "mesh_plans"))
    } finally {
      await sql.end()
    }
  })
})
