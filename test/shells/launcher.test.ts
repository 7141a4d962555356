// ./mesh-controller, the README's way to start the CLI: the Node `npm ci` installed, from any
// directory, the replay's memory flags for `simulate` and Node's defaults for everything else.
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { describe, expect, it } from "vitest"

const top = join(import.meta.dirname, "../..")
const launcher = join(top, "mesh-controller")
const scratch = mkdtempSync(join(tmpdir(), "mesh-core-launcher-"))
const said = join(scratch, "said.json")
// Loaded into the started Node: writes which Node it is and the flags it was started with.
const hook = join(scratch, "say.mjs")
writeFileSync(
  hook,
  `import { writeFileSync } from "node:fs"\n` +
    `process.on("exit", () => writeFileSync(${JSON.stringify(said)}, JSON.stringify({ version: process.version, execPath: process.execPath, flags: process.execArgv })))\n`,
)
const start = (...args: Array<string>) => {
  const r = spawnSync(launcher, args, {
    cwd: scratch,
    encoding: "utf8",
    env: { ...process.env, PATH: "/usr/bin:/bin", NODE_OPTIONS: `--import=${pathToFileURL(hook).href}` },
  })
  const node = JSON.parse(readFileSync(said, "utf8")) as { version: string; execPath: string; flags: Array<string> }
  return { code: r.status, out: r.stdout, err: r.stderr, node }
}
const installed = JSON.parse(readFileSync(join(top, "node_modules/node/package.json"), "utf8")) as { version: string }

describe("./mesh-controller", () => {
  it("replays a shipped day from another directory, with the Node npm ci installed and the replay's flags", () => {
    const r = start("simulate", join(top, "examples/small.facts.jsonl"))
    expect(r.err).toBe("")
    expect(r.code).toBe(0)
    expect(r.out).toContain("summary: ")
    expect(r.node.version).toBe(`v${installed.version}`)
    expect(r.node.execPath).toBe(join(top, "node_modules/node/bin/node"))
    expect(r.node.flags).toEqual([
      "--max-semi-space-size=8",
      "--heap-growing-percent=100",
      "--v8-pool-size=1",
      "--expose-gc",
    ])
  })

  it("starts every other command under Node's defaults", () => {
    const r = start("--version")
    expect(r.code).toBe(0)
    expect(r.out).toContain("0.1.0")
    expect(r.node.version).toBe(`v${installed.version}`)
    expect(r.node.flags).toEqual([])
  })

  it("passes a bad command's exit code and words through", () => {
    const r = start("simulate", join(scratch, "no-such.facts.jsonl"))
    expect(r.code).toBe(2)
    expect(r.err).toContain("no-such.facts.jsonl")
  })
})
