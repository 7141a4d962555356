// A fresh mutation run over the core files a change touches, each held to the floor (issue 42): 85%,
// 75% for a page's drawing, timeouts counted as survived. Usage:
//
//   nice -n 10 node test/mutation/changed.ts [REV] [--list] [--keep-static] [-- STRYKER ARGS…]
//
// REV is the commit the change started from. By default it is the last commit of main another clone
// would have: `git merge-base HEAD origin/main` when there is an origin, else `git merge-base HEAD
// main` (on a branch, where it left main; on main itself, its tip, so only what is not committed
// yet). The files are those of core/src changed since REV, committed or not, and new ones not yet
// added; removed files count nowhere. Nothing of an earlier run is read (no incremental file, static
// mutants left out as in `mutation:fresh`), so two checkouts of one commit give the same figures up
// to timeouts. `--list` names the files and runs nothing; what follows `--` goes to Stryker (e.g.
// `--concurrency 1` on a machine shared with others). Exits 1 when a file is under its floor (its
// survivors listed), 2 when Stryker failed.
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"

const root = join(import.meta.dirname, "../..")
const out = join(root, "reports/mutation/changed")
const dashes = process.argv.indexOf("--")
const args = dashes < 0 ? process.argv.slice(2) : process.argv.slice(2, dashes)
const strykerArgs = dashes < 0 ? [] : process.argv.slice(dashes + 1)
const keepStatic = args.includes("--keep-static")

const git = (...a: ReadonlyArray<string>): string | undefined => {
  const r = spawnSync("git", a, { cwd: root, encoding: "utf8" })
  return r.status === 0 ? r.stdout.trim() : undefined
}
const rev =
  args.find((a) => !a.startsWith("--")) ??
  (git("rev-parse", "--verify", "--quiet", "origin/main") !== undefined
    ? git("merge-base", "HEAD", "origin/main")
    : git("merge-base", "HEAD", "main"))
if (rev === undefined) {
  console.error("[changed] no commit to compare with: give one (node test/mutation/changed.ts REV)")
  process.exit(2)
}

/** The floor a file is held to: a page's drawing (its survivors only colour, spacing, legend wording) lower. */
const drawing = (file: string) => /(^|\/)page(-drawing)?\.ts$/.test(file)
const floorOf = (file: string) => (drawing(file) ? 75 : 85)

// core/src/library only re-exports the areas: no mutant (as in fresh.ts).
const inCore = (f: string) => f.startsWith("core/src/") && f.endsWith(".ts") && !f.startsWith("core/src/library/")
const files = [
  ...new Set([
    ...(git("diff", "--name-only", rev, "--", "core/src") ?? "").split("\n"),
    ...(git("ls-files", "--others", "--exclude-standard", "--", "core/src") ?? "").split("\n"),
  ]),
]
  .filter((f) => inCore(f) && existsSync(join(root, f)))
  .sort()
console.log(`[changed] core files changed since ${rev.slice(0, 12)}: ${files.length === 0 ? "none" : files.join(", ")}`)
if (files.length === 0 || args.includes("--list")) process.exit(0)

const base = JSON.parse(readFileSync(join(root, "stryker.config.json"), "utf8")) as Record<string, unknown>
const { $schema: _schema, incrementalFile: _incremental, ...rest } = base
mkdirSync(out, { recursive: true })
const config = join(out, "config.json")
const reportFile = "reports/mutation/changed/report.json"
writeFileSync(
  config,
  JSON.stringify(
    {
      ...rest,
      mutate: files,
      incremental: false,
      ignoreStatic: !keepStatic,
      reporters: ["json", "progress"],
      jsonReporter: { fileName: reportFile },
    },
    null,
    2,
  ),
)
// A report left by an earlier run is never read as this one's.
rmSync(join(root, reportFile), { force: true })
const t0 = Date.now()
const run = spawnSync(join(root, "node_modules/.bin/stryker"), ["run", config, ...strykerArgs], {
  cwd: root,
  stdio: "inherit",
})
const seconds = Math.round((Date.now() - t0) / 1000)
if (run.status !== 0) {
  console.error(`[changed] stryker ended with exit ${run.status} after ${seconds} s`)
  process.exit(2)
}

interface Mutant {
  readonly status: string
  readonly mutatorName: string
  readonly replacement?: string
  readonly location: { readonly start: { readonly line: number; readonly column: number } }
}
// No report when none of the files has a mutant (types only): each is then said to have none.
const report = (
  existsSync(join(root, reportFile)) ? JSON.parse(readFileSync(join(root, reportFile), "utf8")) : { files: {} }
) as {
  readonly files: Readonly<Record<string, { readonly source: string; readonly mutants: ReadonlyArray<Mutant> }>>
}
// Killed over every valid mutant; a timeout is a survivor here, as in the fresh run's score.
const missed = (m: Mutant) => m.status === "Survived" || m.status === "NoCoverage" || m.status === "Timeout"
let under = 0
console.log(`[changed] ${seconds} s; timeouts counted as survived, static mutants ${keepStatic ? "kept" : "left out"}`)
console.log(`${"file".padEnd(48)}  score  floor  mutants  killed  missed`)
for (const file of files) {
  const mutants = report.files[file]?.mutants.filter((m) => m.status === "Killed" || missed(m)) ?? []
  const killed = mutants.filter((m) => m.status === "Killed").length
  if (mutants.length === 0) {
    console.log(`${file.padEnd(48)}    n/a  ${String(floorOf(file)).padStart(4)}%  no mutant`)
    continue
  }
  const score = (100 * killed) / mutants.length
  const low = score < floorOf(file)
  if (low) under++
  console.log(
    `${file.padEnd(48)} ${score.toFixed(1).padStart(5)}%  ${String(floorOf(file)).padStart(4)}%  ${String(mutants.length).padStart(7)} ${String(killed).padStart(7)} ${String(mutants.length - killed).padStart(7)}${low ? "  UNDER THE FLOOR" : ""}`,
  )
}
for (const file of files) {
  const entry = report.files[file]
  if (entry === undefined) continue
  const mutants = entry.mutants.filter((m) => m.status === "Killed" || missed(m))
  const killed = mutants.filter((m) => m.status === "Killed").length
  if (mutants.length === 0 || (100 * killed) / mutants.length >= floorOf(file)) continue
  const lines = entry.source.split("\n")
  console.log(
    `\n${file}: what no test noticed (a rule to state in a test, or an equivalent to list in docs/testing.md)`,
  )
  for (const m of entry.mutants.filter(missed)) {
    const at = m.location.start
    console.log(
      `  ${at.line}:${at.column} ${m.status} ${m.mutatorName}: ${(lines[at.line - 1] ?? "").trim().slice(0, 100)}  →  ${(m.replacement ?? "").replace(/\s+/g, " ").slice(0, 70)}`,
    )
  }
}
console.log(under === 0 ? "[changed] every file at or over its floor" : `[changed] ${under} file(s) under the floor`)
process.exit(under === 0 ? 0 : 1)
