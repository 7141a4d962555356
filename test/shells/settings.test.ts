// Every setting in one place (issue 44): docs/configuration.md's table is the core's table, and
// `mesh-controller settings` prints the same names and defaults, a password masked, each refusal said
// (issue 43: an empty URL refused, never read as the default server).
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { settingsMarkdown, settingTable } from "@mesh-core/core/controller/setting-table"
import { parseDuration } from "@mesh-core/core/duration"
import { ConfigProvider, Effect, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import { readSettings } from "../../shells/src/config.ts"
import { cliPath } from "../support/cli.ts"

const top = join(import.meta.dirname, "../..")
const page = readFileSync(join(top, "docs/configuration.md"), "utf8")

/** The CLI with nothing in its environment but what is given (and PATH, for nothing it needs). */
const settings = (env: Record<string, string> = {}, args = ["settings"]) => {
  const r = spawnSync(process.execPath, [cliPath, ...args], {
    cwd: top,
    env: { PATH: "/usr/bin:/bin", ...env },
    encoding: "utf8",
  })
  return { code: r.status, out: r.stdout, err: r.stderr }
}

/** A markdown or column table's rows as cells, header first. */
const markdownRows = (text: string) =>
  text
    .split("\n")
    .filter((l) => l.startsWith("| ") && !l.startsWith("| ---"))
    .map((l) => l.slice(2, -2).split(" | "))

describe("every setting in one place", () => {
  it("docs/configuration.md's table is the core's table, as settingsMarkdown makes it", () => {
    const start = page.indexOf("<!-- settings table")
    const end = page.indexOf("<!-- end of the settings table -->")
    expect(start).toBeGreaterThan(0)
    const section = page.slice(page.indexOf("\n", start) + 1, end).trim()
    expect(section).toBe(settingsMarkdown())
    // Each row a setting with a range in words, none twice.
    const names = markdownRows(section)
      .slice(1)
      .map((r) => r[0])
    expect(new Set(names).size).toBe(settingTable.length)
  })

  it("`settings` with an empty environment: the page's names and defaults, each from its default or unset, exit 0", () => {
    const r = settings()
    expect(r.code, r.err).toBe(0)
    const lines = r.out.trimEnd().split("\n")
    expect(lines[0]).toMatch(/^NAME\s+VALUE\s+DEFAULT\s+FROM$/)
    const printed = lines.slice(1).map((l) => l.split(/\s{2,}/))
    const documented = markdownRows(settingsMarkdown())
      .slice(1)
      .map((r) => [r[0]?.replaceAll("`", ""), r[1] === "unset" ? "-" : r[1]?.replaceAll("`", "")])
    expect(printed.map((p) => [p[0], p[2]])).toEqual(documented)
    for (const p of printed) expect(p[3]).toBe(p[2] === "-" ? "unset" : "default")
    // The value is the default when nothing is set.
    for (const p of printed) expect(p[1]).toBe(p[2])
  })

  it("a value set is printed from the environment, a password masked", () => {
    const r = settings({ DATABASE_URL: "postgres://mesh:Hunter2@db:5432/mesh", MESH_GATE_PASSES: "5" })
    expect(r.code, r.err).toBe(0)
    expect(r.out).not.toContain("Hunter2")
    expect(r.out).toMatch(/^DATABASE_URL\s+postgres:\/\/mesh:\*\*\*@db:5432\/mesh\s+\S+\s+environment$/m)
    expect(r.out).toMatch(/^MESH_GATE_PASSES\s+5\s+3\s+environment$/m)
  })

  it("each setting refused is said below the table, exit 2: an empty URL, a count, replicas, the lease's bounds", () => {
    const r = settings({ NATS_URL: "", DATABASE_URL: " ", MESH_GATE_PASSES: "0", MESH_LEASE_REPLICAS: "2" })
    expect(r.code).toBe(2)
    expect(r.err).toContain('NATS_URL "": empty: give a URL, or unset it')
    expect(r.err).toContain('DATABASE_URL " ": empty: give a URL, or unset it')
    expect(r.err).toContain('MESH_GATE_PASSES "0": give a whole number of passes')
    expect(r.err).toContain('MESH_LEASE_REPLICAS "2"')
    const lease = settings({ MESH_LEASE_DURATION: "5s", MESH_LEASE_RENEW_DEADLINE: "10s" })
    expect(lease.code).toBe(2)
    expect(lease.err).toContain("the controller lease's settings are refused")
  })

  it("serve refuses an empty URL at start, before opening anything (exit 2, not 3 for a store it could not reach)", () => {
    for (const name of ["NATS_URL", "DATABASE_URL"]) {
      const r = settings({ [name]: "" }, ["serve", "--metrics-addr", "127.0.0.1:1"])
      expect(r.code, r.err).toBe(2)
      expect(r.err).toContain(`${name} "": empty`)
    }
  })

  it("serve checks MESH_LEASE_REPLICAS and the --record file's first line before opening the store (exit 2, not 3)", () => {
    const closed = { DATABASE_URL: "postgres://postgres@127.0.0.1:1/test", NATS_URL: "nats://127.0.0.1:1" }
    const replicas = settings({ ...closed, MESH_LEASE_REPLICAS: "2" }, ["serve", "--metrics-addr", "127.0.0.1:0"])
    expect(replicas.code, replicas.err).toBe(2)
    expect(replicas.err).toContain('MESH_LEASE_REPLICAS "2"')
    const file = join(mkdtempSync(join(tmpdir(), "mesh-core-record-")), "not-a-log.jsonl")
    writeFileSync(file, '{"format":"something else"}\n')
    const record = settings(closed, ["serve", "--metrics-addr", "127.0.0.1:0", "--record", file])
    expect(record.code, record.err).toBe(2)
    expect(record.err).toContain(`--record ${file}: not a controller's fact log (line 1: format:`)
    expect(readFileSync(file, "utf8")).toBe('{"format":"something else"}\n')
  })

  it("the process reads the table's defaults: with nothing set, serve's settings are the table's", async () => {
    const s = await Effect.runPromise(
      readSettings.pipe(Effect.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({})))),
    )
    const fallback = (name: string) => settingTable.find((t) => t.name === name)?.fallback ?? "?"
    expect(Redacted.value(s.natsUrl)).toBe(fallback("NATS_URL"))
    expect(Redacted.value(s.databaseUrl)).toBe(fallback("DATABASE_URL"))
    expect(s.storeSchema).toBe(fallback("MESH_STORE_SCHEMA"))
    expect(s.busPrefix).toBe(fallback("MESH_BUS_PREFIX"))
    expect(String(s.busReplicas)).toBe(fallback("MESH_BUS_REPLICAS"))
    expect(s.staleAfterMs).toBe(parseDuration(fallback("MESH_STALE_AFTER")))
    expect(s.gate.settle).toBe(parseDuration(fallback("MESH_GATE_SETTLE")))
    expect(s.gate.bound).toBe(parseDuration(fallback("MESH_GATE_BOUND")))
    expect(s.gate.every).toBe(parseDuration(fallback("MESH_GATE_EVERY")))
    expect(String(s.gate.passes)).toBe(fallback("MESH_GATE_PASSES"))
  })
})
