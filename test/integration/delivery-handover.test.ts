// The bus seat handed over by a person (seed 002's holdings; issue 28), over the real servers: the
// catalogue's first claimer holds the bus and is sent first with the user list; `mesh handover`
// records another with who and when, and from then on the next push sends that machine first with the
// list; a records file applied again without handovers keeps the person's.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { jetstreamManager } from "@nats-io/jetstream"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { deliveryNames } from "../../shells/src/bus/delivery-names.ts"
import { applyMesh } from "../support/mesh-run.ts"
import { cleanUp, databaseUrl, natsUrl, requireNats, runCli, uniqueNames } from "../support/servers.ts"

const { prefix, schema } = uniqueNames("handover")
const env = { NATS_URL: natsUrl, DATABASE_URL: databaseUrl, MESH_BUS_PREFIX: prefix, MESH_STORE_SCHEMA: schema }
const names = deliveryNames(prefix)
const dir = mkdtempSync(join(tmpdir(), "mesh-core-handover-"))
const records = {
  mesh: "hq",
  nodes: ["hq-1", "hq-2", "hq-3"],
  modules: [
    { name: "broker", build: "broker-41", busUsers: true, claims: ["bus"] },
    // The bus's next module, registered and assigned beside the old one before the seat moves.
    { name: "broker2", build: "broker2-1", busUsers: true },
    { name: "letta", build: "letta-203", publishes: ["letta.>"] },
  ],
  assignments: [
    { module: "broker", node: "hq-1" },
    { module: "broker2", node: "hq-2" },
    { module: "letta", node: "hq-3" },
  ],
}

beforeAll(() => applyMesh(dir, env, records), 60_000)
afterAll(async () => {
  await cleanUp(prefix, schema)
  rmSync(dir, { recursive: true, force: true })
})

/** The machines a push sent, in the order it sent them. */
const pushed = () => {
  const r = runCli(["push"], env)
  expect(r.code, r.err).toBe(0)
  return [...r.out.matchAll(/^sent (hq-\d)/gm)].map((m) => m[1])
}
const carriesUserList = async (node: string) => {
  const nc = await requireNats()
  try {
    const m = await (await jetstreamManager(nc)).streams.getMessage(names.declarations, {
      last_by_subj: names.declareSubject(node),
    })
    return "busUsers" in JSON.parse(JSON.parse(m!.string()).body)
  } finally {
    await nc.close()
  }
}

describe("mesh handover", () => {
  it("moves the machine sent first, with the user list, and is kept across a later apply", async () => {
    expect(pushed()[0]).toBe("hq-1")
    expect(await carriesUserList("hq-1")).toBe(true)
    expect(await carriesUserList("hq-2")).toBe(false)

    const h = runCli(["mesh", "handover", "broker2", "--as", "ana"], env)
    expect(h.code, h.err).toBe(0)
    expect(h.out).toMatch(
      /^the bus is held by broker2 on hq-2 from \d{4}-\d\d-\d\dT[\d:.]+Z, handed over by ana; the next push sends hq-2 first, with the bus's user list\n$/,
    )
    expect(pushed()[0]).toBe("hq-2")
    expect(await carriesUserList("hq-2")).toBe(true)
    expect(await carriesUserList("hq-1")).toBe(false)

    // The same file applied again, without handovers: the person's stays.
    applyMesh(dir, env, records)
    expect(pushed()[0]).toBe("hq-2")
  }, 120_000)

  it("refuses a module the records do not have, one that runs no bus, and a handover nobody gave, exit 2", () => {
    const none = runCli(["mesh", "handover", "broker9", "--as", "ana"], env)
    expect(none.code).toBe(2)
    expect(none.err).toContain("no module named broker9 is in the mesh's records")
    // issue 43: a module that runs no bus is not handed it
    const letta = runCli(["mesh", "handover", "letta", "--as", "ana"], env)
    expect(letta.code).toBe(2)
    expect(letta.err).toBe("letta claims no bus seat and carries no bus user list (busUsers): it runs no bus to hold\n")
    const nobody = runCli(["mesh", "handover", "broker", "--as", ""], env)
    expect(nobody.code).toBe(2)
    expect(nobody.err).toContain("--as: give who acts")
  })
})
