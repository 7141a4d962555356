// Release plans in tiers over the real NATS and PostgreSQL (issue 9): a three-tier release stops at
// the tier whose gate fails and puts back only the machines it reached; a node-engine release whose
// engine never reports the new build fails its gate; a dry run registers nothing and sends nothing
// beyond its own machines; a send of the rest the bus refuses is sent again until it lands, the plan
// `sending` meanwhile; a failed gate puts back what its send carried with the plan's module; a provider
// failing its consumers since the send holds the gate (issue 40). One controller, simulated engines on
// hq-1 to hq-4 (hq-5 has none: it never reports anything).
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { jetstream, jetstreamManager } from "@nats-io/jetstream"
import { headers } from "@nats-io/transport-node"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { busNames, saidAtHeader } from "../../shells/src/bus/subjects.ts"
import { canonicalJson } from "@mesh-core/core/json"
import { buildsOnTheBus, liveMesh, machinesRunningTheMesh, shippedMesh } from "../support/mesh-run.ts"
import { eventually, requireNats, requireServers, runCli, type Running, queryPostgres } from "../support/servers.ts"
import { replayRecording } from "./replay-recording.ts"

const mesh = liveMesh("plans", {
  // A settle long enough that an engine slow to apply (a loaded machine) has said its crash loop
  // before a tier's gate can pass on what it stated before it applied.
  MESH_GATE_SETTLE: "5s",
  MESH_GATE_BOUND: "10s",
  MESH_GATE_EVERY: "1s",
  MESH_GATE_PASSES: "2",
})
const { schema, env, names, dir, start } = mesh
const recording = join(dir, "controller.jsonl")
let controller: Running
const query = queryPostgres
/** The builds of `module` each declaration sent to `machine` carried, in order. */
const buildsSent = (machine: string, module: string) =>
  buildsOnTheBus(names.declarations, names.declareSubject(machine), module)
const planRow = (id: string) =>
  query(async (sql) => (await sql`select state, note, tier from ${sql(schema)}.plans where id = ${id}`)[0])
/** The plan's row once it is in `state`, waited on for up to a minute. */
const planReaching = (id: string, state: string) =>
  eventually(
    `plan ${id} ${state}`,
    async () => {
      const p = await planRow(id)
      return p?.["state"] === state ? p : undefined
    },
    60_000,
  )
const registered = (module: string) =>
  query(async (sql) => {
    const rows = await sql`select records from ${sql(schema)}.mesh_records`
    const records = rows[0]?.["records"] as { modules: Array<{ name: string; build: string }> } | undefined
    return records?.modules.find((m) => m.name === module)?.build
  })

beforeAll(async () => {
  await requireServers()
  // The shipped mesh, with letta on hq-3, hq-4 and hq-5 (three tiers) and the node-engine everywhere.
  const records = shippedMesh()
  records.modules.push(
    { name: "node-engine", build: "node-engine-7", commit: "e7e7e7e7e7" },
    { name: "controller", build: "controller-7", commit: "c7c7c7c7c7" },
  )
  records.assignments.push(
    { module: "letta", node: "hq-5" },
    ...["hq-1", "hq-2", "hq-3", "hq-4", "hq-5"].map((node) => ({ module: "node-engine", node })),
    { module: "controller", node: "hq-5" },
  )
  mesh.apply(records)
  mesh.makeKey()
  controller = await mesh.startSaying(["serve", "--record", recording], "judging open plans")
  await machinesRunningTheMesh(start, env, ["hq-1", "hq-2", "hq-3", "hq-4"], mesh.keyFile, {
    "hq-4": ["--crash-module", "letta@letta-301", "--crash-module", "grafana@grafana-11"],
  })
}, 240_000)

afterAll(mesh.stop)

