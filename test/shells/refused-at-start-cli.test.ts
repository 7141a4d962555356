// Nothing nonsense is accepted, and no secret printed, as a newcomer meets it (issue 27): a setting,
// flag or connection URL that cannot be right is refused before the store or the bus is opened, with
// the part that is wrong named, exit 2, no stack trace, and no spelling of a password anywhere in
// what the command printed. The store and bus named here are closed ports: a command that opened
// either before refusing would end "unreachable" (exit 3), not 2.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { runCli } from "../support/servers.ts"

const secret = "Hunter2-Secret"
const dir = mkdtempSync(join(tmpdir(), "mesh-core-urls-"))
const receives = join(dir, "contributions.json")
writeFileSync(receives, JSON.stringify({ given: [] }))

const printed = (r: { out: string; err: string }) => `${r.out}\n${r.err}`
const noSecret = (text: string) => {
  for (const f of [secret, encodeURIComponent(secret), "Secret"]) expect(text).not.toContain(f)
  expect(text).not.toMatch(/\n\s+at /)
}

describe("a connection URL that does not read", () => {
  const shapes: ReadonlyArray<readonly [string, string]> = [
    [`postgres://admin:${secret}/x@db/mesh`, "raw '/', '?' or '#'"],
    [`postgres://admin:${secret}#x@db/mesh`, "raw '/', '?' or '#'"],
    [`postgres://admin:${secret}%zz@db/mesh`, "'%' not followed by two hex digits"],
    [`admin:${secret}@db/mesh`, "has no scheme"],
    [`postgres://admin:${secret}@/mesh`, "names no host"],
  ]

  it("PROVIDER_ADMIN_URL: `provide postgres` refuses it naming the part, exit 2, and prints no password", () => {
    for (const [url, part] of shapes) {
      const r = runCli(["provide", "postgres", "--receives", receives, "--node", "hq-1"], {
        PROVIDER_ADMIN_URL: url,
      })
      expect(r.code, printed(r)).toBe(2)
      expect(printed(r)).toContain(`PROVIDER_ADMIN_URL: `)
      expect(printed(r)).toContain(part)
      noSecret(printed(r))
    }
  })

  it("DATABASE_URL and NATS_URL: refused before the store or the bus is opened, exit 2, no password", () => {
    const status = runCli(["status"], { DATABASE_URL: `postgres://admin:${secret}/x@db/mesh` })
    expect(status.code, printed(status)).toBe(2)
    expect(printed(status)).toContain("DATABASE_URL: the user or password holds a raw '/', '?' or '#'")
    noSecret(printed(status))
    const plans = runCli(["plans"], { NATS_URL: `nats://bus:${secret}@bus:99999` })
    expect(plans.code, printed(plans)).toBe(2)
    expect(printed(plans)).toContain("NATS_URL: its port is not a number from 1 to 65535")
    noSecret(printed(plans))
    // A cluster's servers: the one that does not read is named, and no server's password is printed.
    const cluster = runCli(["status"], {
      NATS_URL: `nats://bus:${secret}@bus-1:4222,nats://bus:${secret}/x@bus-2:4222`,
    })
    expect(cluster.code, printed(cluster)).toBe(2)
    expect(printed(cluster)).toContain("NATS_URL (server 2 of 2): the user or password holds a raw '/', '?' or '#'")
    noSecret(printed(cluster))
  })
})

