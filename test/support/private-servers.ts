// Servers of a fault test's own, to kill and freeze by PID: the shared ones are never stopped.
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { connect } from "@nats-io/transport-node"

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const s = createServer()
    s.listen(0, "127.0.0.1", () => {
      const address = s.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      s.close(() => resolve(port))
    })
    s.on("error", reject)
  })

/** A nats-server with JetStream on a free port, its store in a scratch directory. */
export const startPrivateNats = async () => {
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), "mesh-core-nats-"))
  let child: ChildProcess = spawn("/usr/sbin/nats-server", ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", dir], { stdio: "ignore" })
  const url = `nats://127.0.0.1:${port}`
  const ready = async () => {
    for (let i = 0; i < 100; i++) {
      try {
        await (await connect({ servers: url, timeout: 500 })).close()
        return
      } catch {
        await new Promise((r) => setTimeout(r, 100))
      }
    }
    throw new Error(`the private nats-server at ${url} did not start`)
  }
  await ready()
  return {
    url,
    pid: () => child.pid!,
    freeze: () => void process.kill(child.pid!, "SIGSTOP"),
    thaw: () => void process.kill(child.pid!, "SIGCONT"),
    kill: () => void process.kill(child.pid!, "SIGKILL"),
    restart: async () => {
      child = spawn("/usr/sbin/nats-server", ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", dir], { stdio: "ignore" })
      await ready()
    },
    stop: () => {
      try {
        process.kill(child.pid!, "SIGCONT")
        process.kill(child.pid!, "SIGKILL")
      } catch { /* gone already */ }
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
