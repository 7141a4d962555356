// Issue 14: the bus killed (-9) and started again, and frozen (SIGSTOP) and thawed, under a running
// `serve`: serve stays alive, and every word published before and after is kept (counted by
// status). Private nats-server and PostgreSQL, both with passwords; every captured byte is searched
// for them.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { alive, inWorld, type PrivateMesh, sleep, startPrivateMesh } from "../support/private-controller.ts"

let mesh: PrivateMesh
beforeAll(async () => { mesh = await startPrivateMesh() }, 60_000)
afterAll(() => mesh?.stop())

describe("serve under a bus that fails", () => {
  it("NATS killed (-9) and started again: serve alive, 100 words before and 100 after all kept, nothing leaks", async () => {
    await inWorld(mesh, "buskill", async (w) => {
      const serve = await w.serve()
      await w.failingWords(0, 100)
      await w.keptFailing(100)
      await mesh.nats.kill()
      await sleep(5_000)
      expect(alive(serve), serve.output()).toBe(true)
      await mesh.nats.start()
      await w.failingWords(100, 200)
      const s = await w.keptFailing(200).catch((e) => { throw new Error(`${e.message}\n${serve.output()}`) })
      expect(s.json!.failing.map((f) => f.consumer).sort()).toEqual(Array.from({ length: 200 }, (_, i) => `c${i}`).sort())
      expect(s.code).toBe(1)
      expect(alive(serve), serve.output()).toBe(true)
      console.log(`bus killed: 1 fault survived, ${200 - s.json!.failing.length} words lost`)
    })
  }, 180_000)

  it("NATS frozen (SIGSTOP) 10 s and thawed: serve alive, 100 words before and 100 after all kept, nothing leaks", async () => {
    await inWorld(mesh, "busfreeze", async (w) => {
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
      const s = await w.keptFailing(200).catch((e) => { throw new Error(`${e.message}\n${serve.output()}`) })
      expect(s.json!.failing.map((f) => f.consumer).sort()).toEqual(Array.from({ length: 200 }, (_, i) => `c${i}`).sort())
      expect(alive(serve), serve.output()).toBe(true)
      console.log(`bus frozen: 1 fault survived, ${200 - s.json!.failing.length} words lost`)
    })
  }, 180_000)
})
