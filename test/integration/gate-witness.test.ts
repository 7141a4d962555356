// The gate on what it reads, over the real NATS and PostgreSQL (issue 26): a machine's witness that
// puts a core component back fails that component's gate and raises its condition (seed 003 rules
// 003-4, 003-29, 003-33); reports that cannot be read end each judging, never fail the build at its
// bound (003-3); every verdict kept is the event `verdict`; and the controller's recording of all of
// it replays to the same acts.
import { join } from "node:path"
import { jetstream } from "@nats-io/jetstream"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { canonicalJson } from "@mesh-core/core/json"
import { liveMesh, machinesRunningTheMesh, onStream } from "../support/mesh-run.ts"
import { eventually, queryPostgres, requireNats, requireServers, runCli, type Running } from "../support/servers.ts"
import { replayRecording } from "./replay-recording.ts"

const mesh = liveMesh("gatewitness", {
  // Long enough to settle that no build passes before the test has done what it does to it; a bound
  // short enough that a judging on reports that could not be read would fail the build well within.
  MESH_GATE_SETTLE: "20s",
  MESH_GATE_BOUND: "6s",
  MESH_GATE_EVERY: "1s",
  MESH_GATE_PASSES: "2",
  MESH_GATE_ERROR_LIMIT: "1000",
})
const { schema, env, names, dir, start } = mesh
const recording = join(dir, "controller.jsonl")
let controller: Running

interface PlanRow {
  readonly state: string
  readonly gate: { readonly since: number; readonly verdict: string; readonly why: string } | null
  readonly history: {
    readonly first: ReadonlyArray<{ readonly kind: string; readonly word?: string; readonly why?: string }>
    readonly newest: ReadonlyArray<{ readonly kind: string; readonly word?: string; readonly why?: string }>
  } | null
}
const planRow = (id: string) =>
  queryPostgres(
    async (sql) =>
      (await sql`select state, gate, history from ${sql(schema)}.plans where id = ${id}`)[0] as PlanRow | undefined,
  )
const words = (p: PlanRow | undefined) =>
  p?.history === null || p?.history === undefined
    ? []
    : [...p.history.first, ...p.history.newest].flatMap((e) => (e.kind === "judging" ? [e.word ?? ""] : []))
const verdicts = () =>
  queryPostgres(async (sql) =>
    (await sql`select build, verdict from ${sql(schema)}.gate_verdicts order by recorded_at`).map((r) => ({ ...r })),
  )
const openConditions = () =>
  queryPostgres(async (sql) =>
    (await sql`select key, severity, summary from ${sql(schema)}.conditions where cleared_at is null order by key`).map(
      (r) => ({ ...r }),
    ),
  )
const verdictEvents = async () =>
  (await onStream(names.events, names.eventSubject("verdict"))).map(
    (m) => JSON.parse(m.body) as Record<string, unknown>,
  )

beforeAll(async () => {
  await requireServers()
  mesh.apply({
    mesh: "hq",
    nodes: ["hq-1", "hq-2"],
    modules: [
      {
        name: "broker",
        build: "broker-41",
        busUsers: true,
        claims: ["bus"],
        subscribes: ["mesh.>"],
        commit: "b40c0de111",
      },
      { name: "node-tools", build: "node-tools-6", commit: "0d70010006" },
      { name: "letta", build: "letta-203", publishes: ["letta.>"], commit: "a71c3d09e4" },
    ],
    assignments: [
      { module: "broker", node: "hq-1" },
      { module: "node-tools", node: "hq-2" },
      { module: "letta", node: "hq-2" },
    ],
  })
  mesh.makeKey()
  controller = await mesh.startSaying(["serve", "--record", recording], "judging open plans")
  await machinesRunningTheMesh(start, env, ["hq-1", "hq-2"], mesh.keyFile)
}, 240_000)

afterAll(mesh.stop)

