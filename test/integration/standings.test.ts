// A provider that says when it keeps failing, and a controller whose status names it, over the
// real NATS and PostgreSQL (hq issue 179). Providers and the controller run as their own processes.
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { goPathEscape, goQueryEscape } from "@mesh-core/core/provisioner/scrub"
import {
  cleanUp,
  databaseUrl,
  eventually,
  natsUrl,
  requirePostgres,
  requireServers,
  runCli,
  type Running,
  startBackendPostgres,
  startCli,
  tapTheBus,
  uniqueNames,
} from "../support/servers.ts"
import { canonicalJson } from "@mesh-core/core/json"
import { inOrderIn, replayRecording } from "./replay-recording.ts"

type Backend = Awaited<ReturnType<typeof startBackendPostgres>>
let backend: Backend
const scratch = mkdtempSync(join(tmpdir(), "mesh-core-standings-"))
const running: Array<Running> = []
const corners: Array<{ prefix: string; schema: string }> = []

beforeAll(async () => {
  await requireServers()
  backend = await startBackendPostgres("backend-root-pw")
}, 60_000)

afterAll(async () => {
  for (const r of running) await r.stop()
  backend?.stop()
  // every stream and bucket a corner's controller and providers made, and its schema
  for (const c of corners) await cleanUp(c.prefix, c.schema)
  rmSync(scratch, { recursive: true, force: true })
})

/** A test's own corner: bus prefix, store schema, an admin role in the backend, consumers and their files. */
const corner = async (what: string, consumerCount = 3) => {
  const { prefix, schema } = uniqueNames(what)
  corners.push({ prefix, schema })
  const env = { NATS_URL: natsUrl, DATABASE_URL: databaseUrl, MESH_BUS_PREFIX: prefix, MESH_STORE_SCHEMA: schema }
  const admin = `${prefix}_admin`
  const adminPassword = `Adm!n/${what}#9`
  const root = backend.admin()
  await root.unsafe(`create role "${admin}" login createrole createdb password '${adminPassword}'`)
  await root.end()
  const dir = join(scratch, what)
  mkdirSync(join(dir, "secrets"), { recursive: true })
  const consumers = Array.from({ length: consumerCount }, (_, i) => ({
    as: `${prefix}_c${i}`,
    node: `hq-${i + 3}`,
    password: `p@ss w/${i}?&=${what}`,
    db: `${prefix}_db${i}`,
  }))
  for (const c of consumers) writeFileSync(join(dir, "secrets", c.as), `${c.password}\n`)
  const receives = join(dir, "contributions.json")
  const writeContributions = (list = consumers) =>
    writeFileSync(
      receives,
      JSON.stringify({
        requirement: "postgres",
        given: list.map((c) => ({
          as: c.as,
          secret: join(dir, "secrets", c.as),
          node: c.node,
          at: c.node,
          values: { name: c.db },
        })),
      }),
    )
  writeContributions()
  // Every controller of a corner records to one file: a restarted one appends (a `started` line).
  const recording = join(dir, "controller.jsonl")
  const controller = () => {
    const r = startCli(["serve", "--record", recording], env)
    running.push(r)
    return r
  }
  const provider = (password: string, ...more: Array<string>) => {
    const r = startCli(
      [
        "provide",
        "postgres",
        "--receives",
        receives,
        "--node",
        "hq-2",
        ...more,
        "--set",
        "every=250ms",
        "--set",
        "failingAfter=2s",
        "--set",
        "sayAgainEvery=3s",
        "--set",
        "verifyEvery=1s",
      ],
      { ...env, PROVIDER_ADMIN_URL: backend.url(password).replace("mesh_admin", admin) },
    )
    running.push(r)
    return r
  }
  const status = () => {
    const r = runCli(["status", "--json"], env)
    return {
      code: r.code,
      json:
        r.out === ""
          ? undefined
          : (JSON.parse(r.out) as { well: boolean; failing: Array<Record<string, unknown>>; conditions?: unknown }),
      err: r.err,
    }
  }
  const rolesInBackend = async () => {
    const sql = backend.admin()
    const rows = await sql`select rolname from pg_roles where rolname like ${`${prefix}_c%`} order by 1`
    await sql.end()
    return rows.map((r) => r["rolname"] as string)
  }
  const fixAdminPassword = async (to: string) => {
    const sql = backend.admin()
    await sql.unsafe(`alter role "${admin}" password '${to}'`)
    await sql.end()
  }
  return {
    recording,
    env,
    consumers,
    adminPassword,
    receives,
    writeContributions,
    controller,
    provider,
    status,
    rolesInBackend,
    fixAdminPassword,
    schema,
  }
}

const following = (r: Running) =>
  eventually("the controller following", () => (r.output().includes("following") ? true : undefined))

