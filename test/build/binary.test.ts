// The one file to install (issue 44): `npm run build:binary`'s dist/mesh-controller, copied alone into
// an empty directory and run with an empty environment but the servers' URLs (no PATH, so no node;
// no node_modules anywhere above it): --version names the build and commit stamped at build time,
// simulate on shipped examples says what ./mesh-controller says, and serve holds the lease, records
// its schema reach from the stamp and answers /readyz. The build itself takes a few seconds.
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process"
import { copyFileSync, mkdirSync, mkdtempSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { cliPath } from "../support/cli.ts"
import { freePort } from "../support/private-servers.ts"
import { cleanUp, databaseUrl, natsUrl, requireNats, requirePostgres } from "../support/servers.ts"

const top = join(import.meta.dirname, "../..")
const scratch = mkdtempSync(join(tmpdir(), "mesh-core-binary-"))
const empty = join(scratch, "empty")
const exe = join(empty, "mesh-controller")
const name = `binary_${process.pid}`
const env = { NATS_URL: natsUrl, DATABASE_URL: databaseUrl }
let serve: ChildProcess | undefined

beforeAll(async () => {
  await (await requireNats()).close()
  await (await requirePostgres()).end()
  const built = join(scratch, "built", "mesh-controller")
  execFileSync(process.execPath, [join(top, "scripts/build-binary.ts"), "--out", built], { cwd: top, stdio: "pipe" })
  mkdirSync(empty)
  copyFileSync(built, exe)
  execFileSync("chmod", ["+x", exe])
}, 120_000)

afterAll(async () => {
  serve?.kill("SIGKILL")
  await cleanUp(name, name)
})

const inEmpty = (args: ReadonlyArray<string>) => {
  const r = spawnSync(exe, args, { cwd: empty, env, encoding: "utf8", maxBuffer: 256 << 20 })
  return { code: r.status, out: r.stdout, err: r.stderr }
}

describe("the one file", () => {
  it("is one executable file; --version names the build and the commit it was built from", () => {
    expect(statSync(exe).mode & 0o111).not.toBe(0)
    const commit = execFileSync("git", ["rev-parse", "HEAD"], { cwd: top, encoding: "utf8" }).trim()
    const r = inEmpty(["--version"])
    expect(r.code, r.err).toBe(0)
    expect(r.out.trim()).toMatch(
      new RegExp(
        `^mesh-controller v0\\.1\\.0 build mesh-controller-0\\.1\\.0-${commit.slice(0, 12)} commit ${commit}(-dirty)?$`,
      ),
    )
  })

  it("simulate on shipped examples says what ./mesh-controller says, byte for byte", () => {
    for (const example of ["examples/release-day.facts.jsonl", "examples/identity-issue-179.facts.jsonl.gz"]) {
      const file = join(top, example)
      const mine = inEmpty(["simulate", file])
      const checkout = spawnSync(process.execPath, [cliPath, "simulate", file], { cwd: top, encoding: "utf8" })
      expect(mine.code, mine.err).toBe(checkout.status)
      expect(mine.out.length).toBeGreaterThan(0)
      expect(mine.out).toBe(checkout.stdout)
    }
  })

  it("serve holds the lease, records its schema reach from the stamp, answers /readyz, and stops on SIGTERM", async () => {
    const port = await freePort()
    let said = ""
    serve = spawn(exe, ["serve", "--metrics-addr", `127.0.0.1:${port}`], {
      cwd: empty,
      env: { ...env, MESH_BUS_PREFIX: name, MESH_STORE_SCHEMA: name },
    })
    serve.stdout?.on("data", (c: Buffer) => void (said += c.toString()))
    serve.stderr?.on("data", (c: Buffer) => void (said += c.toString()))
    let ready = ""
    for (let i = 0; i < 100 && ready !== "ready"; i++) {
      await new Promise((r) => setTimeout(r, 200))
      ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.text().then((t) => (r.status === 200 ? t.trim() : "")),
        () => "",
      )
    }
    expect(ready, said).toBe("ready")
    expect(said).toContain("this controller holds the controller lease")
    expect(said).toMatch(
      /this build \(mesh-controller-0\.1\.0-[0-9a-f]{12}\) reads the store's schema up to migration \d{4}; recorded/,
    )
    const exited = new Promise<number | null>((r) => serve?.once("exit", (code) => r(code)))
    serve.kill("SIGTERM")
    expect(await exited).toBe(0)
  })
})
