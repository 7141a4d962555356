// Issue 14: the bus killed (-9) and started again, and frozen (SIGSTOP) and thawed, under a running
// `serve`: serve stays alive, and every word published before and after is kept (counted by
// status). Private nats-server and PostgreSQL, both with passwords; every captured byte is searched
// for them. The controller lease lives on the bus (issue 13): a holder that cannot renew it within its
// renew deadline stops acting and exits, by design, so these outages run under a deadline longer than
// they last (lease 30 s, renew deadline 20 s); serve-lease.test.ts shows the exit past it.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { alive, inWorld, type PrivateMesh, sleep, startPrivateMesh } from "../support/private-controller.ts"

/** A renew deadline the outages below stay under, so serve rides them out holding its lease. */
const outlastTheOutage = { MESH_LEASE_DURATION: "30s", MESH_LEASE_RENEW_DEADLINE: "20s", MESH_LEASE_RETRY: "2s" }

let mesh: PrivateMesh
beforeAll(async () => {
  mesh = await startPrivateMesh()
}, 60_000)
afterAll(() => mesh?.stop())

describe("serve under a bus that fails", () => {
  it("NATS killed (-9) and started again: serve alive, 100 words before and 100 after all kept, nothing leaks", async () => {
    await inWorld(
      mesh,
      "buskill",
      async (w) => {
        const serve = await w.serve()
        await w.failingWords(0, 100)
        await w.keptFailing(100)
        await mesh.nats.kill()
        await sleep(5_000)
        expect(alive(serve), serve.output()).toBe(true)
        await mesh.nats.start()
        await w.failingWords(100, 200)
        const s = await w.keptFailing(200).catch((e) => {
          throw new Error(`${e.message}\n${serve.output()}`)
        })
        expect(s.json!.failing.map((f) => f.consumer).sort()).toEqual(
          Array.from({ length: 200 }, (_, i) => `c${i}`).sort(),
        )
        expect(s.code).toBe(1)
        expect(alive(serve), serve.output()).toBe(true)
        console.log(`bus killed: 1 fault survived, ${200 - s.json!.failing.length} words lost`)
      },
      outlastTheOutage,
    )
  }, 180_000)

  it("NATS frozen (SIGSTOP) 10 s and thawed: serve alive, 100 words before and 100 after all kept, nothing leaks", async () => {
    await inWorld(
      mesh,
      "busfreeze",
      async (w) => {
        const serve = await w.serve()
        await w.failingWords(0, 100)
        await w.keptFailing(100)
        mesh.nats.freeze()
        try {
          await sleep(10_000)
          expect(alive(serve), serve.output()).toBe(true)
        } finally {
          mesh.nats.thaw()
        }
        await w.failingWords(100, 200)
        const s = await w.keptFailing(200).catch((e) => {
          throw new Error(`${e.message}\n${serve.output()}`)
        })
        expect(s.json!.failing.map((f) => f.consumer).sort()).toEqual(
          Array.from({ length: 200 }, (_, i) => `c${i}`).sort(),
        )
        expect(alive(serve), serve.output()).toBe(true)
        console.log(`bus frozen: 1 fault survived, ${200 - s.json!.failing.length} words lost`)
        expect(serve.output()).not.toContain("the controller lease was lost")
      },
      outlastTheOutage,
    )
  }, 180_000)
})
