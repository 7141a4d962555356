// What the integration tests of a running mesh share: records applied through the CLI, simulated
// machines started and heard, and what the bus kept of the declarations each machine was sent.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { jetstreamManager } from "@nats-io/jetstream"
import { expect } from "vitest"
import { deliveryNames } from "../../shells/src/bus/delivery-names.ts"
import { epochHeader } from "../../shells/src/bus/subjects.ts"
import {
  cleanUp,
  databaseUrl,
  eventually,
  natsUrl,
  queryPostgres,
  requireNats,
  runCli,
  type Running,
  saying,
  startCli,
  uniqueNames,
} from "./servers.ts"

/** Gives the mesh these records (`mesh apply`), through a file in `dir`; fails the test if refused. */
export const applyMesh = (dir: string, env: Record<string, string>, records: unknown) => {
  const file = join(dir, `mesh-${Math.random().toString(36).slice(2)}.json`)
  writeFileSync(file, JSON.stringify(records))
  const out = runCli(["mesh", "apply", file], env)
  expect(out.code, out.err).toBe(0)
}

/** A simulated machine started (`node-engine --simulate`), once it says it hears its declarations. */
export const engineHearing = (machine: string, engine: Running) =>
  eventually(`engine ${machine} hearing`, () => (engine.output().includes("hearing") ? engine : undefined), 90_000)

export interface OnTheBus {
  readonly seq: number
  readonly body: string
  /** The controller lease's epoch it carries (`Mesh-Epoch`), if any. */
  readonly epoch: string | undefined
}

/** Every message a stream keeps on `subject`, in the order the bus took them. */
export const onStream = async (stream: string, subject: string): Promise<Array<OnTheBus>> => {
  const nc = await requireNats()
  try {
    const jsm = await jetstreamManager(nc)
    const out: Array<OnTheBus> = []
    const info = await jsm.streams.info(stream).catch(() => undefined)
    for (let seq = info?.state.first_seq ?? 1; info !== undefined && seq <= info.state.last_seq; seq++) {
      const m = await jsm.streams.getMessage(stream, { seq }).catch(() => undefined)
      if (m !== undefined && m !== null && m.subject === subject)
        out.push({ seq, body: m.string(), epoch: m.header?.get(epochHeader) || undefined })
    }
    return out
  } finally {
    await nc.close()
  }
}

/** The last message a stream keeps on `subject`; fails the test when it keeps none. */
export const lastOnStream = async (stream: string, subject: string) => {
  const nc = await requireNats()
  try {
    const m = await (await jetstreamManager(nc)).streams.getMessage(stream, { last_by_subj: subject })
    if (m === null) throw new Error(`${stream} keeps nothing on ${subject}`)
    return m
  } finally {
    await nc.close()
  }
}

/** The last declaration sent to `machine` as the bus keeps it: the signed envelope, and the declaration inside. */
export const lastDeclaration = async (names: ReturnType<typeof deliveryNames>, machine: string) => {
  const envelope = (await lastOnStream(names.declarations, names.declareSubject(machine))).string()
  return { envelope, declaration: JSON.parse(JSON.parse(envelope).body) as Record<string, unknown> }
}

/** Each machine's last report as the store keeps it, by machine. */
export const reportsKept = (schema: string) =>
  queryPostgres(
    async (sql) => new Map((await sql`select * from ${sql(schema)}.reports`).map((r) => [r["node"] as string, r])),
  )

/**
 * The reports kept, once each of `machines` has applied what it was last sent (its report's digest
 * the one the store recorded sending it); until then undefined, for `eventually`.
 */
export const allApplied = async (schema: string, machines: ReadonlyArray<string>) => {
  const reports = await reportsKept(schema)
  const sent = await queryPostgres(
    async (sql) =>
      new Map((await sql`select node, digest from ${sql(schema)}.sent`).map((r) => [r["node"] as string, r["digest"]])),
  )
  return machines.every((n) => reports.get(n)?.["outcome"] === "applied" && reports.get(n)?.["digest"] === sent.get(n))
    ? reports
    : undefined
}

