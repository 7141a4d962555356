// The real servers integration tests talk to. A server that does not answer fails the test and
// names its URL; no test passes by skipping.
import { cliPath } from "./cli.ts"
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process"
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { connect, type NatsConnection } from "@nats-io/transport-node"
import postgres from "postgres"
import { prefixed } from "../../shells/src/bus/subjects.ts"
import { migrate } from "../../shells/src/store/postgres.ts"

export const natsUrl = process.env["NATS_URL"] ?? "nats://127.0.0.1:4222"
export const databaseUrl = process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"

export const requireNats = async (): Promise<NatsConnection> => {
  try {
    return await connect({ servers: natsUrl, timeout: 3_000 })
  } catch (e) {
    throw new Error(`NATS at ${natsUrl} is not answering (${(e as Error).message}); start it as .ci/run does`)
  }
}

export const requirePostgres = async (): Promise<postgres.Sql> => {
  const sql = postgres(databaseUrl, { max: 2, onnotice: () => undefined, connect_timeout: 3 })
  try {
    await sql`select 1`
    return sql
  } catch (e) {
    await sql.end({ timeout: 1 })
    throw new Error(`PostgreSQL at ${databaseUrl} is not answering (${(e as Error).message}); start it as .ci/run does`)
  }
}

/** Fails, naming the URL, unless both shared servers answer: what an integration test asks first. */
export const requireServers = async () => {
  await (await requireNats()).close()
  await (await requirePostgres()).end()
}

/** One connection for `f`, closed after it: what a test reads or writes of the store. */
export const queryPostgres = async <A>(f: (sql: postgres.Sql) => Promise<A>): Promise<A> => {
  const sql = await requirePostgres()
  try {
    return await f(sql)
  } finally {
    await sql.end()
  }
}

/** Names no other test run uses: a bus prefix and a store schema. */
export const uniqueNames = (what: string) => {
  const id = `t${process.pid}_${Math.random().toString(36).slice(2, 8)}_${what}`.toLowerCase()
  return { prefix: id, schema: id }
}

export const eventually = async <A>(
  what: string,
  probe: () => Promise<A | undefined> | A | undefined,
  ms = 20_000,
): Promise<A> => {
  const until = Date.now() + ms
  let last: unknown
  for (;;) {
    const began = Date.now()
    try {
      const a = await probe()
      if (a !== undefined) return a
    } catch (e) {
      last = e
    }
    if (Date.now() > until)
      throw new Error(`${what}: not within ${ms}ms${last ? ` (last: ${(last as Error).message})` : ""}`)
    // A probe that starts a CLI takes ~0.6 s of CPU: asked back to back, the suite's waits were a
    // tenth of its CPU on a 2-core machine. Resting as long as the probe took halves that.
    await new Promise((r) => setTimeout(r, Math.max(150, Date.now() - began)))
  }
}

/** Waits until `r` has said `text` (a line of its output): a process started and up to where it is wanted. */
export const saying = (what: string, r: Running, text: string, ms?: number) =>
  eventually(what, () => (r.output().includes(text) ? true : undefined), ms)

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const s = createServer()
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
    s.on("error", reject)
  })

/**
 * A PostgreSQL of the provider's own, the backend it manages: a private cluster with password
 * authentication, so a wrong admin password is refused as it would be in the mesh (the shared
 * server on these machines trusts every local connection).
 */
