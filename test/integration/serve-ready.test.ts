// Readiness is real (issue 26), over the real servers: a `serve` that takes the lease writes its record
// not ready, and says ready only once its followers have read what was waiting. /readyz answers the same.
import { Effect } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { leaseBucketName } from "../../shells/src/lease/bucket.ts"
import { leaseSeenAt } from "../../shells/src/lease/read.ts"
import { freePort } from "../support/private-servers.ts"
import { cleanUp, databaseUrl, natsUrl, type Running, startCli, uniqueNames } from "../support/servers.ts"

const { prefix, schema } = uniqueNames("ready")
const running: Array<Running> = []
afterAll(async () => {
  for (const r of running) r.process.kill("SIGTERM")
  await cleanUp(prefix, schema)
})

describe("a holder's readiness", () => {
  it("its lease record says not ready at the take and ready once its followers caught up; /readyz says the same", async () => {
    const port = await freePort()
    const env = {
      NATS_URL: natsUrl,
      DATABASE_URL: databaseUrl,
      MESH_BUS_PREFIX: prefix,
      MESH_STORE_SCHEMA: schema,
      MESH_LEASE_DURATION: "3s",
      MESH_LEASE_RENEW_DEADLINE: "2s",
      MESH_LEASE_RETRY: "300ms",
      MESH_METRICS_ADDR: `127.0.0.1:${port}`,
    }
    const serve = startCli(["serve"], env)
    running.push(serve)
    const seen: Array<{ ready: boolean; readyz: number }> = []
    const bucket = leaseBucketName(prefix)
    const until = Date.now() + 60_000
    for (;;) {
      const read = await Effect.runPromise(leaseSeenAt(natsUrl, bucket))
      if ("record" in read && read.record.givenBack === false) {
        const readyz = await fetch(`http://127.0.0.1:${port}/readyz`).then(
          (r) => r.status,
          () => 0,
        )
        seen.push({ ready: read.record.ready, readyz })
        if (read.record.ready && readyz === 200) break
      }
      expect(Date.now(), serve.output()).toBeLessThan(until)
      await new Promise((r) => setTimeout(r, 20))
    }
    // The first record this holder wrote says not ready; the last says ready, and /readyz agrees.
    expect(seen[0]!.ready, serve.output()).toBe(false)
    expect(seen.at(-1)).toEqual({ ready: true, readyz: 200 })
  }, 90_000)
})