/** The declaration inside a signed envelope as the bus kept it. */
export const declarationIn = (m: OnTheBus) =>
  JSON.parse(JSON.parse(m.body).body) as {
    readonly sequence: number
    readonly resources: ReadonlyArray<{ readonly module: string; readonly build: string }>
  }

/** The build of `module` each declaration sent on `subject` carried, in the order sent. */
export const buildsOnTheBus = async (stream: string, subject: string, module: string) =>
  (await onStream(stream, subject)).map((m) => declarationIn(m).resources.find((r) => r.module === module)?.build)

/**
 * Simulated machines started with `start` (each stating its health every 500 ms, trusting the
 * controller's key), each heard; then a whole-mesh push, so each runs what the records say.
 */
export const machinesRunningTheMesh = async (
  start: (args: Array<string>) => Running,
  env: Record<string, string>,
  machines: ReadonlyArray<string>,
  keyFile: string,
  more: Readonly<Record<string, ReadonlyArray<string>>> = {},
) => {
  const engines = machines.map((m) => ({
    m,
    e: start(["node-engine", "--simulate", m, "--trust-key", keyFile, "--state-every", "500ms", ...(more[m] ?? [])]),
  }))
  for (const { m, e } of engines) await engineHearing(m, e)
  const pushed = runCli(["push"], env)
  expect(pushed.code, pushed.err).toBe(0)
}

/** Stops what a test started, then removes its streams, buckets, schema and files. */
const stopAndCleanUp = async (running: ReadonlyArray<Running>, prefix: string, schema: string, dir: string) => {
  for (const r of running) await r.stop()
  await cleanUp(prefix, schema)
  rmSync(dir, { recursive: true, force: true })
}

/** The shipped example's records (examples/mesh.json), a copy of the test's own to change. */
export const shippedMesh = () => JSON.parse(readFileSync(join(import.meta.dirname, "../../examples/mesh.json"), "utf8"))

/**
 * A test's own mesh on the shared servers: a bus prefix and store schema no other run uses, the
 * settings every command of it runs with (`settings` added), a scratch folder, and every process it
 * starts, all stopped and removed by `stop`.
 */
export const liveMesh = (what: string, settings: Readonly<Record<string, string>> = {}) => {
  const { prefix, schema } = uniqueNames(what)
  const env: Record<string, string> = {
    NATS_URL: natsUrl,
    DATABASE_URL: databaseUrl,
    MESH_BUS_PREFIX: prefix,
    MESH_STORE_SCHEMA: schema,
    ...settings,
  }
  const dir = mkdtempSync(join(tmpdir(), `mesh-core-${what}-`))
  const running: Array<Running> = []
  /** Where the controller's signing key is kept for the machines to trust (see `makeKey`). */
  const keyFile = join(dir, "key.pem")
  /** A command of this mesh as its own process, stopped with the mesh. */
  const start = (args: ReadonlyArray<string>) => {
    const r = startCli(args, env)
    running.push(r)
    return r
  }
  return {
    prefix,
    schema,
    env,
    dir,
    keyFile,
    names: deliveryNames(prefix),
    running,
    start,
    /** The controller's signing key (`identity`) written to `keyFile`; fails the test if refused. */
    makeKey: () => {
      const id = runCli(["identity"], env)
      expect(id.code, id.err).toBe(0)
      writeFileSync(keyFile, id.out)
    },
    /** A command of this mesh as its own process, once it has said `text` (it is up to where it is wanted). */
    startSaying: async (args: ReadonlyArray<string>, text: string, ms = 60_000) => {
      const r = start(args)
      await saying(`${args.join(" ")} saying ${JSON.stringify(text)}`, r, text, ms)
      return r
    },
    apply: (records: unknown) => applyMesh(dir, env, records),
    stop: () => stopAndCleanUp(running, prefix, schema, dir),
  }
}
