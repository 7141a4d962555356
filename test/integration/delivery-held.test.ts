// What a release plan holds back from every push, the flush after a named push, and `status` as the
// one place a person looks (issue 9), over the real NATS and PostgreSQL: the plans and conditions are
// rows in the store, as `release` and the gate leave them; what each machine was sent is read back
// from the store's record of every send and from the bus.
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Effect, Layer } from "effect"
import { holderList } from "../../shells/src/delivery/push.ts"
import { DeliveryStore } from "../../shells/src/store/delivery.ts"
import { layer as storeLayer } from "../../shells/src/store/postgres.ts"
import { startPrivatePostgres } from "../support/private-servers.ts"
import { buildsOnTheBus, liveMesh } from "../support/mesh-run.ts"
import { databaseUrl, requireServers, runCli, queryPostgres } from "../support/servers.ts"

const mesh = liveMesh("held")
const { schema, env, names, dir, apply } = mesh

// postgres runs on hq-2 and hq-3 and receives for letta on hq-4: a consumer added on hq-4 changes
// both providers' declarations, so a push naming hq-4 leaves them behind as a consequence.
const records = (postgresBuild: string, grafana = false) => ({
  mesh: "hq",
  nodes: ["hq-1", "hq-2", "hq-3", "hq-4"],
  modules: [
    {
      name: "broker",
      build: "broker-41",
      busUsers: true,
      claims: ["bus"],
      subscribes: ["mesh.>"],
      commit: "b40c0de111",
    },
    {
      name: "postgres",
      build: postgresBuild,
      receives: ["postgres"],
      states: ["postgres-roles"],
      commit: postgresBuild === "postgres-17" ? "9a0f17c222" : "77aa01b9cd",
    },
    { name: "letta", build: "letta-203", requires: ["postgres"], commit: "a71c3d09e4" },
    { name: "grafana", build: "grafana-9", requires: ["postgres"], commit: "33c9e2f444" },
  ],
  assignments: [
    { module: "broker", node: "hq-1" },
    { module: "postgres", node: "hq-2" },
    { module: "postgres", node: "hq-3" },
    { module: "letta", node: "hq-4" },
    ...(grafana ? [{ module: "grafana", node: "hq-4" }] : []),
  ],
})

const query = queryPostgres
/** What each machine was last sent, as the store recorded it: its sequence and the builds it carried. */
const sent = () =>
  query(
    async (sql) =>
      new Map(
        (await sql`select node, sequence::float8 as sequence, builds from ${sql(schema)}.sent`).map((r) => [
          r["node"] as string,
          { sequence: r["sequence"] as number, builds: r["builds"] as Record<string, string> },
        ]),
      ),
  )
/** The postgres build in every declaration on the bus for a machine, in the order sent. */
const postgresOnTheBus = (node: string) => buildsOnTheBus(names.declarations, names.declareSubject(node), "postgres")
/** A plan as `release` and the gate keep it: postgres-18 sent to hq-2 and judged there, hq-3 the rest. */
const openPlan = (previousBuild: string | null) =>
  query(
    (sql) => sql`
  insert into ${sql(schema)}.plans (id, module, build, commit, previous, previous_build, machines, rest, sent_at, state, note, tiers, tier, sent)
  values ('postgres-18', 'postgres', 'postgres-18', '77aa01b9cd', '9a0f17c222', ${previousBuild}, ${sql.json(["hq-2"])}, ${sql.json(["hq-3"])},
    now(), 'open', '', ${sql.json([["hq-2"]])}, 0, ${sql.json(["hq-2"])})
  on conflict (id) do update set previous_build = excluded.previous_build, state = 'open', sent = excluded.sent`,
  )
const sentLines = (out: string) =>
  out
    .split("\n")
    .filter((l) => l.startsWith("sent "))
    .sort()

beforeAll(async () => {
  await requireServers()
  apply(records("postgres-17"))
  const all = runCli(["push"], env)
  expect(all.code, all.err).toBe(0)
}, 120_000)

afterAll(mesh.stop)

