// push against a mesh of simulated machines, over the real NATS and PostgreSQL: each machine an
// engine process of its own that verifies, applies and reports.
import { generateKeyPairSync, sign } from "node:crypto"
import { jetstream, jetstreamManager } from "@nats-io/jetstream"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  allApplied as appliedOn,
  engineHearing,
  lastOnStream as onTheBus,
  liveMesh,
  reportsKept,
  shippedMesh,
} from "../support/mesh-run.ts"
import { eventually, nanos, requireNats, requireServers, runCli, type Running } from "../support/servers.ts"

const mesh = liveMesh("push")
const { schema, env, names, keyFile, apply } = mesh
const machines = ["hq-1", "hq-2", "hq-3", "hq-4", "hq-5"]
const base = shippedMesh()
const engines = new Map<string, Running>()

const withModule = (records: typeof base, name: string, change: Record<string, unknown>) => ({
  ...records,
  modules: records.modules.map((m: { name: string }) => (m.name === name ? { ...m, ...change } : m)),
})
const startEngine = (node: string, ...more: Array<string>) => {
  const r = mesh.start(["node-engine", "--simulate", node, "--trust-key", keyFile, ...more])
  engines.set(node, r)
  return engineHearing(node, r)
}
const reports = () => reportsKept(schema)
const allApplied = (nodes = machines) => appliedOn(schema, nodes)

beforeAll(async () => {
  await requireServers()
  apply(base)
  mesh.makeKey()
  await mesh.startSaying(["serve"], "following the machines' reports", 90_000)
  // started together: on a loaded machine each takes seconds to start
  await Promise.all(machines.map((m) => startEngine(m)))
}, 240_000)

afterAll(mesh.stop)

