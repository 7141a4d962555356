// What the controller's fault tests share: `serve` started as its own process against a nats-server
// and a PostgreSQL cluster of the test's own, both with passwords, so every captured byte can be
// searched for them; words published on the bus, and what `status` and the store say of them.
import { jetstream } from "@nats-io/jetstream"
import { headers } from "@nats-io/transport-node"
import { busNames, saidAtHeader } from "../../shells/src/bus/subjects.ts"
import { deliveryNames } from "../../shells/src/bus/delivery-names.ts"
import { leaksOf, rowsOf, tapBus } from "./leaks.ts"
import { startNatsCluster } from "./nats-cluster.ts"
import { type PrivateNats, type PrivatePostgres, startPrivateNats, startPrivatePostgres } from "./private-servers.ts"
import { eventually, runCli, type Running, startCli, uniqueNames } from "./servers.ts"
import { unreachableWord } from "./standing-words.ts"

const natsPassword = "faults-nats-pw-31337"
const storePassword = "faults-store-pw-27182"
/** The private servers' passwords, for a search of bytes the world's own does not read (the soak's files). */
export const serverPasswords = [natsPassword, storePassword] as const

export interface PrivateMesh {
  readonly nats: PrivateNats
  readonly pg: PrivatePostgres
  readonly stop: () => void
}

/** What a controller's world needs of its bus: the URL to give programs, and a connection of the test's own. */
interface WorldBus {
  readonly url: string
  readonly connect: PrivateNats["connect"]
}

/** A store of the mesh's own beside `nats`, both stopped together; `nats` stopped if the store does not start. */
const withStore = async <N extends { readonly stop: () => void }>(nats: N, logical = false) => {
  try {
    const pg = await startPrivatePostgres("mesh_store", storePassword, { logical })
    return {
      nats,
      pg,
      stop: () => {
        nats.stop()
        pg.stop()
      },
    }
  } catch (e) {
    nats.stop()
    throw e
  }
}

export const startPrivateMesh = async (): Promise<PrivateMesh> =>
  withStore(await startPrivateNats({ user: "mesh", password: natsPassword }))

/**
 * The same, its bus a three-node cluster (NATS_URL names every node), as the fault soak runs it; its
 * store decodes its own WAL (wal_level logical), so a slot can read the fence's witness.
 */
export const startPrivateClusterMesh = async () =>
  withStore(await startNatsCluster(3, { user: "mesh", password: natsPassword }), true)