describe("a plan holds its machines, over NATS and PostgreSQL (issue 9)", () => {
  it("push --behind and push during an open plan leave the machine it has not reached at its build, and say why; the machine it reached is sent the new build", async () => {
    apply(records("postgres-18")) // what `release` registers
    await openPlan("postgres-17")
    const before = await sent()
    const why =
      "hq-3: postgres stays at postgres-17, held by plan postgres-18, gate judging on hq-2; it is sent the new build once that gate passes"

    const behind = runCli(["push", "--behind"], env)
    expect(behind.code, behind.err).toBe(0)
    expect(behind.out).toContain(why)
    // hq-2 is behind (the plan reached it); hq-3 composed with what it runs is not. The machine holding
    // the bus has reported nothing it runs, so it is not known to carry the list: sent first.
    expect(sentLines(behind.out)).toEqual(["sent hq-1 1 resource(s)", "sent hq-2 1 resource(s)"])
    const afterBehind = await sent()
    expect(afterBehind.get("hq-2")!.builds["postgres"]).toBe("postgres-18")
    expect(afterBehind.get("hq-3")).toEqual(before.get("hq-3"))

    const sweep = runCli(["push", "--json"], env)
    expect(sweep.code, sweep.err).toBe(0)
    const json = JSON.parse(sweep.out) as {
      told: Array<{ node: string }>
      held: Array<Record<string, unknown>>
      said: Array<string>
    }
    expect(json.said).toContain(why)
    expect(json.held).toEqual([
      {
        machine: "hq-3",
        module: "postgres",
        plan: "postgres-18",
        build: "postgres-17",
        why: "held by plan postgres-18, gate judging on hq-2",
      },
    ])
    expect(json.told.map((t) => t.node).sort()).toEqual(["hq-1", "hq-2", "hq-3", "hq-4"])
    const afterSweep = await sent()
    expect(afterSweep.get("hq-3")!.builds["postgres"]).toBe("postgres-17")
    expect(afterSweep.get("hq-3")!.sequence).toBeGreaterThan(before.get("hq-3")!.sequence)
    // on the bus: hq-3 was never sent the build under judgement
    expect(await postgresOnTheBus("hq-3")).not.toContain("postgres-18")
    expect((await postgresOnTheBus("hq-2")).at(-1)).toBe("postgres-18")
  }, 150_000)

  it("a named push flushes the machines behind as a consequence of it, except one the plan leaves out, which it names", async () => {
    await openPlan(null) // a first release of the module: nothing earlier to send hq-3 meanwhile
    apply(records("postgres-18", true)) // grafana on hq-4 is a new consumer of both providers
    const before = await sent()
    const r = runCli(["push", "hq-4", "--json"], env)
    expect(r.code, r.err).toBe(0)
    const json = JSON.parse(r.out) as { told: Array<{ node: string }>; flushed: Array<string>; said: Array<string> }
    expect(json.said).toContain("flushing 1 machine(s) behind as a consequence of this push: hq-2")
    expect(json.said).toContain(
      "hq-3 is behind as a consequence of this push and is not flushed: postgres is held by plan postgres-18, gate judging on hq-2, and there is no earlier build of it to send meanwhile",
    )
    expect(json.flushed).toEqual(["hq-2"])
    // The machine holding the bus was sent the list first; the flush does not send it again for not having answered yet.
    expect(json.told.filter((t) => t.node === "hq-1")).toHaveLength(1)
    expect(json.told.map((t) => t.node)).toContain("hq-4")
    const after = await sent()
    expect(after.get("hq-2")!.sequence).toBeGreaterThan(before.get("hq-2")!.sequence)
    expect(after.get("hq-3")).toEqual(before.get("hq-3"))
    expect(await postgresOnTheBus("hq-3")).not.toContain("postgres-18")

    // Once the gate passes, nothing holds it: a push sends hq-3 the new build.
    await query(
      (sql) =>
        sql`update ${sql(schema)}.plans set state = 'passed', sent = ${sql.json(["hq-2", "hq-3"])} where id = 'postgres-18'`,
    )
    const passed = runCli(["push", "hq-3"], env)
    expect(passed.code, passed.err).toBe(0)
    expect(passed.out).not.toContain("held by plan")
    expect((await sent()).get("hq-3")!.builds["postgres"]).toBe("postgres-18")
  }, 150_000)

  it("the machine holding the bus is not sent again once it reports running the list it was sent (seed 004's listBehind)", async () => {
    const holder = (await sent()).get("hq-1")!
    const askGate = () =>
      Effect.runPromise(
        holderList.pipe(Effect.provide(DeliveryStore.layer.pipe(Layer.provide(storeLayer(databaseUrl, schema))))),
      )
    expect(await askGate()).toEqual({ holder: "hq-1", behind: true }) // it has reported nothing it runs
    const digest = await query(
      async (sql) => (await sql`select digest from ${sql(schema)}.sent where node = 'hq-1'`)[0]!["digest"] as string,
    )
    await query(
      (sql) => sql`insert into ${sql(schema)}.reports (node, digest, sequence, outcome, refused, failed, reported_at)
      values ('hq-1', ${digest}, ${holder.sequence}, 'applied', null, '[]', now())
      on conflict (node) do update set digest = excluded.digest, sequence = excluded.sequence, outcome = 'applied', reported_at = now()`,
    )
    const r = runCli(["push", "hq-4"], env)
    expect(r.code, r.err).toBe(0)
    expect(sentLines(r.out)).toEqual(["sent hq-4 2 resource(s)"])
    expect((await sent()).get("hq-1")!.sequence).toBe(holder.sequence)
    expect(await askGate()).toEqual({ holder: "hq-1", behind: false }) // the gate's holder-list asks the same
  }, 150_000)

  it("a named push never sends the machine holding the bus that it leaves while a plan holds its modules, its flush included (seed 002-19, issue 40)", async () => {
    await openPlan("postgres-17") // postgres-18 judged on hq-2: every other machine of postgres stays at postgres-17
    // postgres on hq-1 too: a new user in the bus's list, and hq-1's own postgres held by the plan.
    const withGrafana = records("postgres-18", true)
    apply({ ...withGrafana, assignments: [...withGrafana.assignments, { module: "postgres", node: "hq-1" }] })
    const before = (await sent()).get("hq-1")
    const r = runCli(["push", "hq-4", "--json"], env)
    expect(r.code, r.err).toBe(0)
    const json = JSON.parse(r.out) as { told: Array<{ node: string }>; flushed: Array<string>; said: Array<string> }
    expect(json.said).toContain(
      "hq-1 holds the bus, and the user list it would carry has changed: until it is sent, the bus may refuse what this push's machines were newly granted",
    )
    expect(json.told.map((t) => t.node)).not.toContain("hq-1")
    expect(json.flushed).not.toContain("hq-1")
    expect((await sent()).get("hq-1")).toEqual(before)
    apply(withGrafana)
  }, 150_000)
})

