// Servers of a fault test's own, to kill, freeze and start again by PID: the shared ones are never
// stopped. A nats-server with JetStream (with a user and password when asked, so a test can search
// what it captured for the password) and a PostgreSQL cluster with password authentication.
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { connect, type NatsConnection } from "@nats-io/transport-node"
import postgres from "postgres"
import { natsConnectOptions } from "../../shells/src/bus-credentials.ts"

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

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms))

export interface PrivateNats {
  /** The URL to give a program: with the user and password when the server has them. */
  readonly url: string
  readonly port: number
  /** A connection of the test's own (the JavaScript client takes no credentials from a URL). */
  readonly connect: () => Promise<NatsConnection>
  readonly pid: () => number
  readonly freeze: () => void
  readonly thaw: () => void
  /** kill -9, and wait until it is gone. */
  readonly kill: () => Promise<void>
  /** Starts it again on the same port and store, and waits until it answers. */
  readonly start: () => Promise<void>
  readonly restart: () => Promise<void>
  /** Ends it (thawed first) and removes its store. */
  readonly stop: () => void
}

/** A nats-server with JetStream on a free port, its store in a scratch directory. */
export const startPrivateNats = async (
  auth?: {
    readonly user: string
    readonly password: string
  },
  /** The most bytes a message may carry (the server's max_payload), set through a config file. */
  maxPayload?: number,
): Promise<PrivateNats> => {
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), "mesh-core-nats-"))
  if (maxPayload !== undefined) writeFileSync(join(dir, "server.conf"), `max_payload: ${maxPayload}\n`)
  const args = [
    ...(maxPayload === undefined ? [] : ["-c", join(dir, "server.conf")]),
    "-a",
    "127.0.0.1",
    "-p",
    String(port),
    "-js",
    "-sd",
    dir,
    ...(auth === undefined ? [] : ["--user", auth.user, "--pass", auth.password]),
  ]
  const url =
    auth === undefined
      ? `nats://127.0.0.1:${port}`
      : `nats://${encodeURIComponent(auth.user)}:${encodeURIComponent(auth.password)}@127.0.0.1:${port}`
  let child: ChildProcess
  const ready = async () => {
    for (let i = 0; i < 150; i++) {
      try {
        await (await connect({ ...natsConnectOptions(url), timeout: 500 })).close()
        return
      } catch {
        await pause(100)
      }
    }
    throw new Error(`the private nats-server on port ${port} did not start`)
  }
  const start = async () => {
    child = spawn("/usr/sbin/nats-server", args, { stdio: "ignore" })
    await ready()
  }
  const kill = () =>
    new Promise<void>((r) => {
      if (child.exitCode !== null || child.signalCode !== null) return r()
      child.once("exit", () => r())
      try {
        process.kill(child.pid!, "SIGCONT")
        process.kill(child.pid!, "SIGKILL")
      } catch {
        /* gone already */
      }
    })
  await start()
  return {
    url,
    connect: () => connect({ ...natsConnectOptions(url), timeout: 2_000 }),
    port,
    pid: () => child.pid!,
    freeze: () => void process.kill(child.pid!, "SIGSTOP"),
    thaw: () => void process.kill(child.pid!, "SIGCONT"),
    kill,
    start,
    restart: start,
    stop: () => {
      try {
        process.kill(child.pid!, "SIGCONT")
        process.kill(child.pid!, "SIGKILL")
      } catch {
        /* gone already */
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

export interface PrivatePostgres {
  /** `postgres://USER:PASSWORD@127.0.0.1:PORT/postgres`, the password percent-encoded. */
  readonly url: string
  readonly port: number
  /** Its folder: its data and its log, every byte it wrote (the soak's secret scan reads them). */
  readonly dir: string
  readonly sql: () => postgres.Sql
  /** Stops the cluster at once (`pg_ctl stop -m immediate`), keeping its data. */
  readonly halt: () => void
  /** Starts it again and waits until it answers. */
  readonly start: () => void
  /** Freezes and thaws the postmaster and every backend (SIGSTOP/SIGCONT). */
  readonly freeze: () => void
  readonly thaw: () => void
  /** Stops it and removes its files. */
  readonly stop: () => void
}

/** A PostgreSQL cluster of the test's own with SCRAM password authentication, superuser `user`. */
export const startPrivatePostgres = async (
  user: string,
  password: string,
  options: { readonly logical?: boolean } = {},
): Promise<PrivatePostgres> => {
  const versions = readdirSync("/usr/lib/postgresql").sort()
  const bin = join("/usr/lib/postgresql", versions[versions.length - 1]!, "bin")
  if (!existsSync(join(bin, "initdb"))) throw new Error(`no initdb in ${bin}: a private PostgreSQL cannot be started`)
  const dir = mkdtempSync(join(tmpdir(), "mesh-core-store-"))
  const asRoot = process.getuid?.() === 0
  const run = (cmd: string, args: Array<string>) =>
    asRoot
      ? execFileSync("runuser", ["-u", "postgres", "--", join(bin, cmd), ...args], { stdio: "pipe" })
      : execFileSync(join(bin, cmd), args, { stdio: "pipe" })
  writeFileSync(join(dir, "pw"), password)
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim())
    const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim())
    chownSync(dir, uid, gid)
    chmodSync(dir, 0o700)
    chownSync(join(dir, "pw"), uid, gid)
  }
  run("initdb", ["-D", join(dir, "data"), "-A", "scram-sha-256", `--pwfile=${join(dir, "pw")}`, "-U", user])
  rmSync(join(dir, "pw"))
  const port = await freePort()
  const data = join(dir, "data")
  const start = () =>
    void run("pg_ctl", [
      "-D",
      data,
      "-o",
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1${options.logical === true ? " -c wal_level=logical" : ""}`,
      "-l",
      join(dir, "log"),
      "-w",
      "start",
    ])
  const signalAll = (signal: NodeJS.Signals) => {
    const postmaster = Number(
      execFileSync("head", ["-1", join(data, "postmaster.pid")])
        .toString()
        .trim(),
    )
    const children = execFileSync("ps", ["-o", "pid=", "--ppid", String(postmaster)])
      .toString()
      .split(/\s+/)
      .filter((s) => s !== "")
      .map(Number)
    for (const pid of [postmaster, ...children]) {
      try {
        process.kill(pid, signal)
      } catch {
        /* gone */
      }
    }
  }
  start()
  const url = `postgres://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`
  return {
    url,
    port,
    dir,
    sql: () => postgres(url, { max: 2, onnotice: () => undefined, connect_timeout: 3 }),
    halt: () => void run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]),
    start,
    freeze: () => signalAll("SIGSTOP"),
    thaw: () => signalAll("SIGCONT"),
    stop: () => {
      try {
        signalAll("SIGCONT")
      } catch {
        /* not running */
      }
      try {
        run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"])
      } catch {
        /* not running */
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
