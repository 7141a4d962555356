// The ControllerLease service over the real NATS (issue 13): candidates in one process, each with its
// own scope, on a bucket of the test's own (lease 3 s, renew deadline 2 s, retry 0.5 s).
import { Kvm } from "@nats-io/kv"
import { ConfigProvider, Context, Effect, Exit, Layer, Scope } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import * as Bus from "../../shells/src/bus/nats.ts"
import * as Journal from "../../shells/src/journal.ts"
import { leaseBucketName, leaseKey } from "../../shells/src/lease/bucket.ts"
import { leaseSeenAt } from "../../shells/src/lease/read.ts"
import { ControllerLease } from "../../shells/src/lease/service.ts"
import { leaseReplicasConfig } from "../../shells/src/lease/settings.ts"
import { leaseState, leaseStatusLine, statusClockAllowanceMs } from "@mesh-core/core/lease/view"
import { cleanUp, natsUrl, requireNats, uniqueNames } from "../support/servers.ts"

const prefixes: Array<string> = []
afterAll(async () => {
  for (const p of prefixes) await cleanUp(p, p)
})

const settings = ConfigProvider.layer(
  ConfigProvider.fromUnknown({ MESH_LEASE_DURATION: "3s", MESH_LEASE_RENEW_DEADLINE: "2s", MESH_LEASE_RETRY: "500ms" }),
)

/** A candidate: resolves once it holds the lease; `close` ends its scope (a stop). */
const candidate = (bucket: string, lines: Array<string>) => {
  const scope = Effect.runSync(Scope.make())
  const layer = ControllerLease.layer({ bucket, floor: Effect.succeed(0) }).pipe(
    Layer.provide(Layer.mergeAll(Bus.layer(natsUrl), Journal.memoryLayer(lines), settings)),
  )
  const held = Effect.runPromise(
    Layer.buildWithScope(layer, scope).pipe(Effect.map((ctx) => Context.get(ctx, ControllerLease))),
  )
  return { held, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

const settled = async <A>(p: Promise<A>, ms: number) =>
  Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))])

describe("the controller lease on the bus", () => {
  it("one candidate holds epoch 1; the other waits, saying for whom; given back, the other takes it within the retry, at epoch 2", async () => {
    const { prefix } = uniqueNames("lease_svc")
    prefixes.push(prefix)
    const bucket = leaseBucketName(prefix)
    const aLines: Array<string> = []
    const bLines: Array<string> = []
    const a = candidate(bucket, aLines)
    const first = await a.held
    expect(Effect.runSync(first.epoch)).toBe(1)
    expect(aLines).toContain("[lease] this controller holds the controller lease, epoch 1; it acts")
    const b = candidate(bucket, bLines)
    expect(await settled(b.held, 1_500)).toBe(false)
    expect(bLines).toContain(
      `[lease] the controller lease is held by ${first.self} (epoch 1); this controller waits as a candidate`,
    )
    const gaveBackAt = Date.now()
    await a.close()
    expect(aLines.at(-1)).toBe(
      "[lease] the controller lease (epoch 1) was given back, so the epoch is recorded as given back rather than found expired by the next holder",
    )
    const second = await b.held
    expect(Date.now() - gaveBackAt).toBeLessThan(1_200)
    expect(Effect.runSync(second.epoch)).toBe(2)
    // The one that gave it back acts no more.
    expect(Exit.isFailure(Effect.runSyncExit(first.epoch))).toBe(true)
    await b.close()
  })

  it("two candidates on a free lease: compare-and-set lets exactly one take it", async () => {
    const { prefix } = uniqueNames("lease_race")
    prefixes.push(prefix)
    const bucket = leaseBucketName(prefix)
    const all = [candidate(bucket, []), candidate(bucket, []), candidate(bucket, [])]
    await Promise.race(all.map((c) => c.held))
    await new Promise((r) => setTimeout(r, 1_000))
    const holding = await Promise.all(all.map((c) => settled(c.held, 10)))
    expect(holding.filter(Boolean)).toHaveLength(1)
    for (const c of all) void c.close()
  })

  it("a holder that reads another holder in the record (written over it) loses the lease at once, in the seed's words", async () => {
    const { prefix } = uniqueNames("lease_over")
    prefixes.push(prefix)
    const bucket = leaseBucketName(prefix)
    const lines: Array<string> = []
    const a = candidate(bucket, lines)
    const lease = await a.held
    const nc = await requireNats()
    const kv = await new Kvm(nc).open(bucket)
    await kv.put(
      leaseKey,
      JSON.stringify({
        holder: "intruder",
        epoch: 7,
        acquiredAt: 0,
        renewedAt: 0,
        durationMs: 3_000,
        givenBack: false,
        ready: true,
      }),
    )
    const lostAt = Date.now()
    const lost = await Effect.runPromise(lease.lost)
    expect(Date.now() - lostAt).toBeLessThan(1_000)
    expect(lost.said).toBe(
      "the controller lease was lost; this controller stopped acting and stands down, a candidate again until it holds the lease",
    )
    expect(Exit.isFailure(Effect.runSyncExit(lease.epoch))).toBe(true)
    await a.close()
    await nc.close()
  })
})

describe("the lease as status reads it from the bus", () => {
  it("a bucket never made is nobody having held it; a holder is named with its epoch; given back is said; a bus not answering is said, not thrown", async () => {
    const { prefix } = uniqueNames("lease_read")
    prefixes.push(prefix)
    const bucket = leaseBucketName(prefix)
    const line = async () =>
      leaseStatusLine(
        leaseState(await Effect.runPromise(leaseSeenAt(natsUrl, bucket)), Date.now(), statusClockAllowanceMs),
      )
    expect(await line()).toBe("controller lease: no controller has held it yet, so none acts")
    const a = candidate(bucket, [])
    const held = await a.held
    expect(await line()).toMatch(
      // A lease with no workers beneath it never says it is ready: no follower of it has caught up.
      new RegExp(
        `^controller lease: held by ${held.self}, epoch 1, since \\S+ \\(renewed \\d+(ms|s) ago\\); it does not say it is ready$`,
      ),
    )
    await a.close()
    expect(await line()).toMatch(new RegExp(`^controller lease: given back by ${held.self} \\(epoch 1\\) at `))
    const down = await Effect.runPromise(leaseSeenAt("nats://127.0.0.1:1", bucket))
    expect(down).toEqual({ unreachable: expect.stringContaining("the bus at nats://127.0.0.1:1 is not answering") })
  })
})

describe("the lease's settings from the environment", () => {
  it("MESH_LEASE_REPLICAS is 1, 3 or 5, 1 when unset; anything else refused", async () => {
    const read = (env: Record<string, string>) =>
      Effect.runPromiseExit(
        leaseReplicasConfig.pipe(Effect.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(env)))),
      )
    expect(await read({})).toEqual(Exit.succeed(1))
    expect(await read({ MESH_LEASE_REPLICAS: "3" })).toEqual(Exit.succeed(3))
    expect(Exit.isFailure(await read({ MESH_LEASE_REPLICAS: "2" }))).toBe(true)
  })
})