describe("push against five simulated machines", () => {
  it("a whole-mesh push sends every machine, the one holding the bus first, and every machine applies what it was sent", async () => {
    const r = runCli(["push"], env)
    expect(r.code, r.err).toBe(0)
    const lines = r.out.split("\n").filter((l) => l.startsWith("sent ") || l.includes("membership"))
    expect(lines[0]).toBe("sent hq-1 1 resource(s)")
    expect(lines[1]).toBe("  issued 6 membership(s)") // letta runs on hq-3 and hq-4
    expect(lines.slice(2).sort()).toEqual([
      "sent hq-2 1 resource(s)",
      "sent hq-3 1 resource(s)",
      "sent hq-4 2 resource(s)",
      "sent hq-5 1 resource(s)",
    ])
    expect(r.out).toContain("5 node(s) told")
    expect(r.out).toContain("hq-5: 1 unmet seat dependenc(ies) — see `status`")
    await eventually("every machine applied", () => allApplied())
    expect(runCli(["push", "--behind"], env).out).toContain("every machine is doing what it was told")
  }, 60_000)

  it("after a module gains a new permission, a push naming its machine sends the holder first and the grant before the machine's declaration, as the bus received them", async () => {
    apply(withModule(base, "postgres", { build: "postgres-18", states: ["postgres-roles", "postgres-grants"] }))
    const r = runCli(["push", "hq-2", "--wait", "10s"], env)
    expect(r.code, r.err).toBe(0)
    expect(r.out.split("\n").filter((l) => l.startsWith("sent ") || l.includes("membership"))).toEqual([
      "sent hq-1 1 resource(s)",
      "  issued 2 membership(s)",
      "sent hq-2 1 resource(s)",
    ])
    expect(r.out).toContain("hq-2 applied it")
    const holder = await onTheBus(names.declarations, names.declareSubject("hq-1"))
    const grant = await onTheBus(`KV_${names.memberships}`, `$KV.${names.memberships}.hq-2.postgres`)
    const declared = await onTheBus(names.declarations, names.declareSubject("hq-2"))
    expect(nanos(holder.timestamp) < nanos(grant.timestamp)).toBe(true)
    expect(nanos(grant.timestamp) < nanos(declared.timestamp)).toBe(true)
    expect(JSON.parse(grant.string()).states).toEqual(["postgres-grants", "postgres-roles"])
    const users = JSON.parse(JSON.parse(holder.string()).body).busUsers as Array<{
      user: string
      publish: Array<string>
    }>
    const postgres = users.find((u) => u.user === "postgres@hq-2")!
    expect(postgres.publish).toEqual(
      expect.arrayContaining(["$KV.postgres-grants.>", "provisioner.failing", "provisioner.recovered"]),
    )
    const nc = await requireNats()
    const buckets: Array<string> = []
    for await (const s of (await jetstreamManager(nc)).streams.list()) buckets.push(s.config.name)
    await nc.close()
    expect(buckets).toContain(`KV_${names.stateBucket("postgres-grants")}`)
    apply(base)
    expect(runCli(["push"], env).code).toBe(0)
    await eventually("every machine applied again", () => allApplied())
  }, 60_000)

  it("a forged declaration and a replayed older one are refused by the engine", async () => {
    const nc = await requireNats()
    const js = jetstream(nc)
    const first = await (await jetstreamManager(nc)).streams.getMessage(names.declarations, {
      last_by_subj: names.declareSubject("hq-3"),
    })
    const genuine = JSON.parse(first!.string()) as { body: string; signature: string }
    const newer = JSON.parse(genuine.body) as { sequence: number }
    // forged: a well-formed declaration with a higher sequence, signed by a key that is not the controller's
    const { privateKey } = generateKeyPairSync("ed25519")
    const forgedBody = JSON.stringify({
      ...newer,
      sequence: newer.sequence + 100,
      resources: [{ module: "miner", build: "x", config: {}, receives: {} }],
    })
    await js.publish(
      names.declareSubject("hq-3"),
      JSON.stringify({
        body: forgedBody,
        signature: sign(null, Buffer.from(forgedBody), privateKey).toString("base64"),
        key: "x",
      }),
    )
    const forged = await eventually("the forged one refused", async () => {
      const r = (await reports()).get("hq-3")
      return r?.["outcome"] === "refused" ? r : undefined
    })
    expect(forged["refused"]).toContain("the signature does not verify")
    // replayed: a genuine, signed declaration older than the one applied
    expect(runCli(["push", "hq-3", "--wait", "10s"], env).code).toBe(0)
    await js.publish(names.declareSubject("hq-3"), JSON.stringify(genuine))
    const replayed = await eventually("the replayed one refused", async () => {
      const r = (await reports()).get("hq-3")
      return r?.["outcome"] === "refused" ? r : undefined
    })
    expect(replayed["refused"]).toMatch(
      /sequence \d+ is lower than \d+, the last applied: an older declaration replayed/,
    )
    await nc.close()
    expect(engines.get("hq-3")!.output()).not.toContain("applied sequence " + (newer.sequence + 100))
    expect(runCli(["push", "hq-3", "--wait", "10s"], env).code).toBe(0)
  }, 60_000)

  it("push --behind after one machine failed sends only it", async () => {
    await engines.get("hq-4")!.stop()
    await startEngine("hq-4", "--fail-module", "grafana")
    apply(withModule(base, "grafana", { build: "grafana-10" }))
    const all = runCli(["push", "hq-4", "--wait", "10s"], env)
    expect(all.code).toBe(1)
    expect(all.err).toContain("hq-4 applied what it was sent but 1 resource(s) failed")
    await engines.get("hq-4")!.stop()
    await startEngine("hq-4")
    const behind = runCli(["push", "--behind"], env)
    expect(behind.code, behind.err).toBe(0)
    expect(behind.out.split("\n").filter((l) => l.startsWith("sent "))).toEqual(["sent hq-4 2 resource(s)"])
    expect(behind.out).toContain("1 node(s) told")
    await eventually("hq-4 applied", () => allApplied(["hq-4"]))
    expect(runCli(["push", "--behind"], env).out).toContain("every machine is doing what it was told")
  }, 150_000) // two engine restarts and five commands: on a loaded machine each takes seconds

  it("says the seed's words for arguments it cannot take", () => {
    expect(runCli(["push", "hq-1", "--behind"], env)).toMatchObject({
      code: 2,
      err: expect.stringContaining("push <node> or push --behind, not both"),
    })
    expect(runCli(["push", "hq-9"], env)).toMatchObject({
      code: 2,
      err: expect.stringContaining("no machine named hq-9"),
    })
    expect(runCli(["declare", "hq-9", keyFile], env)).toMatchObject({ code: 2 })
  })
})