describe("release plans in tiers over NATS and PostgreSQL", () => {
  it("a three-tier release stops at the tier whose gate fails, puts back only the machines it reached, and never sends the third tier", async () => {
    const before = { hq3: (await buildsSent("hq-3", "letta")).length, hq4: (await buildsSent("hq-4", "letta")).length }
    const r = runCli(
      [
        "release",
        "letta",
        "--build",
        "letta-301",
        "--commit",
        "3013013013",
        "--first",
        "hq-3",
        "--then",
        "hq-4",
        "--then",
        "hq-5",
      ],
      env,
    )
    expect(r.code, r.err).toBe(0)
    expect(r.out).toContain(
      "plan letta-301: letta letta-301 sent to tier 1 (hq-3); the gate judges it there; then, each once the gate passes, tier 2 (hq-4), then tier 3 (hq-5)",
    )
    const failed = await eventually(
      "the plan failed in tier 2",
      async () => {
        const p = await planRow("letta-301")
        return p?.["state"] === "failed" ? p : undefined
      },
      60_000,
    )
    expect(failed["note"]).toMatch(
      /^letta failed its gate in tier 2 on hq-4: .*crash loop.*put back to a71c3d0 \(letta-203\) on hq-3, hq-4/,
    )
    await eventually("hq-3 and hq-4 running letta-203 again", async () =>
      (await buildsSent("hq-3", "letta")).at(-1) === "letta-203" &&
      (await buildsSent("hq-4", "letta")).at(-1) === "letta-203"
        ? true
        : undefined,
    )
    expect((await buildsSent("hq-3", "letta")).slice(before.hq3)).toEqual(["letta-301", "letta-203"])
    expect((await buildsSent("hq-4", "letta")).slice(before.hq4)).toEqual(["letta-301", "letta-203"])
    expect(await buildsSent("hq-5", "letta")).not.toContain("letta-301")
    expect(await registered("letta")).toBe("letta-203")
    // `plans show` (issue 10): every judging of the failed release, tier by tier, the last one its verdict.
    const shown = runCli(["plans", "show", "letta-301"], env)
    expect(shown.code, shown.err).toBe(0)
    expect(shown.out).toMatch(/history \(\d+ entries\):/)
    expect(shown.out).toMatch(/tier 1 +healthy → PASSED/)
    expect(shown.out).toMatch(/tier 2 +(broken|not yet) → FAILED +.*crash loop/)
    const json = JSON.parse(runCli(["plans", "show", "letta-301", "--json"], env).out)
    expect(json).toMatchObject({ id: "letta-301", state: "failed", tiers: [["hq-3"], ["hq-4"], ["hq-5"]], tier: 1 })
    const entries = json.history.entries as Array<{ kind: string; tier: number; decided?: string }>
    expect(entries.every((e) => e.kind === "judging")).toBe(true)
    expect(entries.filter((e) => e.decided !== undefined).map((e) => [e.tier, e.decided])).toEqual([
      [0, "passed"],
      [1, "failed"],
    ])
    expect(runCli(["plans", "show", "letta-999"], env).code).toBe(2)
  }, 120_000)

  it("a node-engine release whose engine never reports the new build fails its gate and is put back there; no other machine is sent it", async () => {
    const r = runCli(
      ["release", "node-engine", "--build", "node-engine-8", "--commit", "e8e8e8e8e8", "--first", "hq-5"],
      env,
    )
    expect(r.code, r.err).toBe(0)
    const failed = await planReaching("node-engine-8", "failed")
    expect(failed["note"]).toMatch(/^node-engine failed its gate on hq-5: /)
    expect(failed["note"]).toContain("put back to e7e7e7e (node-engine-7) on hq-5")
    for (const m of ["hq-1", "hq-2", "hq-3", "hq-4"])
      expect(await buildsSent(m, "node-engine"), m).not.toContain("node-engine-8")
    expect(await registered("node-engine")).toBe("node-engine-7")
  }, 120_000)

  it("a controller build that cannot read the store is not put back: said, marked and raised for a person (issue 352)", async () => {
    // controller-7 ran before the newest migrations: it recorded that it reads the store up to 0004.
    await query((sql) => sql`insert into ${sql(schema)}.schema_reach (build, reach) values ('controller-7', 4)`)
    const before = (await buildsSent("hq-5", "controller")).length
    const r = runCli(
      [
        "release",
        "controller",
        "--build",
        "controller-8",
        "--commit",
        "c8c8c8c8c8",
        "--first",
        "hq-5",
        "--manifest",
        "manifest-c",
        "--artifacts",
        "artifacts-c",
      ],
      env,
    )
    expect(r.code, r.err).toBe(0)
    const failed = await planReaching("controller-8", "failed")
    expect(failed["note"]).toMatch(
      /NOT put back: build controller-7 reads the store's schema up to migration 0004, and the store is at migration \d{4} now: it cannot read the store as it is/,
    )
    // Sent the release and nothing after it: controller-7 is not sent back.
    expect((await buildsSent("hq-5", "controller")).slice(before)).toEqual(["controller-8"])
    expect(await registered("controller")).toBe("controller-8")
    const verdict = await query(
      async (sql) =>
        (await sql`select rollback, why from ${sql(schema)}.gate_verdicts where build = 'controller-8'`)[0],
    )
    expect(verdict?.["rollback"]).toBe("not-rolled-back")
    // Why it was not put back is kept with the verdict (seed 003's notBack).
    expect(verdict?.["why"]).toMatch(/; NOT put back: build controller-7 reads the store's schema up to migration 0004/)
    expect(runCli(["conditions"], env).out).toContain("core.controller.hq-5.rollback-failed")
  }, 120_000)

  it("a send between builds that made the same artifacts from the same manifest changed nothing: its failed gate leaves it as it was, never marked (seed 003's unchangedBy)", async () => {
    const before = (await buildsSent("hq-5", "controller")).length
    const r = runCli(
      [
        "release",
        "controller",
        "--build",
        "controller-9",
        "--commit",
        "c9c9c9c9c9",
        "--first",
        "hq-5",
        "--manifest",
        "manifest-c",
        "--artifacts",
        "artifacts-c",
      ],
      env,
    )
    expect(r.code, r.err).toBe(0)
    const failed = await planReaching("controller-9", "failed")
    expect(failed["note"]).toMatch(
      /controller was left as it was — hq-5 already ran controller c9c9c9c, or a build identical to it, before the send, so nothing of it moved and nothing is put back$/,
    )
    expect((await buildsSent("hq-5", "controller")).slice(before)).toEqual(["controller-9"])
    expect(
      await query(
        async (sql) => (await sql`select 1 from ${sql(schema)}.gate_verdicts where build = 'controller-9'`).length,
      ),
    ).toBe(0)
    const kept = await query(
      async (sql) => (await sql`select manifest, artifacts from ${sql(schema)}.builds where build = 'controller-9'`)[0],
    )
    expect(kept).toEqual({ manifest: "manifest-c", artifacts: "artifacts-c" })
    // One fingerprint without the other is refused before anything is recorded or sent.
    const alone = runCli(
      ["release", "letta", "--build", "letta-499", "--commit", "4994994994", "--first", "hq-3", "--artifacts", "a"],
      env,
    )
    expect(alone.code).toBe(2)
    expect(alone.err + alone.out).toContain("--artifacts without --manifest")
  }, 120_000)

  it("a dry run registers nothing and sends its build to no machine but its own first ones", async () => {
    const sentBefore = Object.fromEntries(
      await Promise.all(["hq-3", "hq-4", "hq-5"].map(async (m) => [m, (await buildsSent(m, "letta")).length] as const)),
    )
    const r = runCli(
      ["release", "letta", "--build", "letta-302", "--commit", "3023023023", "--first", "hq-3", "--dry-run"],
      env,
    )
    expect(r.out + r.err).toContain("dry run")
    expect(r.code, r.err).toBe(0)
    // Its first machine is sent the build unregistered and judged as a real gate would; the plan ends
    // saying what the gate would have decided, and nothing else moves.
    await eventually(
      "hq-3 sent the dry run's build",
      async () => (await buildsSent("hq-3", "letta")).includes("letta-302") || undefined,
      30_000,
    )
    const ended = await eventually(
      "the dry run's plan ended",
      async () => {
        const rows = await query((sql) => sql`select state, note from ${sql(schema)}.plans where build = 'letta-302'`)
        return rows.length === 1 && !["open", "sending", "rolling-back"].includes(String(rows[0]!["state"]))
          ? rows[0]!
          : undefined
      },
      45_000,
    )
    expect(String(ended["note"])).toContain("dry run")
    expect(await registered("letta")).toBe("letta-203")
    for (const m of ["hq-4", "hq-5"])
      expect((await buildsSent(m, "letta")).slice(sentBefore[m]), m).not.toContain("letta-302")
    expect(
      await query(async (sql) => (await sql`select build from ${sql(schema)}.builds where build = 'letta-302'`).length),
    ).toBe(0)
    expect(
      await query(
        async (sql) => (await sql`select build from ${sql(schema)}.gate_verdicts where build = 'letta-302'`).length,
      ),
    ).toBe(0)
  }, 120_000)

  it("a send of the rest that fails (the bus refuses the machines' grants) is sent again until it lands, and the plan is sending meanwhile, never passed", async () => {
    const r = runCli(["release", "letta", "--build", "letta-303", "--commit", "3033033033", "--first", "hq-3"], env)
    expect(r.code, r.err).toBe(0)
    // From now on the memberships bucket takes no value: every machine whose modules need a grant is held back.
    const nc = await requireNats()
    const jsm = await jetstreamManager(nc)
    const bucket = `KV_${names.memberships}`
    await jsm.streams.update(bucket, { max_msg_size: 1 })
    try {
      const sending = await eventually(
        "the plan sending, the rest not sent",
        async () => {
          const p = await planRow("letta-303")
          return p?.["state"] === "sending" && /not sent yet/.test(String(p["note"])) ? p : undefined
        },
        60_000,
      )
      expect(sending["note"]).toMatch(
        /^passed; sending the rest: .*hq-4.* not sent yet \(.*\); sent again in \d+s, \d+ tr(y|ies) so far$/,
      )
      await new Promise((done) => setTimeout(done, 2_500))
      expect((await planRow("letta-303"))?.["state"]).toBe("sending")
      expect(
        await query(
          async (sql) => (await sql`select tries from ${sql(schema)}.plans where id = 'letta-303'`)[0]?.["tries"],
        ),
      ).toBeGreaterThanOrEqual(1)
      expect(await buildsSent("hq-4", "letta")).not.toContain("letta-303")
    } finally {
      await jsm.streams.update(bucket, { max_msg_size: -1 })
      await nc.close()
    }
    const passed = await eventually(
      "the plan passed once the rest landed",
      async () => {
        const p = await planRow("letta-303")
        return p?.["state"] === "passed" ? p : undefined
      },
      60_000,
    )
    expect(passed["note"]).toBe(
      "letta letta-303 passed its gate and every machine of the plan has it (hq-3, hq-4, hq-5)",
    )
    expect((await buildsSent("hq-4", "letta")).at(-1)).toBe("letta-303")
    expect((await buildsSent("hq-5", "letta")).at(-1)).toBe("letta-303")
  }, 150_000)

  it("reports that cannot be read end the judging without failing the build, past its bound; read again, it is judged and passes (seed 003-3)", async () => {
    const rename = (from: string, to: string) =>
      query((sql) => sql.unsafe(`alter table ${schema}.${from} rename to ${to}`))
    // The release's own send reads the reports (what each machine runs): taken away once it is made,
    // before the gate could pass (a settle of 5 s).
    const released = new Date()
    const r = runCli(["release", "letta", "--build", "letta-401", "--commit", "4a4a4a4a4a", "--first", "hq-3"], env)
    expect(r.code, r.err).toBe(0)
    await rename("reports", "reports_away")
    try {
      await eventually(
        "a judging that could not ask",
        () => (runCli(["plans", "show", "letta-401"], env).out.includes("could not ask") ? true : undefined),
        30_000,
      )
      // Past the 10 s bound from the send, and the plan is neither failed nor put back.
      await new Promise((r) => setTimeout(r, 12_000))
      const shown = runCli(["plans", "show", "letta-401"], env).out
      expect(shown).toContain("what the machines reported cannot be read")
      expect(shown).not.toMatch(/not healthy within/)
      expect((await planRow("letta-401"))?.["state"]).toBe("open")
      expect(await registered("letta")).toBe("letta-401")
    } finally {
      await rename("reports_away", "reports")
    }
    // Paused by the controller after the errors in a row, or still judging: resumed, it passes.
    // The report hq-3 made meanwhile is kept once the follower's write is taken again.
    await eventually(
      "hq-3's report kept",
      async () =>
        (
          await query(
            (sql) => sql`select 1 from ${sql(schema)}.reports where node = 'hq-3' and reported_at > ${released}`,
          )
        ).length > 0
          ? true
          : undefined,
      60_000,
    )
    expect(
      runCli(["plans", "resume", "letta-401", "--why", "the reports read again"], { ...env, USER: "ana" }).code,
    ).toBe(0)
    await eventually(
      "the plan passed",
      async () => ((await planRow("letta-401"))?.["state"] === "passed" ? true : undefined),
      60_000,
    )
  }, 120_000)

  it("a module the tier's send carried is judged with it and passes with it; a tier none of whose machines runs the module any more is not judged, and its plan is paused for a person (seed 003-14/15/17)", async () => {
    type Records = {
      modules: Array<{ name: string; build: string }>
      assignments: Array<{ module: string; node: string }>
    }
    const records = async () =>
      (await query(
        async (sql) => (await sql`select records from ${sql(schema)}.mesh_records`)[0]?.["records"],
      )) as Records
    const apply = async (name: string, change: (r: Records) => Records) => {
      writeFileSync(join(dir, name), JSON.stringify(change(await records())))
      const applied = runCli(["mesh", "apply", join(dir, name)], env)
      expect(applied.code, applied.err).toBe(0)
    }
    // grafana's new build registered by a person and pushed nowhere yet: letta's tier send to hq-4,
    // composed from the records, carries it there.
    await apply("grafana-10.json", (r) => ({
      ...r,
      modules: r.modules.map((m) => (m.name === "grafana" ? { ...m, build: "grafana-10" } : m)),
    }))
    const r = runCli(["release", "letta", "--build", "letta-402", "--commit", "4024024024", "--first", "hq-4"], env)
    expect(r.code, r.err).toBe(0)
    expect(r.out).toContain("carried with it and judged with it: grafana grafana-10 on hq-4")
    await eventually(
      "the plan passed",
      async () => ((await planRow("letta-402"))?.["state"] === "passed" ? true : undefined),
      60_000,
    )
    const grafana = await query(
      async (sql) =>
        (
          await sql`select plan, verdict, machines, why from ${sql(schema)}.gate_verdicts where build = 'grafana-10'`
        )[0],
    )
    expect(grafana).toMatchObject({ plan: "letta-402", verdict: "passed", machines: ["hq-4"] })
    expect(String(grafana?.["why"])).toMatch(/^carried with letta letta-402 to hq-4 and judged with it there; passed/)
    // Events move plans (seed 004, ADR 0406 §5): with its passes counted before the settle ran out, the
    // tier became decidable the instant the settle did (5 s after the send), and its verdict was kept
    // within a second of it, in wall-clock time, by serve's woken gate rather than a timer.
    const late = await query(
      async (sql) =>
        (
          await sql`select extract(epoch from recorded_at - judging_from)::float8 as s from ${sql(schema)}.gate_verdicts where build = 'letta-402'`
        )[0]?.["s"],
    )
    expect(Number(late)).toBeGreaterThanOrEqual(5)
    // The target is within 1 s (measured 0.75 s in CI); bounded at 2 s here so a loaded machine does
    // not fail it, where a 40 s timer would be up to 40 s late.
    expect(Number(late)).toBeLessThan(7)
    console.log(
      `letta-402: decidable at the settle (5 s after its send), verdict kept ${(Number(late) - 5).toFixed(3)} s after`,
    )
    expect(controller.output()).toContain("[gate] letta-402: grafana grafana-10 carried with letta letta-402 to hq-4")

    // letta taken off hq-4 while tier 1 is judged: tier 2's send tells hq-4 a declaration without it.
    const two = runCli(
      ["release", "letta", "--build", "letta-403", "--commit", "4034034034", "--first", "hq-3", "--then", "hq-4"],
      env,
    )
    expect(two.code, two.err).toBe(0)
    // Written to the store at once, not by `mesh apply`: under CI's whole suite the command's own start
    // took longer than tier 1's judging (6 s), and tier 2 was composed from the records before it.
    const before = await records()
    const off = {
      ...before,
      assignments: before.assignments.filter((a) => !(a.module === "letta" && a.node === "hq-4")),
    }
    await query((sql) => sql`update ${sql(schema)}.mesh_records set records = ${sql.json(off as never)}`)
    const paused = await eventually(
      "the plan paused by the controller",
      async () => {
        const p = await query(
          async (sql) => (await sql`select state, tier, paused from ${sql(schema)}.plans where id = 'letta-403'`)[0],
        )
        return p?.["paused"] === null || p?.["paused"] === undefined ? undefined : p
      },
      60_000,
    ).catch((e) => {
      throw new Error(
        `${e.message}\n${controller
          .output()
          .split("\n")
          .filter((l) => l.includes("letta-403") || l.includes("[gate]"))
          .slice(-60)
          .join("\n")}`,
      )
    })
    expect(paused).toMatchObject({ state: "open", tier: 1 })
    expect(String((paused["paused"] as { why: string }).why)).toContain(
      "none of tier 2's machines (hq-4) runs letta any more: each was told a declaration without it",
    )
    expect(
      await query(
        async (sql) => (await sql`select 1 from ${sql(schema)}.gate_verdicts where build = 'letta-403'`).length,
      ),
    ).toBe(0)
    // A person decides: aborted, it is put back where it was sent; letta goes back on hq-4.
    expect(
      runCli(["plans", "abort", "letta-403", "--why", "hq-4 no longer runs letta"], { ...env, USER: "ana" }).code,
    ).toBe(0)
    await eventually(
      "the aborted plan ended",
      async () => ((await planRow("letta-403"))?.["state"] === "failed" ? true : undefined),
      60_000,
    )
    await apply("letta-on-hq-4.json", (r) => ({
      ...r,
      assignments: [...r.assignments, { module: "letta", node: "hq-4" }],
    }))
  }, 150_000)

  it("a failed gate of a send that moved two modules puts both back, in the one rollback send, recorded and said; a later push keeps the carried one back (seed 003-15/17, issue 40)", async () => {
    const records = (await query(
      async (sql) => (await sql`select records from ${sql(schema)}.mesh_records`)[0]?.["records"],
    )) as { modules: Array<{ name: string; build: string }> }
    // grafana-11 registered by a person and pushed nowhere: letta's tier send carries it to hq-4, where it crash-loops.
    writeFileSync(
      join(dir, "grafana-11.json"),
      JSON.stringify({
        ...records,
        modules: records.modules.map((m) => (m.name === "grafana" ? { ...m, build: "grafana-11" } : m)),
      }),
    )
    const applied = runCli(["mesh", "apply", join(dir, "grafana-11.json")], env)
    expect(applied.code, applied.err).toBe(0)
    const before = {
      letta: (await buildsSent("hq-4", "letta")).length,
      grafana: (await buildsSent("hq-4", "grafana")).length,
    }
    const r = runCli(["release", "letta", "--build", "letta-404", "--commit", "4044044044", "--first", "hq-4"], env)
    expect(r.code, r.err).toBe(0)
    expect(r.out).toContain("carried with it and judged with it: grafana grafana-11 on hq-4")
    const failed = await planReaching("letta-404", "failed")
    expect(String(failed["note"])).toContain("with what its send carried: grafana grafana-11 → grafana-10 on hq-4")
    // The release's send, then one rollback send carrying both back.
    expect((await buildsSent("hq-4", "letta")).slice(before.letta)).toEqual(["letta-404", "letta-402"])
    expect((await buildsSent("hq-4", "grafana")).slice(before.grafana)).toEqual(["grafana-11", "grafana-10"])
    expect(
      await query(
        async (sql) =>
          (await sql`select plan, verdict, rollback from ${sql(schema)}.gate_verdicts where build = 'grafana-11'`)[0],
      ),
    ).toMatchObject({ plan: "letta-404", verdict: "failed", rollback: "rolled-back" })
    // grafana-11 stays registered (a person's decision), and no push sends it to hq-4 again on its own.
    expect(await registered("grafana")).toBe("grafana-11")
    const pushed = runCli(["push", "hq-4"], env)
    expect(pushed.out).toContain("hq-4: grafana stays at grafana-10, put back by plan letta-404")
    expect((await buildsSent("hq-4", "grafana")).at(-1)).toBe("grafana-10")
  }, 90_000)

  it("a provider that starts failing its consumers after the send holds its gate, which fails at its bound naming the standing; one failing since before the send is no evidence (issue 40, seed 003's judgeHealth)", async () => {
    const word = async (consumer: string, since: string) => {
      const nc = await requireNats()
      const h = headers()
      h.set(saidAtHeader, new Date().toISOString())
      await jetstream(nc).publish(
        busNames(mesh.prefix).failing,
        JSON.stringify({
          attempts: 3,
          class: "credentials-rejected",
          consumer,
          error: "password authentication failed",
          node: "hq-3",
          provider: "postgres",
          "provider-node": "hq-2",
          since,
        }),
        { headers: h, timeout: 5_000 },
      )
      await nc.close()
    }
    const failingNow = async (n: number) =>
      eventually(`${n} failing standings kept`, async () =>
        (await query(
          async (sql) => (await sql`select 1 from ${sql(schema)}.standings where state = 'failing'`).length,
        )) === n
          ? true
          : undefined,
      )
    await word("grafana", new Date(Date.now() - 3_600_000).toISOString())
    await failingNow(1)
    const r = runCli(
      ["release", "postgres", "--build", "postgres-18", "--commit", "1818181818", "--first", "hq-2"],
      env,
    )
    expect(r.code, r.err).toBe(0)
    await word("letta", new Date().toISOString())
    await failingNow(2)
    await planReaching("postgres-18", "failed")
    const shown = runCli(["plans", "show", "postgres-18"], env)
    expect(shown.out).toMatch(
      /not healthy within 10s of its apply: raised since it was sent: standing\.postgres\.hq-2\.letta\.hq-3\.failing — postgres on hq-2 is failing letta on hq-3: credentials-rejected/,
    )
    expect(shown.out).not.toContain("standing.postgres.hq-2.grafana")
    expect(
      await query(
        async (sql) => (await sql`select verdict from ${sql(schema)}.gate_verdicts where build = 'postgres-18'`)[0],
      ),
    ).toMatchObject({ verdict: "failed" })
  }, 90_000)

  it("the controller's recording replays to the same acts with nothing inferred", async () => {
    await controller.stop()
    const replayed = replayRecording(recording)
    expect(replayed.counts).toMatchObject({ inferred: 0, differed: 0, unasked: 0 })
    expect(replayed.acts.map(canonicalJson)).toEqual(replayed.recordedActs.map(canonicalJson))
    expect(replayed.acts.filter((a) => a.q === "send-plan" && a.why === "tier").length).toBeGreaterThanOrEqual(1)
    // Each plan's send was recorded question by question, and replayed over them (issue 25).
    const sends = readFileSync(recording, "utf8")
      .split("\n")
      .filter((l) => l.includes('"fact":"answer"') && l.includes('"q":"send-plan"'))
    expect(sends.filter((l) => l.includes('"exchanges"') && l.includes('"q":"declare"')).length).toBeGreaterThanOrEqual(
      1,
    )
  }, 60_000)
})
