// Inputs as a hostile user gives them (issue 43), over the shipped CLI: a device, a fifo or a
// directory given as a file, a JSON nested 100,000 deep, names and texts of 100,000 characters. Each
// is refused at once with one line and exit 2, before the store or the bus is opened: both named here
// are closed ports, so a command that opened either first would end "unreachable" (exit 3) or hang.
import { spawn } from "node:child_process"
import { execFileSync } from "node:child_process"
import {
  copyFileSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { writeBeside } from "../../shells/src/files/output.ts"
import { cliPath } from "../support/cli.ts"
import { runCli, startCli } from "../support/servers.ts"

const dir = mkdtempSync(join(tmpdir(), "mesh-core-hostile-"))
const fifo = join(dir, "fifo")
execFileSync("mkfifo", [fifo])
const contributions = join(dir, "contributions.json")
writeFileSync(contributions, JSON.stringify({ given: [] }))
const closed = {
  DATABASE_URL: "postgres://postgres@127.0.0.1:9/mesh",
  NATS_URL: "nats://127.0.0.1:9",
  PROVIDER_ADMIN_URL: "postgres://admin:pw@127.0.0.1:9/postgres",
}
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const tried: Array<string> = []
/** Refused as issue 43 asks: exit 2, nothing on standard output, one line on standard error naming `says`. */
const refused = (args: ReadonlyArray<string>, says: string | RegExp) => {
  tried.push(args.join(" ").slice(0, 80))
  const started = Date.now()
  const r = runCli(args, closed)
  const took = Date.now() - started
  expect(r.code, `${args.join(" ").slice(0, 200)}\n${r.err}`).toBe(2)
  expect(r.out).toBe("")
  expect(r.err.trimEnd().split("\n"), r.err).toHaveLength(1)
  expect(r.err).toMatch(says)
  expect(r.err.length).toBeLessThan(400)
  // A start of the CLI is under a second; a device read for even a second would be gigabytes.
  expect(took).toBeLessThan(10_000)
}

const provide = (...more: ReadonlyArray<string>) => ["provide", "postgres", "--node", "hq-1", ...more]
const long = "x".repeat(100_000)

describe("a file that is not a regular file", () => {
  const notFiles: ReadonlyArray<readonly [string, RegExp]> = [
    ["/dev/zero", /a device/],
    ["/dev/full", /a device/],
    ["/dev/urandom", /a device/],
    [fifo, /a named pipe \(fifo\)/],
    [dir, /a directory/],
  ]
  it("mesh apply, declare, node-engine --trust-key: refused at once, one line, exit 2", () => {
    for (const [f, kind] of notFiles) {
      refused(["mesh", "apply", f], kind)
      refused(["declare", "hq-1", f], kind)
      refused(["node-engine", "--simulate", "hq-1", "--trust-key", f], kind)
    }
  })
  it("provide postgres --receives, --outbox, --record: refused before the backend or the bus is opened", () => {
    for (const [f, kind] of notFiles) {
      refused(provide("--receives", f), new RegExp(`--receives ${f}: ${kind.source}`))
      if (f !== dir) refused(provide("--receives", contributions, "--record", f), kind)
    }
    for (const f of ["/dev/zero", "/dev/full", "/dev/urandom", fifo])
      refused(provide("--receives", contributions, "--outbox", f), new RegExp(`--outbox ${f}: a`))
  })
  it("a file over its bound is refused by its size, before it is read", () => {
    const big = join(dir, "big.json")
    writeFileSync(big, `{"resources":[],"pad":"${"x".repeat(17 * 1024 * 1024)}"}`)
    refused(["declare", "hq-1", big], /\d+ bytes, over the 16777216 it may be/)
    refused(["mesh", "apply", big], /\d+ bytes, over the 8388608 it may be/)
  })
})

describe("nothing written over an input", () => {
  it("simulate F --html F, by a hard link, by a symlink, or a device: refused before the replay, F whole", () => {
    const log = join(dir, "day.facts.jsonl")
    copyFileSync(join(import.meta.dirname, "../../examples/small.facts.jsonl"), log)
    const before = readFileSync(log, "utf8")
    linkSync(log, join(dir, "hard"))
    symlinkSync(log, join(dir, "soft"))
    refused(["simulate", log, "--html", log], /day\.facts\.jsonl, which is read \(the same file\)/)
    refused(["simulate", log, "--html", join(dir, "hard")], /which is read \(the same file by another name\)/)
    refused(["simulate", log, "--html", join(dir, "soft")], /which is read \(the same file by another name\)/)
    refused(["simulate", log, "--html", "/dev/full"], /\/dev\/full: cannot be written: not a regular file/)
    expect(readFileSync(log, "utf8")).toBe(before)
  })
  it("a page written beside and renamed into place; a write that fails leaves what was there", async () => {
    const page = join(dir, "page.html")
    writeFileSync(page, "the page before")
    // The file written beside is taken by a folder: the write fails, and the page is as it was.
    const beside = join(dir, `.page.html.${process.pid}.tmp`)
    mkdirSync(beside)
    const failed = await Effect.runPromise(Effect.result(writeBeside(page, "a new page")))
    expect(failed._tag).toBe("Failure")
    expect(readFileSync(page, "utf8")).toBe("the page before")
    rmSync(beside, { recursive: true })
    await Effect.runPromise(writeBeside(page, "a new page"))
    expect(readFileSync(page, "utf8")).toBe("a new page")
    expect(readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([])
  })
})

describe("records that would break later", () => {
  it("mesh apply: an assignment of a module that does not exist, a module with an empty build", () => {
    const apply = (name: string, doc: unknown) => {
      const f = join(dir, name)
      writeFileSync(f, JSON.stringify(doc))
      return ["mesh", "apply", f]
    }
    const base = { mesh: "hq", nodes: ["hq-1"], modules: [{ name: "letta", build: "l-1" }], assignments: [] }
    refused(
      apply("dangling.json", { ...base, assignments: [{ module: "ghost", node: "hq-1" }] }),
      /assignments: ghost is assigned to hq-1, but no module of that name is among the modules/,
    )
    refused(
      apply("empty-build.json", { ...base, modules: [{ name: "letta", build: "" }] }),
      /modules\[0\]\.build: empty/,
    )
  })
})

describe("text without a bound", () => {
  it("JSON nested 100,000 deep: one line and exit 2, no stack trace", () => {
    const deep = join(dir, "deep.json")
    writeFileSync(deep, `${'{"a":'.repeat(100_000)}1${"}".repeat(100_000)}`)
    refused(["declare", "hq-1", deep], /nested deeper than 64 levels/)
    refused(["mesh", "apply", deep], /nested deeper than 64 levels/)
  })
  it("a machine's name that is no bus subject token, or too long", () => {
    refused(
      provide("--receives", contributions).map((a) => (a === "hq-1" ? "" : a)),
      /--node: empty/,
    )
    refused(
      provide("--receives", contributions).map((a) => (a === "hq-1" ? "a b.>" : a)),
      /--node: "a b\.>" is not a bus subject token/,
    )
    refused(
      provide("--receives", contributions).map((a) => (a === "hq-1" ? "n".repeat(200) : a)),
      /--node: longer than 128 characters/,
    )
  })
  it("a verb's --why and --as, a handover's --as, standings forget --by: bounded", () => {
    refused(
      ["plans", "pause", "letta-205", "--as", "ops", "--why", long],
      /--why: 100000 characters, over the 4096 it may be/,
    )
    refused(["plans", "abort", "letta-205", "--as", long], /--as: 100000 characters, over the 256 a name may be/)
    refused(["mesh", "handover", "nats", "--as", long], /--as: 100000 characters/)
    refused(["standings", "forget", "postgres", "letta", "--by", long], /--by: 100000 characters/)
  })
})

describe("a read under way", () => {
  it("a provider whose contributions file became a fifo says so each pass and stops within 2 s of SIGTERM", async () => {
    const receives = join(dir, "swapped.json")
    writeFileSync(receives, JSON.stringify({ given: [] }))
    const provider = startCli(
      provide("--receives", receives, "--outbox", join(dir, "outbox"), "--set", "every=200ms"),
      closed,
    )
    const exited = new Promise((r) => provider.process.once("exit", r))
    try {
      await new Promise((r) => setTimeout(r, 2_500))
      expect(provider.process.exitCode, provider.output()).toBeNull()
      renameSync(fifo, receives)
      await new Promise((r) => setTimeout(r, 1_500))
      expect(provider.output()).toContain("a named pipe (fifo)")
      const signalled = Date.now()
      provider.process.kill("SIGTERM")
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))])
      expect(Date.now() - signalled, provider.output()).toBeLessThan(2_000)
    } finally {
      await provider.stop()
      renameSync(receives, fifo)
    }
  }, 30_000)
  it("the launcher honours SIGTERM while a command reads (a large records file)", async () => {
    const big = join(dir, "records.json")
    const nodes = Array.from({ length: 300_000 }, (_, i) => `n-${i}`)
    writeFileSync(big, JSON.stringify({ mesh: "hq", nodes, modules: [], assignments: [] }))
    const child = spawn(process.execPath, [cliPath, "mesh", "apply", big], {
      env: { ...process.env, ...closed },
      stdio: "ignore",
    })
    const exited = new Promise((r) => child.once("exit", r))
    await new Promise((r) => setTimeout(r, 300))
    const signalled = Date.now()
    child.kill("SIGTERM")
    await exited
    expect(Date.now() - signalled).toBeLessThan(2_000)
  })
})
