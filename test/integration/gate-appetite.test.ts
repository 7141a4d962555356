// The gate's appetite over the real NATS and PostgreSQL (issue 41): five simulated machines stating
// their health every second, `serve`'s gate passes counted by its own /metrics
// (`mesh_loop_duration_seconds_count{loop="gate"}`). Before, every statement woke a pass: 70-283 a
// minute with no plan in flight, 50 in 30 s with one plan open. The bounds are for 30 s (at
// most 2 idle, at most 8 with one plan open, `every` 10 s); measured here over 15 s, they are 1 and 4.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { only, parseExposition } from "../support/exposition.ts"
import { engineHearing, liveMesh, shippedMesh } from "../support/mesh-run.ts"
import { freePort } from "../support/private-servers.ts"
import { eventually, queryPostgres, requireServers, runCli, type Running } from "../support/servers.ts"

const windowMs = 15_000
// Passes enough that the plan stays open, judged every 10 s, through the window.
const mesh = liveMesh("appetite", { MESH_GATE_EVERY: "10s", MESH_GATE_PASSES: "20" })
let serve: Running
let base = ""

const scrape = async () => only(parseExposition(await (await fetch(`${base}/metrics`)).text()).samples, "mesh_")
const gatePasses = async () => (await scrape()).get('mesh_loop_duration_seconds_count{loop="gate"}') ?? 0
/** When the newest statement kept was stated, over every machine (ms). */
const newestStatement = () =>
  queryPostgres(async (sql) =>
    Number(
      (
        await sql`select coalesce(max(extract(epoch from stated_at)), 0)::float8 as t from ${sql(mesh.schema)}.health_statements`
      )[0]?.["t"] ?? 0,
    ),
  )
const passesOver = async (ms: number) => {
  const before = await gatePasses()
  const stated = await newestStatement()
  await new Promise((r) => setTimeout(r, ms)) // the window measured: what the gate does while time passes
  // The machines went on stating all along: a newer statement was kept.
  expect(await newestStatement()).toBeGreaterThan(stated)
  return (await gatePasses()) - before
}

beforeAll(async () => {
  await requireServers()
  mesh.apply(shippedMesh())
  mesh.makeKey()
  const port = await freePort()
  base = `http://127.0.0.1:${port}`
  serve = await mesh.startSaying(["serve", "--metrics-addr", `127.0.0.1:${port}`], "judging open plans")
  const machines = ["hq-1", "hq-2", "hq-3", "hq-4", "hq-5"]
  const engines = machines.map((m) => ({
    m,
    e: mesh.start(["node-engine", "--simulate", m, "--trust-key", mesh.keyFile, "--state-every", "1s"]),
  }))
  for (const { m, e } of engines) await engineHearing(m, e)
  const pushed = runCli(["push"], mesh.env)
  expect(pushed.code, pushed.err).toBe(0)
  // The push's reports are kept (each wakes a pass): what follows starts once they are.
  await eventually("every machine's report of the push kept", async () =>
    (await queryPostgres(
      async (sql) => (await sql`select count(*)::int as n from ${sql(mesh.schema)}.reports`)[0]?.["n"],
    )) >= machines.length
      ? true
      : undefined,
  )
}, 240_000)

afterAll(mesh.stop)

describe("the gate's appetite, live", () => {
  it("with no plan in flight, machines stating every second wake no gate pass", async () => {
    const passes = await passesOver(windowMs)
    expect(passes, serve.output()).toBeLessThanOrEqual(1)
  }, 60_000)

  it("with one plan open (`every` 10 s), its machine stating every second: a pass when one falls due, not one a statement", async () => {
    const r = runCli(
      ["release", "letta", "--build", "letta-205", "--commit", "77aa01b9cd", "--first", "hq-3"],
      mesh.env,
    )
    expect(r.code, r.err).toBe(0)
    const judged = () => {
      const out = runCli(["plans", "show", "letta-205", "--json"], mesh.env).out
      return (out.match(/"kind":"judging"/g) ?? []).length
    }
    await eventually("the plan's first judging", () => (judged() > 0 ? true : undefined), 60_000)
    const before = judged()
    const passes = await passesOver(windowMs)
    expect(passes, serve.output()).toBeLessThanOrEqual(4)
    // The gate went on judging it meanwhile, when its passes fell due: still open, judged again.
    expect(judged()).toBeGreaterThan(before)
    expect(runCli(["plans"], mesh.env).out).toContain("letta letta-205, open")
  }, 120_000)
})