describe("status is the one place a person looks (issue 9)", () => {
  it("names the plans in flight and the machines they hold; an urgent condition open is not well, exit 1, and named", async () => {
    await openPlan("postgres-17")
    const quiet = runCli(["status"], env)
    expect(quiet.code, quiet.out + quiet.err).toBe(0)
    expect(quiet.out).toContain("plan postgres-18: postgres postgres-18, open — gate judging on hq-2")
    expect(quiet.out).toContain("  hq-3: postgres stays at postgres-17, held by plan postgres-18, gate judging on hq-2")

    await query(
      (
        sql,
      ) => sql`insert into ${sql(schema)}.conditions (key, source, scope, subject_id, machine, kind, severity, summary, resolver, raised_at)
      values ('build.postgres.hq-2.rollback-failed', 'DG', 'build', 'postgres.hq-2', 'hq-2', 'rollback-failed', 'urgent',
        'postgres''s build 77aa01b failed its gate on hq-2 and was NOT put back', 'operator', '2026-12-03T10:00:00Z')`,
    )
    const urgent = runCli(["status"], env)
    expect(urgent.code).toBe(1)
    expect(urgent.out.split("\n")[0]).toBe("mesh: NOT WELL — 1 urgent condition open")
    expect(urgent.out).toContain(
      "URGENT build.postgres.hq-2.rollback-failed (for a person), raised 2026-12-03T10:00:00Z by DG: postgres's build 77aa01b failed its gate on hq-2 and was NOT put back",
    )
    const json = JSON.parse(runCli(["status", "--json"], env).out) as {
      well: boolean
      code: number
      conditions: { urgent: Array<{ key: string }> }
      plans: Array<{ id: string }>
      held: Array<{ machine: string }>
    }
    expect(json).toMatchObject({ well: false, code: 1 })
    expect(json.conditions.urgent.map((c) => c.key)).toEqual(["build.postgres.hq-2.rollback-failed"])
    expect(json.plans.map((p) => p.id)).toEqual(["postgres-18"])
    expect(json.held.map((h) => h.machine)).toEqual(["hq-3"])
    await query(
      (sql) =>
        sql`update ${sql(schema)}.conditions set cleared_at = now(), cleared_by = 'test' where key = 'build.postgres.hq-2.rollback-failed'`,
    )

    // A module a machine says is unhealthy is raised as a warning for the gate; status says it urgent.
    await query(
      (
        sql,
      ) => sql`insert into ${sql(schema)}.conditions (key, source, scope, subject_id, machine, kind, severity, summary, raised_at)
      values ('module.letta.hq-4.unhealthy', 'DH', 'module', 'letta.hq-4', 'hq-4', 'unhealthy', 'warning', 'letta on hq-4: oom', '2026-12-03T10:01:00Z')`,
    )
    const unhealthy = runCli(["status"], env)
    expect(unhealthy.code).toBe(1)
    expect(unhealthy.out).toContain(
      "URGENT module.letta.hq-4.unhealthy, raised 2026-12-03T10:01:00Z by DH: letta on hq-4: oom",
    )
    await query(
      (sql) =>
        sql`update ${sql(schema)}.conditions set cleared_at = now(), cleared_by = 'test' where key = 'module.letta.hq-4.unhealthy'`,
    )
    expect(runCli(["status"], env).code).toBe(0)
  }, 150_000)

  it("conditions that cannot be read are not well (exit 1), said with why, and the rest is still shown", async () => {
    await query((sql) => sql`alter table ${sql(schema)}.conditions rename to conditions_away`)
    try {
      const r = runCli(["status"], env)
      expect(r.code).toBe(1)
      expect(r.out.split("\n")[0]).toBe("mesh: NOT WELL — the conditions cannot be read")
      expect(r.out).toMatch(
        /the conditions cannot be read: the store at .* cannot be read: .*conditions.* does not exist/,
      )
      expect(r.out).toContain("plan postgres-18: ")
    } finally {
      await query((sql) => sql`alter table ${sql(schema)}.conditions_away rename to conditions`)
    }
  }, 90_000)

  it("a store that stops answering is exit 3, naming it without its password; a wrong URL likewise", async () => {
    const pg = await startPrivatePostgres("mesh", "s3cret-pw")
    try {
      const privateEnv = { ...env, DATABASE_URL: pg.url }
      const file = join(dir, "private.json")
      writeFileSync(file, JSON.stringify(records("postgres-17")))
      expect(runCli(["mesh", "apply", file], privateEnv).code).toBe(0)
      expect(runCli(["status"], privateEnv).code).toBe(0)
      pg.halt()
      const r = runCli(["status"], privateEnv)
      expect(r.code).toBe(3)
      expect(r.err).toContain(`the store at postgres://mesh:***@127.0.0.1:${pg.port}/postgres cannot be read`)
      expect(r.err + r.out).not.toContain("s3cret-pw")
    } finally {
      pg.stop()
    }
    const wrong = runCli(["status", "--json"], { ...env, DATABASE_URL: "postgres://postgres:hunter2@127.0.0.1:1/test" })
    expect(wrong.code).toBe(3)
    expect(wrong.err).toContain("the store at postgres://postgres:***@127.0.0.1:1/test cannot be read")
  }, 180_000)
})
