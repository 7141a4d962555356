// What the integration tests of a running mesh share: records applied through the CLI, simulated
// machines started and heard, and what the bus kept of the declarations each machine was sent.
import { rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { jetstreamManager } from "@nats-io/jetstream"
import { expect } from "vitest"
import { epochHeader } from "../../shells/src/bus/subjects.ts"
import { cleanUp, eventually, requireNats, runCli, type Running } from "./servers.ts"

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
export const stopAndCleanUp = async (running: ReadonlyArray<Running>, prefix: string, schema: string, dir: string) => {
  for (const r of running) await r.stop()
  await cleanUp(prefix, schema)
  rmSync(dir, { recursive: true, force: true })
}
