// A three-node NATS cluster of a test's own, with JetStream, on free ports, routed to one another:
// how the mesh runs once it outgrows one bus server. Each node is killed, frozen and started again by
// PID, on its own ports and store; the shared server is never touched. With `auth`, every node takes
// only that user and password, so a test can search what it captured for the password.
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { jetstreamManager } from "@nats-io/jetstream"
import { connect, type NatsConnection } from "@nats-io/transport-node"
import { natsConnectOptions } from "../../shells/src/bus-credentials.ts"
import { freePort } from "./private-servers.ts"

export interface ClusterNode {
  readonly name: string
  /** The node's client URL, without credentials. */
  readonly url: string
  readonly port: number
  readonly child: () => ChildProcess
  readonly alive: () => boolean
  /** kill -9, and wait until it is gone. */
  readonly kill: () => Promise<void>
  /** Starts it again on its ports and store (it rejoins the cluster on its own). */
  readonly start: () => void
  readonly freeze: () => void
  readonly thaw: () => void
}

const natsServer = "/usr/sbin/nats-server"

export const startNatsCluster = async (size = 3, auth?: { readonly user: string; readonly password: string }) => {
  const dir = mkdtempSync(join(tmpdir(), "mesh-core-nats-cluster-"))
  const ports = await Promise.all(
    Array.from({ length: size }, async () => ({ client: await freePort(), route: await freePort() })),
  )
  const cluster = `mesh_${process.pid}`
  const nodes: Array<ClusterNode> = ports.map((p, i) => {
    const name = `n${i + 1}`
    const routes = ports
      .filter((_, j) => j !== i)
      .map((q) => `nats://127.0.0.1:${q.route}`)
      .join(",")
    const args = [
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
      // Clients are told of no other node: one that reaches the cluster through a proxy (a fault
      // test's partition) stays behind it rather than finding the nodes directly.
      "--no_advertise",
      ...(auth === undefined ? [] : ["--user", auth.user, "--pass", auth.password]),
    ]
    let child = spawn(natsServer, args, { stdio: "ignore" })
    const alive = () => child.exitCode === null && child.signalCode === null
    return {
      name,
      url: `nats://127.0.0.1:${p.client}`,
      port: p.client,
      child: () => child,
      alive,
      kill: () =>
        new Promise<void>((r) => {
          if (!alive()) return r()
          child.once("exit", () => r())
          try {
            process.kill(child.pid!, "SIGCONT")
            process.kill(child.pid!, "SIGKILL")
          } catch {
            /* gone already */
          }
        }),
      start: () => {
        if (!alive()) child = spawn(natsServer, args, { stdio: "ignore" })
      },
      freeze: () => void process.kill(child.pid!, "SIGSTOP"),
      thaw: () => void process.kill(child.pid!, "SIGCONT"),
    }
  })
  const credentials = auth === undefined ? "" : `${encodeURIComponent(auth.user)}:${encodeURIComponent(auth.password)}@`
  /** Every node's URL, as NATS_URL names a cluster: separated by commas, each with the credentials. */
  const url = nodes.map((n) => n.url.replace("nats://", `nats://${credentials}`)).join(",")
  const stop = () => {
    for (const n of nodes) {
      try {
        process.kill(n.child().pid!, "SIGCONT")
        if (n.alive()) process.kill(n.child().pid!, "SIGKILL")
      } catch {
        /* gone already */
      }
    }
    rmSync(dir, { recursive: true, force: true })
  }
  const connectAll = (): Promise<NatsConnection> =>
    connect({ ...natsConnectOptions(url), timeout: 2_000, maxReconnectAttempts: -1, reconnectTimeWait: 250 })
  // Ready once JetStream answers as a cluster (a meta leader elected): every node up, and an account info through one.
  const until = Date.now() + 30_000
  let last = ""
  for (;;) {
    try {
      const nc = await connect({ ...natsConnectOptions(url), timeout: 1_000 })
      try {
        const jsm = await jetstreamManager(nc, { timeout: 2_000 })
        await jsm.getAccountInfo()
        return { nodes, urls: nodes.map((n) => n.url), url, connect: connectAll, stop, dir }
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
