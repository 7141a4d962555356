// /readyz over the real servers (issue 10): two controllers, each with its watch port, probing the
// real PostgreSQL and NATS; one holds the controller lease (a bucket of the test's own), the other
// waits as a candidate. The holder is ready; the other is 503 and says it does not hold the lease, and
// nothing else, since its store and bus answer. Given back, the holder's port says so too.
import { ConfigProvider, Context, Effect, Exit, Layer, Scope } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import * as Bus from "../../shells/src/bus/nats.ts"
import * as Journal from "../../shells/src/journal.ts"
import { leaseBucketName } from "../../shells/src/lease/bucket.ts"
import { ControllerLease } from "../../shells/src/lease/service.ts"
import { metricsHttpLayer, MetricsServer } from "../../shells/src/metrics/http.ts"
import { followLease, LeaseView, readinessLayer } from "../../shells/src/metrics/probes.ts"
import { Metrics } from "../../shells/src/metrics/service.ts"
import * as Store from "../../shells/src/store/postgres.ts"
import { parseExposition } from "../support/exposition.ts"
import { cleanUp, databaseUrl, eventually, natsUrl, requireServers, uniqueNames } from "../support/servers.ts"

const prefixes: Array<string> = []
afterAll(async () => {
  for (const p of prefixes) await cleanUp(p, p)
})

const settings = ConfigProvider.layer(
  ConfigProvider.fromUnknown({ MESH_LEASE_DURATION: "3s", MESH_LEASE_RENEW_DEADLINE: "2s", MESH_LEASE_RETRY: "500ms" }),
)

/**
 * One controller as serve would wire it: the watch port up first, over the real store and bus; the
 * lease layer built after it in a scope of its own (a candidate waits inside it), and once held, the
 * lease followed into the view and the metrics.
 */
const controller = async (bucket: string) => {
  const scope = Effect.runSync(Scope.make())
  const base = Layer.mergeAll(
    Bus.layer(natsUrl),
    Store.layer(databaseUrl, "public"),
    Journal.memoryLayer([]),
    LeaseView.layer,
    Metrics.layerTest,
    settings,
  )
  const watch = metricsHttpLayer("127.0.0.1:0").pipe(
    Layer.provideMerge(readinessLayer({ within: 5_000 })),
    Layer.provideMerge(base),
  )
  const ctx = await Effect.runPromise(Layer.buildWithScope(watch, scope))
  const { url } = Context.get(ctx, MetricsServer)
  const leaseScope = Effect.runSync(Scope.fork(scope, "sequential"))
  const held = Effect.runPromise(
    Effect.gen(function* () {
      const leased = yield* Layer.buildWithScope(
        ControllerLease.layer({ bucket, floor: Effect.succeed(0) }),
        leaseScope,
      )
      yield* followLease(100).pipe(Effect.provide(Context.merge(ctx, leased)), Scope.provide(leaseScope))
    }).pipe(Effect.provide(ctx)),
  )
  return {
    url,
    held,
    giveBack: () => Effect.runPromise(Scope.close(leaseScope, Exit.void)),
    close: () => Effect.runPromise(Scope.close(scope, Exit.void)),
  }
}

const get = async (url: string) => {
  const r = await fetch(url)
  return { status: r.status, body: await r.text() }
}

describe("/readyz on two controllers over the real servers", () => {
  it("the holder is ready; the candidate is 503 for the lease alone; the holder given back is 503 too", async () => {
    await requireServers()
    const { prefix } = uniqueNames("readyz")
    prefixes.push(prefix)
    const bucket = leaseBucketName(prefix)
    const a = await controller(bucket)
    await a.held
    const b = await controller(bucket)
    try {
      const ready = await eventually("the holder's /readyz 200", async () => {
        const r = await get(`${a.url}/readyz`)
        return r.status === 200 ? r : undefined
      })
      expect(ready.body).toBe("ready\n")
      const scrape = parseExposition((await get(`${a.url}/metrics`)).body).samples
      expect(scrape.get("mesh_lease_held")).toBe(1)
      expect(scrape.get("mesh_lease_epoch")).toBe(1)

      const notReady = await get(`${b.url}/readyz`)
      expect(notReady).toEqual({
        status: 503,
        body: "not ready:\n- this controller does not hold the controller lease\n",
      })
      expect(parseExposition((await get(`${b.url}/metrics`)).body).samples.get("mesh_lease_held")).toBe(0)
      expect((await get(`${b.url}/healthz`)).status).toBe(200)

      await a.giveBack()
      const after = await get(`${a.url}/readyz`)
      expect(after.status).toBe(503)
      expect(after.body).toContain("does not hold the controller lease")
      expect(parseExposition((await get(`${a.url}/metrics`)).body).samples.get("mesh_lease_held")).toBe(0)
      // The candidate takes the lease given back, at the next epoch, and its port turns ready.
      await b.held
      await eventually("the new holder's /readyz 200", async () =>
        (await get(`${b.url}/readyz`)).status === 200 ? true : undefined,
      )
      expect(parseExposition((await get(`${b.url}/metrics`)).body).samples.get("mesh_lease_epoch")).toBe(2)
    } finally {
      await b.close()
      await a.close()
    }
  })
})
