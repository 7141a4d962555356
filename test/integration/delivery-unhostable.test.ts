// Modules a machine cannot host (issue 9, seed 002's reportUnhostable), over the real NATS and
// PostgreSQL: each machine an engine process of its own; one says in its reports what it detects,
// the controller keeps it with the report, and the next push names the module it cannot host and
// leaves it out of that machine's declaration while the rest of the machine converges.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { allApplied as appliedOn, engineHearing, lastDeclaration, liveMesh } from "../support/mesh-run.ts"
import { eventually, requireServers, runCli } from "../support/servers.ts"

const mesh = liveMesh("unhost")
const { env, names, keyFile, apply } = mesh
const machines = ["hq-1", "hq-2", "hq-3"]

// hq-2 says it detects a disk and nothing else; hq-3 never says what it detects.
const records = (render: boolean) => ({
  mesh: "hq",
  nodes: machines,
  modules: [
    { name: "broker", build: "broker-41", busUsers: true, claims: ["bus"], subscribes: ["mesh.>"] },
    { name: "postgres", build: "postgres-17", needs: ["disk"] },
    { name: "render", build: "render-3", needs: ["gpu"] },
  ],
  assignments: [
    { module: "broker", node: "hq-1" },
    { module: "postgres", node: "hq-2" },
    ...(render
      ? [
          { module: "render", node: "hq-2" },
          { module: "render", node: "hq-3" },
        ]
      : []),
  ],
})

const allApplied = () => appliedOn(mesh.schema, machines)
/** The modules in the last declaration on the bus for a machine. */
const modulesOnTheBus = async (node: string) => {
  const { declaration } = await lastDeclaration(names, node)
  return [...new Set((declaration["resources"] as Array<{ module: string }>).map((r) => r.module))].sort()
}

beforeAll(async () => {
  await requireServers()
  apply(records(false))
  mesh.makeKey()
  await mesh.startSaying(["serve"], "following the machines' reports", 90_000)
  const more: Record<string, Array<string>> = { "hq-2": ["--detects", "disk"] }
  await Promise.all(
    machines.map((node) => {
      const r = mesh.start(["node-engine", "--simulate", node, "--trust-key", keyFile, ...(more[node] ?? [])])
      return engineHearing(node, r)
    }),
  )
}, 240_000)

afterAll(mesh.stop)

describe("a module a machine cannot host is named and left out, over NATS and PostgreSQL (issue 9)", () => {
  it("what a machine says it detects is kept with its report; a module needing what it lacks is named and left out of its declaration while the rest converges; a machine that never said is sent it", async () => {
    const first = runCli(["push"], env)
    expect(first.code, first.err).toBe(0)
    const kept = await eventually("every machine applied", allApplied, 60_000)
    expect(kept.get("hq-2")!["detects"]).toEqual(["disk"])
    expect(kept.get("hq-3")!["detects"]).toBeNull()

    apply(records(true))
    const r = runCli(["push"], env)
    expect(r.code, r.err).toBe(0)
    expect(r.out).toContain(
      "hq-2 not applied — render needs gpu, and hq-2 has no detector for it: it is on the wrong machine — assign it to a machine that has gpu; " +
        "until then the rest of hq-2 converges",
    )
    // Named once, and only for the machine that said it lacks it: hq-3 never said, so it may host it.
    expect(r.out.split("\n").filter((l) => l.includes("wrong machine"))).toHaveLength(1)
    expect(r.out).not.toContain("hq-3 not applied")
    expect(await modulesOnTheBus("hq-2")).toEqual(["postgres"])
    expect(await modulesOnTheBus("hq-3")).toEqual(["render"])
    // The rest of hq-2 converges: it applies what it was sent, and a push --behind finds nothing to do.
    await eventually("every machine applied after the push", allApplied, 60_000)
    const behind = runCli(["push", "--behind"], env)
    expect(behind.code, behind.err).toBe(0)
    expect(behind.out).toContain("every machine is doing what it was told")
  }, 180_000)
})
