// The core as a library another project installs (issue 29): built to JavaScript with declarations
// (`npm run build:core`), packed with `npm pack`, installed into a scratch project outside this
// checkout, where a plain `.mjs` imports the gate's judgement, the delivery order and the standings'
// transitions and runs them (test/support/core-package/check.mjs says what each must answer).
import { spawnSync } from "node:child_process"
import { copyFileSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"

const top = join(import.meta.dirname, "../..")
const npm = (args: ReadonlyArray<string>, cwd: string) => {
  const r = spawnSync("npm", [...args], { cwd, encoding: "utf8", env: { ...process.env, npm_config_audit: "false" } })
  expect(r.status, `npm ${args.join(" ")}\n${r.stdout}${r.stderr}`).toBe(0)
  return r.stdout
}

describe("@mesh-core/core as a package", () => {
  it("builds, packs, installs into a project of its own, and decides there as its rules say", () => {
    npm(["run", "-s", "build:core"], top)
    const scratch = mkdtempSync(join(tmpdir(), "mesh-core-package-"))
    npm(["pack", join(top, "core/dist/package"), "--pack-destination", scratch, "--silent"], top)
    const tarball = readdirSync(scratch).find((f) => f.endsWith(".tgz"))
    expect(tarball).toBeDefined()
    const project = join(scratch, "embedder")
    spawnSync("mkdir", [project])
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "embedder", private: true, type: "module" }))
    npm(["install", "--prefer-offline", "--no-fund", "--silent", join(scratch, tarball!)], project)
    // Only built JavaScript and declarations went into the package: no TypeScript source to strip.
    const installed = join(project, "node_modules/@mesh-core/core")
    const files = readdirSync(installed, { recursive: true }).map(String)
    expect(files.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))).toEqual([])
    expect(files).toContain("library/index.js")
    expect(files).toContain("library/index.d.ts")
    copyFileSync(join(top, "test/support/core-package/check.mjs"), join(project, "check.mjs"))
    // Run by the Node that runs the tests, outside any checkout of this project.
    const run = spawnSync(process.execPath, ["check.mjs"], { cwd: project, encoding: "utf8" })
    expect(run.stderr).toBe("")
    expect(run.status).toBe(0)
    expect(run.stdout).toBe("the packed core decided as its rules say\n")
  }, 120_000)
})