describe("the gate on what it reads, over NATS and PostgreSQL", () => {
  it("reports that cannot be read end each judging, said once: the bound passes without failing the build, which passes once they can be read again", async () => {
    const r = runCli(["release", "letta", "--build", "letta-204", "--commit", "5e1f0c2a9b", "--first", "hq-2"], env)
    expect(r.code, r.err).toBe(0)
    await eventually(
      "judged healthy once",
      async () => (words(await planRow("letta-204")).includes("healthy") ? true : undefined),
      40_000,
    )
    await queryPostgres((sql) => sql`alter table ${sql(schema)}.reports rename to reports_away`)
    try {
      // Judged for longer than the bound on reports that could not be read.
      const p = await eventually(
        "the bound passed with the reports unread",
        async () => {
          const row = await planRow("letta-204")
          const since = row?.gate?.since ?? Number.POSITIVE_INFINITY
          return Date.now() - since > 6_000 + 4_000 && words(row).filter((w) => w === "could-not-ask").length >= 4
            ? row
            : undefined
        },
        60_000,
      )
      expect(p.state).toBe("open")
      expect(p.gate?.verdict).toBe("")
      expect(await verdicts()).toEqual([])
      const history = [...p.history!.first, ...p.history!.newest]
      expect(history.at(-1)).toMatchObject({
        kind: "judging",
        word: "could-not-ask",
        why: expect.stringMatching(/^what the machines reported cannot be read: .*reports.* does not exist/),
      })
      // Said once, not a line per judging.
      const said = controller
        .output()
        .split("\n")
        .filter((l) => l.includes("letta-204: could not ask"))
      expect(said).toHaveLength(1)
    } finally {
      await queryPostgres((sql) => sql`alter table ${sql(schema)}.reports_away rename to reports`)
    }
    const passed = await eventually(
      "passed once the reports can be read",
      async () => {
        const row = await planRow("letta-204")
        return row?.state === "passed" ? row : undefined
      },
      60_000,
    )
    expect(passed.gate?.verdict).toBe("passed")
    expect(await verdicts()).toEqual([{ build: "letta-204", verdict: "passed" }])
    // The verdict kept, said on the bus once, as the gate's.
    expect((await verdictEvents()).filter((e) => e["build"] === "letta-204")).toEqual([
      expect.objectContaining({
        event: "verdict",
        plan: "letta-204",
        verdict: "passed",
        decided: "gate",
        machines: ["hq-2"],
      }),
    ])
  }, 180_000)

  it("a witness's rollback of a core component fails that component's gate there, raises core.<component>.<machine>.<outcome>, and the verdict is said", async () => {
    const r = runCli(
      ["release", "node-tools", "--build", "node-tools-7", "--commit", "7e7e7e7e77", "--first", "hq-2"],
      env,
    )
    expect(r.code, r.err).toBe(0)
    await eventually(
      "judged once",
      async () => (words(await planRow("node-tools-7")).length > 0 ? true : undefined),
      40_000,
    )
    const nc = await requireNats()
    const js = jetstream(nc)
    const at = new Date().toISOString()
    await js.publish(
      names.witnessSubject("hq-2"),
      JSON.stringify({
        machine: "hq-2",
        component: "node-tools",
        outcome: "rolled-back",
        from: "7e7e7e7e77",
        to: "0d70010006",
        at,
        why: "the node tools stopped answering",
      }),
    )
    // A witness on a machine no plan judges: said as its condition all the same.
    await js.publish(
      names.witnessSubject("hq-1"),
      JSON.stringify({
        machine: "hq-1",
        component: "node-engine",
        outcome: "halted",
        from: "e9e9e9e9e9",
        at,
        why: "the build before fails too",
      }),
    )
    await nc.close()
    const failed = await eventually(
      "the gate failed",
      async () => {
        const row = await planRow("node-tools-7")
        return row?.gate?.verdict === "failed" ? row : undefined
      },
      40_000,
    )
    expect(failed.gate?.why).toBe(
      "the witness on hq-2 judged the node-tools 7e7e7e7 and rolled-back: the node tools stopped answering",
    )
    expect(await verdicts()).toContainEqual({ build: "node-tools-7", verdict: "failed" })
    const conditions = await eventually(
      "both witnesses' conditions raised",
      async () => {
        const open = await openConditions()
        return open.some((c) => c["key"] === "core.node-engine.hq-1.halted") ? open : undefined
      },
      30_000,
    )
    expect(conditions).toContainEqual(
      expect.objectContaining({ key: "core.node-tools.hq-2.rolled-back", severity: "urgent" }),
    )
    expect(conditions).toContainEqual({
      key: "core.node-engine.hq-1.halted",
      severity: "urgent",
      summary: `the witness on hq-1 judged the node-engine e9e9e9e not healthy and gave up: the build before it fails too at ${at.replace(/\.\d+Z$/, "Z")}: the build before fails too`,
    })
    expect(
      await queryPostgres(async (sql) =>
        (await sql`select machine, component, outcome from ${sql(schema)}.witness_verdicts order by machine`).map(
          (x) => ({ ...x }),
        ),
      ),
    ).toEqual([
      { machine: "hq-1", component: "node-engine", outcome: "halted" },
      { machine: "hq-2", component: "node-tools", outcome: "rolled-back" },
    ])
    expect((await verdictEvents()).filter((e) => e["build"] === "node-tools-7")).toEqual([
      expect.objectContaining({ verdict: "failed", decided: "gate", component: "node-tools", machines: ["hq-2"] }),
    ])
    expect(controller.output()).toContain(
      "the witness on hq-2 says the node-tools 7e7e7e7 was not healthy, and it rolled-back: the node tools stopped answering",
    )
  }, 120_000)

  it("the controller's recording, witnesses' verdicts among its inputs, replays through the same programs to the same acts, nothing inferred", async () => {
    await controller.stop()
    const replayed = replayRecording(recording)
    expect(replayed.counts).toMatchObject({ inferred: 0, differed: 0, unasked: 0 })
    expect(replayed.facts.filter((f) => f.fact === "witness")).toHaveLength(2)
    expect(replayed.acts.map(canonicalJson)).toEqual(replayed.recordedActs.map(canonicalJson))
  }, 120_000)
})
