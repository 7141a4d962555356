// A three-node NATS cluster of a test's own, with JetStream, on free ports, routed to one another:
// how the mesh runs once it outgrows one bus server. Its nodes are killed by PID; the shared server
// is never touched.
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { jetstreamManager } from "@nats-io/jetstream"
import { connect } from "@nats-io/transport-node"
import { freePort } from "./private-servers.ts"

export interface ClusterNode {
  readonly name: string
  readonly url: string
  readonly child: ChildProcess
}

const natsServer = "/usr/sbin/nats-server"

export const startNatsCluster = async (size = 3) => {
  const dir = mkdtempSync(join(tmpdir(), "mesh-core-nats-cluster-"))
  const ports = await Promise.all(
    Array.from({ length: size }, async () => ({ client: await freePort(), route: await freePort() })),
  )
  const cluster = `mesh_lease_${process.pid}`
  const nodes: Array<ClusterNode> = ports.map((p, i) => {
    const name = `n${i + 1}`
    const routes = ports
      .filter((_, j) => j !== i)
      .map((q) => `nats://127.0.0.1:${q.route}`)
      .join(",")
    const child = spawn(
      natsServer,
      [
        "-a",
        "127.0.0.1",
        "-p",
        String(p.client),
        "-n",
        name,
        "-js",
        "-sd",
        join(dir, name),
        "--cluster_name",
        cluster,
        "--cluster",
        `nats://127.0.0.1:${p.route}`,
        "--routes",
        routes,
      ],
      { stdio: "ignore" },
    )
    return { name, url: `nats://127.0.0.1:${p.client}`, child }
  })
  const stop = () => {
    for (const n of nodes) {
      try {
        if (n.child.exitCode === null && n.child.signalCode === null) process.kill(n.child.pid!, "SIGKILL")
      } catch {
        /* gone already */
      }
    }
    rmSync(dir, { recursive: true, force: true })
  }
  // Ready once JetStream answers as a cluster (a meta leader elected): every node up, and an account info through one.
  const until = Date.now() + 30_000
  let last = ""
  for (;;) {
    try {
      const nc = await connect({ servers: nodes.map((n) => n.url), timeout: 1_000 })
      try {
        const jsm = await jetstreamManager(nc, { timeout: 2_000 })
        await jsm.getAccountInfo()
        return { nodes, urls: nodes.map((n) => n.url), stop }
      } finally {
        await nc.close()
      }
    } catch (e) {
      last = e instanceof Error ? e.message : String(e)
    }
    if (Date.now() > until) {
      stop()
      throw new Error(
        `the three-node NATS cluster did not form within 30 s (${nodes.map((n) => n.url).join(", ")}): ${last}`,
      )
    }
    await new Promise((r) => setTimeout(r, 250))
  }
}
