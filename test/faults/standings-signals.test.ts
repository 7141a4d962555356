// Issue 14: SIGTERM and SIGINT stop serve within 2 s and a clean stop exits 0, even with the bus
// frozen (before, exit 130, and with the bus frozen serve ignored SIGTERM for 30 s). Private
// nats-server (frozen by PID) and PostgreSQL, both with passwords; what serve wrote is searched for
// them.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { inWorld, type PrivateMesh, startPrivateMesh } from "../support/private-controller.ts"

let mesh: PrivateMesh
beforeAll(async () => {
  mesh = await startPrivateMesh()
}, 60_000)
afterAll(() => mesh?.stop())

const stopped = (signal: NodeJS.Signals, freeze: boolean) =>
  inWorld(mesh, "sig", async (w) => {
    const serve = await w.serve()
    if (freeze) mesh.nats.freeze()
    try {
      const exited = new Promise<{ code: number | null; ms: number }>((resolve) => {
        const t0 = Date.now()
        serve.process.once("exit", (code) => resolve({ code, ms: Date.now() - t0 }))
      })
      serve.process.kill(signal)
      const r = await exited
      return { ...r, output: serve.output() }
    } finally {
      if (freeze) mesh.nats.thaw()
    }
  })

describe("signals", () => {
  it("SIGTERM with the bus answering: exit 0 within 2 s", async () => {
    const r = await stopped("SIGTERM", false)
    expect(r.code, r.output).toBe(0)
    expect(r.ms).toBeLessThan(2_000)
  }, 90_000)

  it("SIGTERM with the bus frozen (SIGSTOP): exit 0 within 2 s", async () => {
    const r = await stopped("SIGTERM", true)
    expect(r.code, r.output).toBe(0)
    expect(r.ms).toBeLessThan(2_000)
  }, 90_000)

  it("SIGINT with the bus frozen: exit 0 within 2 s", async () => {
    const r = await stopped("SIGINT", true)
    expect(r.code, r.output).toBe(0)
    expect(r.ms).toBeLessThan(2_000)
  }, 90_000)
})
