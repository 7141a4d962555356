// The bus seat handed over by a person (seed 002's holdings; issue 28), over the real servers: the
// catalogue's first claimer holds the bus and is sent first with the user list; `mesh handover`
// records another with who and when, and from then on the next push sends that machine first with the
// list; a records file applied again without handovers keeps the person's.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { lastDeclaration, liveMesh } from "../support/mesh-run.ts"
import { runCli } from "../support/servers.ts"

const mesh = liveMesh("handover")
const { env, names } = mesh
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

beforeAll(() => mesh.apply(records), 60_000)
afterAll(mesh.stop)

/** The machines a push sent, in the order it sent them. */
const pushed = () => {
  const r = runCli(["push"], env)
  expect(r.code, r.err).toBe(0)
  return [...r.out.matchAll(/^sent (hq-\d)/gm)].map((m) => m[1])
}
const carriesUserList = async (node: string) => "busUsers" in (await lastDeclaration(names, node)).declaration

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
    mesh.apply(records)
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