export const startBackendPostgres = async (adminPassword: string) => {
  const versions = readdirSync("/usr/lib/postgresql").sort()
  const bin = join("/usr/lib/postgresql", versions[versions.length - 1]!, "bin")
  if (!existsSync(join(bin, "initdb"))) throw new Error(`no initdb in ${bin}: the backend PostgreSQL cannot be started`)
  const dir = mkdtempSync(join(tmpdir(), "mesh-core-backend-"))
  const asRoot = process.getuid?.() === 0
  const runAs = (cmd: string, args: Array<string>) =>
    asRoot
      ? execFileSync("runuser", ["-u", "postgres", "--", join(bin, cmd), ...args], { stdio: "pipe" })
      : execFileSync(join(bin, cmd), args, { stdio: "pipe" })
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim())
    const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim())
    chownSync(dir, uid, gid)
    chmodSync(dir, 0o700)
    writeFileSync(join(dir, "pw"), adminPassword)
    chownSync(join(dir, "pw"), uid, gid)
  } else {
    writeFileSync(join(dir, "pw"), adminPassword)
  }
  runAs("initdb", ["-D", join(dir, "data"), "-A", "scram-sha-256", `--pwfile=${join(dir, "pw")}`, "-U", "mesh_admin"])
  const port = await freePort()
  runAs("pg_ctl", [
    "-D",
    join(dir, "data"),
    "-o",
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`,
    "-l",
    join(dir, "log"),
    "-w",
    "start",
  ])
  const url = (password: string) => `postgres://mesh_admin:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`
  return {
    url,
    port,
    admin: () => postgres(url(adminPassword), { max: 1, onnotice: () => undefined }),
    stop: () => {
      try {
        runAs("pg_ctl", ["-D", join(dir, "data"), "-m", "immediate", "-w", "stop"])
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    },
  }
}

const top = join(import.meta.dirname, "../..")
export { cliPath }

export interface Running {
  readonly process: ChildProcess
  readonly output: () => string
  readonly stop: () => Promise<void>
}

/** serve's watch port on a port the system picks, so controllers run side by side (a test or the environment may name one). */
const quietPort = { MESH_METRICS_ADDR: "127.0.0.1:0" }

/** A mesh-controller command running as its own process, its output kept. */
export const startCli = (args: ReadonlyArray<string>, env: Record<string, string>): Running => {
  const child = spawn(process.execPath, [cliPath, ...args], {
    cwd: top,
    env: { ...quietPort, ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  })
  let out = ""
  child.stdout!.on("data", (d) => {
    out += d
  })
  child.stderr!.on("data", (d) => {
    out += d
  })
  const exited = new Promise<void>((r) => child.once("exit", () => r()))
  return {
    process: child,
    output: () => out,
    stop: async () => {
      if (child.exitCode === null) child.kill("SIGTERM")
      await Promise.race([exited, new Promise((r) => setTimeout(r, 8_000))])
      if (child.exitCode === null) child.kill("SIGKILL")
    },
  }
}

export const runCli = (args: ReadonlyArray<string>, env: Record<string, string>) => {
  const r = spawnSync(process.execPath, [cliPath, ...args], {
    cwd: top,
    env: { ...quietPort, ...process.env, ...env },
    encoding: "utf8",
  })
  return { code: r.status, out: r.stdout, err: r.stderr }
}

/** Every message on the bus while it runs, whatever its subject: for what must never be sent. */
export const tapTheBus = async () => {
  const nc = await requireNats()
  const seen: Array<string> = []
  const sub = nc.subscribe(">")
  void (async () => {
    for await (const m of sub) seen.push(`${m.subject} ${m.string()} ${m.headers?.toString() ?? ""}`)
  })()
  return { seen, close: () => nc.close() }
}

/** Removes a test run's streams and buckets (their names carry its prefix) and its schema. */
export const cleanUp = async (prefix: string, schema: string) => {
  const { jetstreamManager } = await import("@nats-io/jetstream")
  const nc = await requireNats()
  const jsm = await jetstreamManager(nc)
  const { upper } = prefixed(prefix)
  for await (const s of jsm.streams.list()) {
    if (s.config.name.startsWith(upper) || s.config.name.startsWith(`KV_${upper}`))
      await jsm.streams.delete(s.config.name).catch(() => false)
  }
  await nc.close()
  await dropSchemas([schema])
}

/**
 * The store's schema migrated into `schema` on the shared PostgreSQL, and a pool of `max` connections
 * whose search path is it: what a test of the store's own writes works in.
 */
export const migratedStore = async (schema: string, max: number) => {
  await queryPostgres((admin) => migrate(admin, schema))
  return postgres(databaseUrl, { max, onnotice: () => undefined, connection: { search_path: schema } })
}

/** Removes test runs' schemas from the shared store, with everything in them. */
export const dropSchemas = (schemas: ReadonlyArray<string>) =>
  queryPostgres(async (sql) => {
    for (const s of schemas) await sql`drop schema if exists ${sql(s)} cascade`
  })

/** An RFC 3339 time with nanoseconds, as the bus stamps messages, as a number of nanoseconds. */
export const nanos = (rfc3339: string): bigint => {
  const m = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?Z$/.exec(rfc3339)
  if (m === null) throw new Error(`not a bus time: ${rfc3339}`)
  return BigInt(Date.parse(`${m[1]}Z`)) * 1_000_000n + BigInt((m[2] ?? "").padEnd(9, "0").slice(0, 9))
}