/** One controller's world on the private servers: its own bus prefix and store schema, what it ran and captured. */
export const controllerWorld = async (
  mesh: { readonly nats: WorldBus; readonly pg: PrivatePostgres },
  what: string,
  extraEnv: Record<string, string> = {},
) => {
  const { prefix, schema } = uniqueNames(what)
  const env = {
    NATS_URL: mesh.nats.url,
    DATABASE_URL: mesh.pg.url,
    MESH_BUS_PREFIX: prefix,
    MESH_STORE_SCHEMA: schema,
    MESH_STALE_AFTER: "596h",
    ...extraEnv,
  }
  const names = busNames(prefix)
  const delivery = deliveryNames(prefix)
  const running: Array<Running> = []
  const said: Array<string> = [] // every command's output, for the search
  const tap = await tapBus(mesh.nats.url)
  const start = (args: ReadonlyArray<string>) => {
    const r = startCli(args, env)
    running.push(r)
    return r
  }
  const cli = (args: ReadonlyArray<string>) => {
    const r = runCli(args, env)
    said.push(`$ ${args.join(" ")} (exit ${r.code})\n${r.out}${r.err}`)
    return r
  }
  const status = () => {
    const r = cli(["status", "--json"])
    let json: { well: boolean; failing: Array<{ consumer: string }>; setAside: { count: number } } | undefined
    try {
      json = r.out === "" ? undefined : JSON.parse(r.out)
    } catch {
      json = undefined
    }
    return { code: r.code, json, err: r.err }
  }
  /** `serve`, waited on until it follows the providers' words (the stream then exists). */
  const serve = async (args: ReadonlyArray<string> = []) => {
    const s = start(["serve", ...args])
    const up = await eventually(
      "serve following the providers' words",
      () => (s.output().includes("following") ? "up" : !alive(s) ? "exited" : undefined),
      40_000,
    ).catch((e) => {
      throw new Error(`${e.message}\n${s.output()}`)
    })
    if (up === "exited")
      throw new Error(`serve exited (code ${s.process.exitCode}) before it followed anything:\n${s.output()}`)
    return s
  }
  const publish = async (subject: string, body: string, at?: string) => {
    const nc = await mesh.nats.connect()
    try {
      const h = headers()
      if (at !== undefined) h.set(saidAtHeader, at)
      await jetstream(nc).publish(subject, body, { headers: h, timeout: 5_000 })
    } finally {
      await nc.close()
    }
  }
  /** Failing words for consumers c`from`..c`to-1`, each said at its own millisecond. */
  const failingWords = async (from: number, to: number) => {
    const nc = await mesh.nats.connect()
    try {
      const js = jetstream(nc)
      for (let i = from; i < to; i++) {
        const h = headers()
        h.set(saidAtHeader, new Date(Date.parse("2026-10-05T06:10:00Z") + i).toISOString())
        await js.publish(names.failing, JSON.stringify(failingBody(i)), { headers: h, timeout: 5_000 })
      }
    } finally {
      await nc.close()
    }
  }
  /** How many rows a table of the world's schema holds (a cheap probe; `status` is asked once it is reached). */
  const rows = async (
    table: "standings" | "reports" | "health_statements",
    failingOnly = false,
  ): Promise<number | undefined> => {
    const sql = mesh.pg.sql()
    try {
      const [r] = failingOnly
        ? await sql`select count(*)::int as n from ${sql(schema)}.${sql(table)} where state = 'failing'`
        : await sql`select count(*)::int as n from ${sql(schema)}.${sql(table)}`
      return Number(r!["n"])
    } catch {
      return undefined
    } finally {
      await sql.end({ timeout: 1 })
    }
  }
  /** Waits until status keeps exactly `n` failing; answers that status. */
  const keptFailing = async (n: number, ms = 60_000) => {
    await eventually(
      `the store keeps ${n} failing`,
      async () => ((await rows("standings", true)) === n ? true : undefined),
      ms,
    )
    return eventually(
      `status says ${n} failing`,
      () => {
        const s = status()
        return s.json?.failing.length === n ? s : undefined
      },
      20_000,
    )
  }
  /** Every captured byte searched for every password: outputs, the bus, the store's rows. */
  const leaks = async (more: Record<string, string> = {}, secrets: ReadonlyArray<string> = []) => {
    const sql = mesh.pg.sql()
    let rows = ""
    try {
      rows = await rowsOf(sql, schema)
    } finally {
      await sql.end({ timeout: 1 })
    }
    return leaksOf([natsPassword, storePassword, ...secrets], {
      ...Object.fromEntries(running.map((r, i) => [`process ${i + 1}`, r.output()])),
      commands: said.join("\n"),
      bus: tap.seen.join("\n"),
      store: rows,
      ...more,
    })
  }
  const close = async () => {
    for (const r of running) await r.stop()
    await tap.close()
    const sql = mesh.pg.sql()
    try {
      await sql`drop schema if exists ${sql(schema)} cascade`
    } catch {
      /* the cluster is going anyway */
    } finally {
      await sql.end({ timeout: 1 })
    }
  }
  return {
    prefix,
    schema,
    env,
    names,
    delivery,
    start,
    cli,
    status,
    serve,
    publish,
    failingWords,
    rows,
    keptFailing,
    leaks,
    close,
    tap,
  }
}

export const failingBody = (i: number) => unreachableWord(`c${i}`, i + 1, "2026-10-05T06:00:00Z")

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Whether a process is still running. */
export const alive = (r: Running): boolean => r.process.exitCode === null && r.process.signalCode === null

/**
 * Runs a test in a controller world of its own and then, whether it passed or not, searches every
 * byte it captured for every password and cleans up. Secrets found fail the test; when the test
 * failed already, they are added to its message.
 */
export const inWorld = async <A>(
  mesh: PrivateMesh,
  what: string,
  test: (w: Awaited<ReturnType<typeof controllerWorld>>) => Promise<A>,
  extraEnv: Record<string, string> = {},
): Promise<A> => {
  const w = await controllerWorld(mesh, what, extraEnv)
  let outcome: { ok: true; value: A } | { ok: false; error: unknown }
  try {
    outcome = { ok: true, value: await test(w) }
  } catch (error) {
    outcome = { ok: false, error }
  }
  const found = await w.leaks().catch((e) => [`the search could not be made: ${(e as Error).message}`])
  await w.close()
  secretsFound.push(found.length)
  if (!outcome.ok) {
    const e = outcome.error
    if (found.length > 0 && e instanceof Error) e.message += `\nand secrets found:\n${found.join("\n")}`
    throw e
  }
  if (found.length > 0) throw new Error(`secrets found:\n${found.join("\n")}`)
  return outcome.value
}

/** How many secrets each test's search found, for the counts a run prints. */
const secretsFound: Array<number> = []
