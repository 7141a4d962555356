// Schema reach over the real PostgreSQL (novox/hq issue 352; migration 0006): serve records which
// migration its build reads up to, and the gate reads it against the store's migration now.
import { ConfigProvider, Effect, Layer } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { putBackOnlyIfItReads } from "@mesh-core/core/gate/tick/schema-reach"
import * as Journal from "../../shells/src/journal.ts"
import { recordSchemaReach, runningBuild, SchemaReachLive, storeReach } from "../../shells/src/lease/schema-reach.ts"
import * as Store from "../../shells/src/store/postgres.ts"
import { databaseUrl, requirePostgres, uniqueNames, dropSchemas } from "../support/servers.ts"

const { schema } = uniqueNames("lease_reach")
afterAll(() => dropSchemas([schema]))

const carried = Math.max(...Store.migrations().map((m) => m.version))
const pad = (n: number) => String(n).padStart(4, "0")

describe("schema reach in the store", () => {
  it("records this build's reach at start, says so in the seed's words, and the gate puts back only a build that reads the store as it is", async () => {
    const lines: Array<string> = []
    const run = <A, E>(e: Effect.Effect<A, E, Store.Store | Journal.Journal>) =>
      Effect.runPromise(
        e.pipe(Effect.provide(Layer.mergeAll(Store.layerMigrated(databaseUrl, schema), Journal.memoryLayer(lines)))),
      )
    const said = await run(recordSchemaReach("controller-204"))
    expect(said).toBe(`this build (controller-204) reads the store's schema up to migration ${pad(carried)}; recorded`)
    expect(lines).toEqual([`[controller] ${said}`])
    expect(await run(recordSchemaReach(undefined))).toBe(
      "this process was not told which build it is (MESH_BUILD), so what it reads of the store's schema is not recorded, and a gate will never put it back",
    )
    const now = await run(storeReach("controller-204"))
    expect(now).toEqual({ ok: true, value: { storeAt: carried, reach: carried } })
    expect(
      putBackOnlyIfItReads("controller", { found: true, build: "controller-204", commit: "5e1f0c2" }, now).found,
    ).toBe(true)
    // An older build that recorded a lower reach, and one that never recorded any.
    const sql = await requirePostgres()
    await sql`insert into ${sql(schema)}.schema_reach (build, reach) values ('controller-150', 4)`
    await sql.end()
    const old = await run(storeReach("controller-150"))
    expect(
      putBackOnlyIfItReads("controller", { found: true, build: "controller-150", commit: "a71c3d0" }, old),
    ).toEqual({
      found: false,
      why: `build controller-150 reads the store's schema up to migration 0004, and the store is at migration ${pad(carried)} now: it cannot read the store as it is`,
    })
    const never = await run(storeReach("controller-99"))
    expect(never).toEqual({ ok: true, value: { storeAt: carried, reach: undefined } })
  })

  it("as serve's layer: MESH_BUILD read, the reach recorded and said before anything built on it", async () => {
    const lines: Array<string> = []
    await Effect.runPromise(
      Effect.void.pipe(
        Effect.provide(
          SchemaReachLive.pipe(
            Layer.provide(
              Layer.mergeAll(
                Store.layerMigrated(databaseUrl, schema),
                Journal.memoryLayer(lines),
                ConfigProvider.layer(ConfigProvider.fromUnknown({ MESH_BUILD: "controller-205" })),
              ),
            ),
          ),
        ),
      ),
    )
    expect(lines).toEqual([
      `[controller] this build (controller-205) reads the store's schema up to migration ${pad(carried)}; recorded`,
    ])
  })

  it("MESH_BUILD names the build; unset or empty is not told", async () => {
    const read = (env: Record<string, string>) =>
      Effect.runPromise(runningBuild.pipe(Effect.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(env)))))
    expect(await read({ MESH_BUILD: "controller-204" })).toBe("controller-204")
    expect(await read({})).toBeUndefined()
    expect(await read({ MESH_BUILD: "" })).toBeUndefined()
  })
})