describe("settings and flags that cannot be right", () => {
  const closed = { DATABASE_URL: "postgres://postgres@127.0.0.1:1/test", NATS_URL: "nats://127.0.0.1:1" }
  const refused = (args: ReadonlyArray<string>, env: Record<string, string>, said: string) => {
    const r = runCli(args, { ...closed, ...env })
    expect(r.code, printed(r)).toBe(2)
    expect(printed(r)).toContain(said)
    expect(printed(r)).not.toMatch(/\n\s+at /)
    return r
  }

  it("serve: --batch below 1, and a lease no timer can hold", () => {
    refused(["serve", "--batch", "-5"], {}, "--batch -5: give a whole number of words from 1 to 100000")
    const lease = refused(["serve"], { MESH_LEASE_DURATION: "99999999999h" }, "MESH_LEASE_DURATION")
    expect(printed(lease)).toContain("a duration above zero and at most 596h")
    refused(["serve"], { MESH_GATE_ERROR_LIMIT: "abc" }, "MESH_GATE_ERROR_LIMIT")
    refused(["serve"], { MESH_BUS_REPLICAS: "2" }, 'MESH_BUS_REPLICAS "2"')
    refused(["serve"], { MESH_GATE_EVERY: "9999999999999h" }, "at most 596h")
    refused(["serve", "--record", join(dir, "no-such-dir", "c.jsonl")], {}, "--record ")
  })

  it("mesh apply: two modules claiming the bus, refused with FILE: field: problem (issue 28)", () => {
    const mesh = JSON.parse(readFileSync(join(import.meta.dirname, "../../examples/mesh.json"), "utf8"))
    mesh.modules.push({ name: "broker2", build: "broker2-1", claims: ["bus"] })
    const file = join(dir, "two-brokers.json")
    writeFileSync(file, JSON.stringify(mesh))
    refused(
      ["mesh", "apply", file],
      {},
      `${file}: modules: broker and broker2 each claim the bus seat; one module holds the bus`,
    )
  })

  it("push: a wait no timer can hold, and a wait with no machine to wait for", () => {
    refused(["push", "hq-1", "--wait", "99999999999999999999h"], {}, "--wait 99999999999999999999h: give a duration")
    refused(["push", "--wait", "5s"], {}, "--wait is for a named machine")
  })

  it("provide: a recording path that cannot be written, before the backend or the bus is opened", () => {
    refused(
      [
        "provide",
        "postgres",
        "--receives",
        receives,
        "--node",
        "hq-1",
        "--record",
        join(dir, "no-such-dir", "p.jsonl"),
      ],
      { PROVIDER_ADMIN_URL: "postgres://admin:pw@127.0.0.1:1/postgres" },
      "--record ",
    )
  })

  it('a person\'s verb with no one named: refused, never kept `by ""`', () => {
    refused(["plans", "pause", "letta-1"], { USER: "" }, "--as: give who acts")
    refused(["standings", "forget", "postgres", "app"], { USER: "" }, "--by: give who acts")
  })

  it("simulate --html to a path it cannot write: said before anything is replayed", () => {
    const r = refused(
      ["simulate", "examples/small.facts.jsonl", "--html", join(dir, "no-such-dir", "day.html")],
      {},
      "day.html: cannot be written",
    )
    expect(r.out).toBe("")
  })
})

describe("simulate --strict", () => {
  it("a day that replays as recorded ends 0; one whose recording lost an answer ends 1, saying what differs", () => {
    expect(runCli(["simulate", "examples/release-day.facts.jsonl", "--strict"], {}).code).toBe(0)
    const lines = readFileSync(join(import.meta.dirname, "../../examples/release-day.facts.jsonl"), "utf8").split("\n")
    // One answer taken out: the replay must make it up (inferred).
    const gone = lines.findIndex((l) => l.includes('"fact":"answer"') && l.includes('"q":"gate-facts"'))
    const torn = join(dir, "torn.facts.jsonl")
    writeFileSync(torn, lines.filter((_, i) => i !== gone).join("\n"))
    const plain = runCli(["simulate", torn], {})
    expect(plain.code, printed(plain)).toBe(0)
    const strict = runCli(["simulate", torn, "--strict"], {})
    expect(strict.code, printed(strict)).toBe(1)
    expect(strict.err).toMatch(/^--strict: the replay does not reproduce the day: .*inferred/)
    expect(runCli(["simulate", torn, "--strict", "--set", "passes=5"], {}).code).toBe(2)
  })
})
