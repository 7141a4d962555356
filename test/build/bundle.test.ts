// Every command starts from a bundle of the sources (shells/src/cli/bundle.js, issues 11 and 30).
// The bundle is a cache: it must say what the sources say, on every kind of log and on bad
// input, and it must never outlive a change to any source, which would replay a day through code
// that is no longer the project's.
import { spawnSync } from "node:child_process"
import { cpSync, mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
// @ts-expect-error: plain JavaScript with no declarations, as the launcher must load no type stripper
import { bundleKey, cliBundle, currentKey } from "../../shells/src/cli/bundle.js"

const top = join(import.meta.dirname, "../..")
const scratch = mkdtempSync(join(tmpdir(), "mesh-core-bundle-"))
const launch = (env: Record<string, string>, ...args: Array<string>) => {
  const r = spawnSync(process.execPath, [join(top, "shells/src/cli/mesh-controller.js"), ...args], {
    cwd: top,
    encoding: "utf8",
    maxBuffer: 256 << 20,
    env: { ...process.env, ...env },
  })
  return { code: r.status, out: r.stdout, err: r.stderr }
}
const bundled = (...args: Array<string>) => launch({}, ...args)
const fromSources = (...args: Array<string>) => launch({ MESH_BUNDLE: "off" }, ...args)

describe("the CLI's bundle", () => {
  it("says what the sources say: a provider's day, a controller's day, a sweep, --json, a bad line, help and a refused setting", () => {
    const bad = join(scratch, "bad.jsonl")
    writeFileSync(bad, `{"format":"mesh-core.facts","version":1}\nnot json\n`)
    const cases = [
      ["simulate", "examples/identity-issue-179.facts.jsonl.gz"],
      ["simulate", "examples/small.facts.jsonl", "--json", "--set", "failingAfter=1m"],
      ["simulate", "examples/small.facts.jsonl", "--sweep", "failingAfter=1m,5m"],
      ["simulate", "examples/release-day.facts.jsonl"],
      ["simulate", "examples/gate-crash-loop.facts.jsonl", "--sweep", "passes=1,3", "--json"],
      ["simulate", bad],
      ["--help"],
      ["status", "--help"],
    ]
    const said = cases.map((args) => {
      const b = fromSources(...args)
      expect(bundled(...args), args.join(" ")).toEqual(b)
      return b
    })
    // Each case is the run it names, not two refusals alike.
    expect(said.map((r) => r.code)).toEqual([0, 0, 0, 0, 0, 2, 0, 0])
    const refused = { DATABASE_URL: "postgres://nobody:secret@/test?port=x" }
    expect(launch(refused, "status")).toEqual(launch({ ...refused, MESH_BUNDLE: "off" }, "status"))
    expect(launch(refused, "status").code).toBe(2)
    expect(said[0]!.out).toContain("ANNOUNCED  provisioner.failing letta on hq-3")
    expect(said[5]!.err).toMatch(/bad\.jsonl:\d+: /)
  }, 180_000) // some twenty starts, half of them from the sources (~2 s of CPU each): minutes on a loaded machine

  it("is what `npm run simulate` starts: no source module is loaded, and off loads them", () => {
    // Every module the process loads, written to standard error as it exits.
    const loads =
      `--import=data:text/javascript,import{registerHooks}from"node:module";const m=[];` +
      `registerHooks({load(u,c,n){m.push(u);return n(u,c)}});process.on("exit",()=>process.stderr.write(m.join("\\n")))`
    const loaded = (env: Record<string, string>) => {
      const r = spawnSync(
        process.execPath,
        [loads, join(top, "shells/src/cli/mesh-controller.js"), "simulate", "examples/small.facts.jsonl"],
        {
          cwd: top,
          encoding: "utf8",
          env: { ...process.env, ...env },
        },
      )
      expect(r.status).toBe(0)
      return r.stderr.split("\n")
    }
    const cache = `/node_modules/.cache/mesh-controller/${bundleKey()}/main.js`
    expect(loaded({}).filter((u) => u.endsWith(".ts"))).toEqual([])
    expect(loaded({}).some((u) => u.endsWith(cache))).toBe(true)
    expect(loaded({ MESH_BUNDLE: "off" })).toContain(`file://${top}/shells/src/cli/main.ts`)
  }, 60_000)

  it("is built once, into the checkout's cache, and started from there", async () => {
    const cache = join(scratch, "cache")
    const first: string | undefined = await cliBundle(cache)
    expect(first).toMatch(new RegExp(`^file://${cache}/${bundleKey()}/main\\.js$`))
    expect(readdirSync(cache).filter((name) => name !== "key")).toEqual([bundleKey()])
    expect(await cliBundle(cache)).toBe(first)
  }, 60_000)

  it("is keyed by every source's content: any change makes another key, a new time on the same content does not", () => {
    const copy = join(scratch, "checkout")
    for (const part of ["core/src", "shells/src", "package-lock.json"])
      cpSync(join(top, part), join(copy, part), { recursive: true })
    const key = bundleKey(copy)
    expect(bundleKey(copy)).toBe(key)
    utimesSync(join(copy, "core/src/provisioner/pass.ts"), new Date(2030, 0, 1), new Date(2030, 0, 1))
    expect(bundleKey(copy)).toBe(key)
    const changed = new Set([key])
    const edit = (file: string, text: string) => {
      writeFileSync(join(copy, file), text)
      const k = bundleKey(copy)
      expect(changed.has(k), `${file} changed and the key did not`).toBe(false)
      changed.add(k)
    }
    edit("core/src/provisioner/pass.ts", "export {}\n")
    edit("shells/src/simulate/sweep.ts", "export {}\n")
    edit("core/src/new-rule.ts", "export {}\n")
    edit("package-lock.json", "{}\n")
  })

  it("is read again from the sources' content whenever one was written since, and only then", () => {
    const copy = join(scratch, "stamped")
    for (const part of ["core/src", "shells/src", "package-lock.json"])
      cpSync(join(top, part), join(copy, part), { recursive: true })
    const cache = join(copy, "cache")
    const first = currentKey(cache, copy)
    expect(first).toBe(bundleKey(copy))
    expect(currentKey(cache, copy)).toBe(first)
    // Written with the same content: the time moved, the key stays (made of content only).
    const file = join(copy, "core/src/provisioner/pass.ts")
    utimesSync(file, new Date(2031, 0, 1), new Date(2031, 0, 1))
    expect(currentKey(cache, copy)).toBe(first)
    // Written with other content, even of the same size: another key, the one its content makes.
    writeFileSync(file, readFileSync(file, "utf8").replace("a", "b"))
    const second = currentKey(cache, copy)
    expect(second).not.toBe(first)
    expect(second).toBe(bundleKey(copy))
    // A file added.
    writeFileSync(join(copy, "shells/src/new.ts"), "export {}\n")
    expect(currentKey(cache, copy)).toBe(bundleKey(copy))
    expect(currentKey(cache, copy)).not.toBe(second)
  })

  it("leaves simulate on the sources when it cannot be built", async () => {
    const file = join(scratch, "a-file")
    writeFileSync(file, "")
    expect(await cliBundle(join(file, "cache"))).toBeUndefined()
  })
})