describe("standings over NATS and PostgreSQL", () => {
  it("a provider with a wrong admin password fails every consumer; status names each as credentials-rejected until the password is fixed, and no password is ever sent or said", async () => {
    const c = await corner("e2e")
    const tap = await tapTheBus()
    const controller = c.controller()
    await following(controller)
    const provider = c.provider("not-the-admin-password")
    const failing = await eventually("status naming every consumer", () => {
      const s = c.status()
      return s.json?.failing.length === c.consumers.length ? s : undefined
    })
    expect(failing.code).toBe(1)
    expect(failing.json!.well).toBe(false)
    for (const consumer of c.consumers) {
      expect(failing.json!.failing).toContainEqual(
        expect.objectContaining({
          provider: "postgres",
          providerNode: "hq-2",
          consumer: consumer.as,
          consumerNode: consumer.node,
          class: "credentials-rejected",
        }),
      )
    }
    const text = runCli(["status"], c.env)
    expect(text.out).toContain("mesh: NOT WELL — 3 failing standings")
    for (const consumer of c.consumers)
      expect(text.out).toContain(`is failing ${consumer.as} on ${consumer.node}: credentials-rejected since`)
    // One way to see what is wrong (issue 28): `conditions` lists each failing standing, urgent, by standings.
    const conditions = runCli(["conditions"], c.env)
    expect(conditions.code, conditions.err).toBe(0)
    for (const consumer of c.consumers)
      expect(conditions.out).toMatch(
        new RegExp(
          `^standing\\.postgres\\.hq-2\\.${consumer.as}\\.${consumer.node}\\.failing \\(urgent\\) raised \\S+ by standings: postgres on hq-2 is failing ${consumer.as} on ${consumer.node}: credentials-rejected since`,
          "m",
        ),
      )
    expect(failing.json!.conditions).toMatchObject({
      urgent: c.consumers.map(() => expect.objectContaining({ kind: "failing-standing", source: "standings" })),
    })

    await c.fixAdminPassword("not-the-admin-password")
    const well = await eventually("status well again", () => (c.status().code === 0 ? c.status() : undefined))
    expect(well.json).toMatchObject({ well: true, failing: [], setAside: { count: 0 } })
    expect(await c.rolesInBackend()).toEqual(c.consumers.map((x) => x.as).sort())
    await provider.stop()
    await controller.stop()
    tap.close()

    const said = [provider.output(), controller.output(), ...tap.seen].join("\n")
    expect(provider.output()).toContain("FAILING for")
    expect(tap.seen.some((m) => m.includes("credentials-rejected"))).toBe(true)
    for (const consumer of c.consumers) {
      for (const form of [
        consumer.password,
        goQueryEscape(consumer.password),
        goPathEscape(consumer.password),
        encodeURIComponent(consumer.password),
      ]) {
        expect(said).not.toContain(form)
      }
    }
    expect(said).not.toContain("not-the-admin-password")

    // The controller's recording replays through the same programs: the same writes, in order, and
    // the same words, with nothing inferred (issue 8); and it holds no password either.
    const replayed = replayRecording(c.recording)
    expect(replayed.counts).toMatchObject({ inferred: 0, differed: 0, unasked: 0 })
    expect(replayed.acts.filter((a) => a.q === "write-standings").length).toBeGreaterThan(0)
    expect(replayed.acts.map(canonicalJson)).toEqual(replayed.recordedActs.map(canonicalJson))
    expect(inOrderIn(replayed.said, controller.output())).toEqual({ ok: true })
    for (const consumer of c.consumers) expect(readFileSync(c.recording, "utf8")).not.toContain(consumer.password)
  }, 90_000)

  it("a controller stopped while a provider announces finds the standing when it is started again", async () => {
    const c = await corner("down", 1)
    const first = c.controller()
    await following(first)
    await first.stop()
    const provider = c.provider("wrong")
    await eventually("the provider announcing", () => (provider.output().includes("FAILING for") ? true : undefined))
    await new Promise((r) => setTimeout(r, 500))
    expect(c.status().code).not.toBe(1)
    const second = c.controller()
    const s = await eventually("the standing kept", () => (c.status().code === 1 ? c.status() : undefined))
    expect(s.json!.failing[0]).toMatchObject({ consumer: c.consumers[0]!.as, class: "credentials-rejected" })
    await provider.stop()
    await second.stop()
    // One recording of both runs: the second appended after a `started` line, and it replays.
    const replayed = replayRecording(c.recording)
    expect(replayed.counts).toMatchObject({ starts: 1, inferred: 0, differed: 0, unasked: 0 })
    expect(replayed.acts.map(canonicalJson)).toEqual(replayed.recordedActs.map(canonicalJson))
    expect(
      replayed.acts.some(
        (a) =>
          a.q === "write-standings" && a.writes.some((w) => w.consumer === c.consumers[0]!.as && w.state === "failing"),
      ),
    ).toBe(true)
  }, 90_000)

  it("a provider that announced failing and was restarted clears the standing with its first success (first-success)", async () => {
    const c = await corner("restart", 1)
    const controller = c.controller()
    await following(controller)
    const broken = c.provider("wrong")
    await eventually("the standing", () => (c.status().code === 1 ? true : undefined))
    await broken.stop()
    const fixed = c.provider(c.adminPassword)
    await eventually("status well", () => (c.status().code === 0 ? true : undefined))
    const sql = await requirePostgres()
    const [row] = await sql`select state, why from ${sql(c.schema)}.standings`
    await sql.end()
    expect(row).toMatchObject({ state: "recovered", why: "first-success" })
    await fixed.stop()
    await controller.stop()
  }, 60_000)

  it("a contributions file made unreadable mid-run withdraws nothing; read again, it withdraws what it no longer asks for", async () => {
    const c = await corner("unreadable", 2)
    const recording = join(scratch, "unreadable.facts.jsonl")
    const provider = c.provider(c.adminPassword, "--record", recording)
    const all = c.consumers.map((x) => x.as).sort()
    await eventually("every consumer created", async () => ((await c.rolesInBackend()).length === 2 ? true : undefined))
    rmSync(c.receives)
    mkdirSync(c.receives) // a directory where the file was: reading it fails
    await eventually("the provider saying so", () =>
      provider.output().includes("contributions file unreadable") ? true : undefined,
    )
    await new Promise((r) => setTimeout(r, 1_500))
    rmSync(c.receives, { recursive: true })
    writeFileSync(c.receives, '{"given": [')
    await eventually("the provider saying so", () => (provider.output().includes("is not JSON") ? true : undefined))
    await new Promise((r) => setTimeout(r, 1_500))
    expect(await c.rolesInBackend()).toEqual(all)
    expect(provider.output()).not.toContain("withdrawing")
    c.writeContributions(c.consumers.slice(0, 1))
    await eventually("the dropped consumer withdrawn", async () =>
      (await c.rolesInBackend()).length === 1 ? true : undefined,
    )
    expect(provider.output()).toContain("contributions file readable again")
    expect(provider.output()).toContain(
      `${c.consumers[1]!.as}: no longer in ${c.receives}; withdrawing it from the backend`,
    )
    await provider.stop()

    // The recorded facts replay through simulate to the same words the provider said live.
    const live = provider
      .output()
      .split("\n")
      .filter((l) => l.startsWith("[provisioner:postgres] "))
    const replayed = runCli(["simulate", recording, "--json"], c.env)
    expect(replayed.code).toBe(0)
    const decisions = replayed.out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
    const said = decisions.filter((d) => d.kind === "said").map((d) => `[provisioner:postgres] ${d.text}`)
    expect(live.length).toBeGreaterThanOrEqual(4)
    expect(said.slice(0, live.length)).toEqual(live)
    const summary = decisions.at(-1).summary
    expect(summary.inferred).toBeLessThanOrEqual(4) // at most the pass the stop cut short
    expect(summary.unasked).toBe(0)
    for (const consumer of c.consumers) expect(replayed.out).not.toContain(consumer.password)
  }, 60_000)

  it("a held mass withdrawal is an urgent condition naming what releases it: status exits 1 and conditions name it until the provider is run with --allow-mass-withdrawal (issue 40)", async () => {
    const c = await corner("held", 2)
    const controller = c.controller()
    await following(controller)
    const provider = c.provider(c.adminPassword)
    await eventually("every consumer created", async () => ((await c.rolesInBackend()).length === 2 ? true : undefined))
    c.writeContributions([])
    await eventually("the provider holding it", () =>
      provider.output().includes("WITHDRAWAL HELD") ? true : undefined,
    )
    const held = await eventually("status NOT WELL", () => (c.status().code === 1 ? c.status() : undefined))
    expect(held.json!.well).toBe(false)
    const conditions = runCli(["conditions"], c.env)
    expect(conditions.out).toMatch(
      /^withdrawal\.postgres\.hq-2\.held \(urgent\) raised \S+ by standings: postgres on hq-2 holds a mass withdrawal until a person acts, since \S+: WITHDRAWAL HELD: the contributions file would withdraw every consumer \(2 of 2: .*\(provide postgres --allow-mass-withdrawal\)$/m,
    )
    expect(runCli(["status"], c.env).out).toContain("mesh: NOT WELL")
    await provider.stop()
    expect(await c.rolesInBackend()).toHaveLength(2)
    const released = c.provider(c.adminPassword, "--allow-mass-withdrawal")
    await eventually("status well once released", () => (c.status().code === 0 ? true : undefined))
    expect(runCli(["conditions"], c.env).out).not.toContain("withdrawal.postgres.hq-2.held")
    await released.stop()
    await controller.stop()
  }, 90_000)

  it("an announcement the bus does not take is kept and retried: a provider announcing before any controller made the stream is heard once one does", async () => {
    const c = await corner("nostream", 1)
    const provider = c.provider("wrong")
    await eventually("the provider announcing", () => (provider.output().includes("FAILING for") ? true : undefined))
    await eventually("the announcer retrying", () =>
      provider.output().includes("keeping it and trying again") ? true : undefined,
    )
    expect(provider.output()).toContain("create failed, will retry") // and it kept reconciling meanwhile
    const controller = c.controller()
    await eventually("the standing kept", () => (c.status().code === 1 ? true : undefined))
    await provider.stop()
    await controller.stop()
  }, 60_000)
})
