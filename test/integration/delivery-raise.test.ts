// raiseTheBus on the real servers (seeds 002 and 004; issue 28): `serve` started on an empty bus, for
// a catalogue that declares states and logs (one module assigned nowhere), raises every bucket and log
// the catalogue names before any membership exists, keeps and says a state bucket nothing declares
// any more, and says the seed's one line.
import { jetstreamManager } from "@nats-io/jetstream"
import { Kvm } from "@nats-io/kv"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { printableUrl } from "@mesh-core/core/text/connection-url"
import { liveMesh } from "../support/mesh-run.ts"
import { eventually, natsUrl, requireNats, requirePostgres } from "../support/servers.ts"

const mesh = liveMesh("raise")
const { names } = mesh

beforeAll(async () => {
  await (await requirePostgres()).end()
  // A state bucket of this mesh that nothing declares any more, made before the controller starts.
  const nc = await requireNats()
  await new Kvm(nc).create(names.stateBucket("old-sessions"), { history: 1 })
  await (await new Kvm(nc).open(names.stateBucket("old-sessions"))).put("kept", "data")
  await nc.close()
  mesh.apply({
    mesh: "hq",
    nodes: ["hq-1", "hq-2"],
    modules: [
      { name: "broker", build: "broker-41", busUsers: true, claims: ["bus"] },
      { name: "postgres", build: "postgres-17", states: ["postgres-roles"], logs: ["postgres-audit"] },
      // Registered, assigned nowhere: its state and log exist from registration all the same.
      { name: "search", build: "search-2", states: ["search-index", "postgres-roles"], logs: ["search-queries"] },
    ],
    assignments: [
      { module: "broker", node: "hq-1" },
      { module: "postgres", node: "hq-2" },
    ],
  })
}, 60_000)

afterAll(mesh.stop)

describe("raiseTheBus on every start", () => {
  it("every bucket and log the catalogue names, before any membership; the undeclared kept and said; one line", async () => {
    const c = mesh.start(["serve"])
    const line = await eventually(
      "the summary line",
      () =>
        c
          .output()
          .split("\n")
          .find((l) => l.includes("has its streams")),
      90_000,
    )
    // The bus the test was given (NATS_URL), as serve prints it.
    expect(line).toBe(
      `[controller] the bus at ${printableUrl(natsUrl)} has its streams, 2 machine(s) can hear a declaration, 2 bucket(s) of state and 2 log(s)`,
    )
    expect(c.output()).toContain(
      `[controller] the bus holds state nothing declares any more, kept because it is data: ${names.stateBucket("old-sessions")} — removing it is a person's act`,
    )
    const nc = await requireNats()
    try {
      const jsm = await jetstreamManager(nc)
      const held: Array<string> = []
      for await (const n of jsm.streams.names()) held.push(n)
      for (const bucket of [names.memberships, names.stateBucket("postgres-roles"), names.stateBucket("search-index")])
        expect(held, bucket).toContain(`KV_${bucket}`)
      for (const log of ["postgres-audit", "search-queries"]) {
        const info = await jsm.streams.info(names.logStream(log))
        expect(info.config.subjects).toEqual([names.logSubject(log)])
      }
      // Raised before any membership: nothing has been granted yet.
      expect((await jsm.streams.info(`KV_${names.memberships}`)).state.messages).toBe(0)
      // The undeclared one kept, with what it holds.
      const old = await new Kvm(nc).open(names.stateBucket("old-sessions"))
      expect((await old.get("kept"))?.string()).toBe("data")
    } finally {
      await nc.close()
    }
    // Said once for the start: the line comes before the first worker's.
    const out = c.output()
    expect(out.indexOf("has its streams")).toBeLessThan(out.indexOf("[gate] judging open plans"))
    expect(out.split("has its streams").length - 1).toBe(1)
  }, 120_000)
})
