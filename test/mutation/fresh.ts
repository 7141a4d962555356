// A fresh mutation run of the whole core, reproducible from a clean checkout: no incremental file,
// every area of core/src a Stryker job of its own, one after another. Usage:
//
//   nice -n 10 node test/mutation/fresh.ts [--only AREA,AREA] [--keep-static]
//
// The jobs run one after another, each at concurrency 2, because stryker.config.json runs in place
// (the tests import the core through the workspace link node_modules/@mesh-core/core -> ../../core):
// two jobs in one checkout would mutate the same files on disk. On 2 cores a second checkout buys
// nothing either, the test runners already take both.
// Each job writes reports/mutation/fresh/AREA.json and its wall time; the reports are merged into
// reports/mutation/fresh.json, which `npm run mutation:scores -- reports/mutation/fresh.json
// --timeouts-survive` reads.
// Static mutants (run once at load: Schemas, constant tables) are left out (`--ignoreStatic`) unless
// --keep-static: docs/testing.md says why that is sound for this core and how many they are.
import { spawnSync } from "node:child_process"
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"

const root = join(import.meta.dirname, "../..")
const out = join(root, "reports/mutation/fresh")
const args = process.argv.slice(2)
const only = args.includes("--only") ? (args[args.indexOf("--only") + 1] ?? "").split(",") : undefined
const keepStatic = args.includes("--keep-static")

// core/src/library only re-exports the areas (the package's entry): no mutant, and a Stryker job with
// none fails for finding no test to run.
const reExportsOnly = new Set(["library"])
const dirs = readdirSync(join(root, "core/src"))
  .filter((d) => statSync(join(root, "core/src", d)).isDirectory() && !reExportsOnly.has(d))
  .sort()
const jobs: ReadonlyArray<{ readonly area: string; readonly mutate: string }> = [
  ...dirs.map((d) => ({ area: d, mutate: `core/src/${d}/**/*.ts` })),
  { area: "shared", mutate: "core/src/*.ts" },
].filter((j) => only === undefined || only.includes(j.area))

const base = JSON.parse(readFileSync(join(root, "stryker.config.json"), "utf8")) as Record<string, unknown>
mkdirSync(out, { recursive: true })
const timings: Array<{ area: string; seconds: number; exit: number | null }> = []
const started = Date.now()
for (const { area, mutate } of jobs) {
  const config = join(out, `${area}.config.json`)
  const { $schema: _schema, incrementalFile: _incremental, ...rest } = base
  writeFileSync(
    config,
    JSON.stringify(
      {
        ...rest,
        mutate: [mutate],
        incremental: false,
        ignoreStatic: !keepStatic,
        reporters: ["json", "progress"],
        jsonReporter: { fileName: `reports/mutation/fresh/${area}.json` },
      },
      null,
      2,
    ),
  )
  const t0 = Date.now()
  console.log(`[fresh] ${area}: stryker run --mutate '${mutate}' (${new Date(t0).toISOString()})`)
  const run = spawnSync(join(root, "node_modules/.bin/stryker"), ["run", config], { cwd: root, stdio: "inherit" })
  const seconds = Math.round((Date.now() - t0) / 1000)
  timings.push({ area, seconds, exit: run.status })
  writeFileSync(
    join(out, "timings.json"),
    JSON.stringify({ started: new Date(started).toISOString(), timings }, null, 2),
  )
  console.log(`[fresh] ${area}: ${seconds} s, exit ${run.status}`)
}

// One report of every area: the schema's `files` joined (the areas' files do not overlap).
const files: Record<string, unknown> = {}
let merged: Record<string, unknown> = {}
for (const { area } of jobs) {
  try {
    const report = JSON.parse(readFileSync(join(out, `${area}.json`), "utf8")) as Record<string, unknown>
    Object.assign(files, report.files as Record<string, unknown>)
    merged = { ...report, files }
  } catch {
    console.log(`[fresh] ${area}: no report`)
  }
}
writeFileSync(join(root, "reports/mutation/fresh.json"), JSON.stringify(merged))
const total = Math.round((Date.now() - started) / 1000)
console.log(`[fresh] all jobs: ${total} s; ${timings.map((t) => `${t.area} ${t.seconds} s`).join(", ")}`)
spawnSync(
  process.execPath,
  [join(root, "test/mutation/scores.ts"), join(root, "reports/mutation/fresh.json"), "--timeouts-survive"],
  {
    cwd: root,
    stdio: "inherit",
  },
)
