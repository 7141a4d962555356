// The mutation score per decision area and for the whole core, from a StrykerJS report (the
// mutation-testing-report-schema JSON). Usage:
//
//   node test/mutation/scores.ts [REPORT] [--files] [--survivors AREA|FILE]
//
// REPORT defaults to reports/stryker-incremental.json: Stryker's incremental file, which keeps the
// results of every run and merges each run (`--mutate` one area) into them, so the figures are those
// of all the areas' last runs together. reports/mutation/mutation.json is the last run alone.
// The score is Stryker's: killed and timed out over every mutant that is valid (survived and not
// covered count against it; compile and runtime errors and ignored mutants do not count at all).
// A file of core/src the report has no result for is named as not run; a file whose source has
// changed since its results were taken is named as stale (its figures are of the older source).
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"

interface Mutant {
  readonly status: string
  readonly mutatorName: string
  readonly replacement?: string
  readonly location: { readonly start: { readonly line: number; readonly column: number } }
}
interface Report {
  readonly files: Readonly<Record<string, { readonly source: string; readonly mutants: ReadonlyArray<Mutant> }>>
}

const root = join(import.meta.dirname, "../..")
// The areas are core/src's folders, read from disk so that a new area is counted without a change here.
const areas: ReadonlyArray<string> = readdirSync(join(root, "core/src"), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
const shared = "shared (core/src/*.ts)"
const areaOf = (file: string): string => {
  const m = /core\/src\/([^/]+)\//.exec(file)
  return m !== null && areas.includes(m[1]!) ? m[1]! : shared
}

interface Tally {
  killed: number
  timeout: number
  survived: number
  noCoverage: number
}
const empty = (): Tally => ({ killed: 0, timeout: 0, survived: 0, noCoverage: 0 })
// --timeouts-survive: a mutant that timed out counts as survived (the reproducible score: a timeout
// under load is often a slow survivor, and it is not known to be caught until a test fails on it).
const timeoutsSurvive = process.argv.includes("--timeouts-survive")
const add = (t: Tally, status: string): void => {
  if (status === "Killed") t.killed++
  else if (status === "Timeout") {
    if (timeoutsSurvive) t.survived++
    else t.timeout++
  } else if (status === "Survived") t.survived++
  else if (status === "NoCoverage") t.noCoverage++
}
const valid = (t: Tally) => t.killed + t.timeout + t.survived + t.noCoverage
const score = (t: Tally) =>
  valid(t) === 0 ? "  n/a" : `${((100 * (t.killed + t.timeout)) / valid(t)).toFixed(1).padStart(5)}%`
const coveredScore = (t: Tally) =>
  t.killed + t.timeout + t.survived === 0
    ? "  n/a"
    : `${((100 * (t.killed + t.timeout)) / (t.killed + t.timeout + t.survived)).toFixed(1).padStart(5)}%`
const row = (name: string, t: Tally) =>
  `${name.padEnd(40)} ${score(t)}  ${coveredScore(t)}  ${String(valid(t)).padStart(6)} ${String(t.killed + t.timeout).padStart(7)} ${String(t.survived).padStart(9)} ${String(t.noCoverage).padStart(7)}`

const args = process.argv.slice(2)
const flag = (name: string) => args.indexOf(name)
const survivorsOf = flag("--survivors") >= 0 ? args[flag("--survivors") + 1] : undefined
const path =
  args.find((a, i) => !a.startsWith("--") && args[i - 1] !== "--survivors") ??
  join(root, "reports/stryker-incremental.json")
const report = JSON.parse(readFileSync(path, "utf8")) as Report

// The core's files now: a report may still hold results of files since removed, which count nowhere.
const coreFiles = readdirSync(join(root, "core/src"), { recursive: true, encoding: "utf8" })
  .filter((f) => f.endsWith(".ts"))
  .map((f) => `core/src/${f.split("\\").join("/")}`)
  .sort()
const current = Object.entries(report.files).filter(([file]) => existsSync(join(root, file)))
const stale = current
  .filter(([file, { source }]) => readFileSync(join(root, file), "utf8") !== source)
  .map(([file]) => file)
const notRun = coreFiles.filter((f) => report.files[f] === undefined)

const byArea = new Map<string, Tally>()
const byFile = new Map<string, Tally>()
const total = empty()
for (const [file, { mutants }] of current) {
  const a = byArea.get(areaOf(file)) ?? empty()
  const f = byFile.get(file) ?? empty()
  for (const m of mutants) {
    add(a, m.status)
    add(f, m.status)
    add(total, m.status)
  }
  byArea.set(areaOf(file), a)
  byFile.set(file, f)
}

console.log(`mutation scores from ${path}${timeoutsSurvive ? " (timeouts counted as survived)" : ""}`)
console.log(`${"area".padEnd(40)}  score  covered  mutants  killed  survived  no cov`)
for (const [area, t] of [...byArea].sort(([a], [b]) => a.localeCompare(b))) console.log(row(area, t))
console.log(row(`all core (${current.length} of ${coreFiles.length} files)`, total))
const ignored = current.reduce((n, [, { mutants }]) => n + mutants.filter((m) => m.status === "Ignored").length, 0)
if (ignored > 0) console.log(`ignored (static mutants under --ignoreStatic, counted nowhere): ${ignored}`)
if (notRun.length > 0) console.log(`not run: ${notRun.join(", ")}`)
if (stale.length > 0) console.log(`stale (changed since their results, re-run them): ${stale.join(", ")}`)
if (flag("--files") >= 0) {
  console.log("")
  for (const [file, t] of [...byFile].sort(([a], [b]) => a.localeCompare(b))) console.log(row(file, t))
}
if (survivorsOf !== undefined) {
  console.log("")
  for (const [file, { source, mutants }] of current) {
    if (areaOf(file) !== survivorsOf && !file.includes(survivorsOf)) continue
    const lines = source.split("\n")
    for (const m of mutants) {
      if (m.status !== "Survived" && m.status !== "NoCoverage" && !(timeoutsSurvive && m.status === "Timeout")) continue
      const at = m.location.start
      console.log(
        `${file}:${at.line}:${at.column} ${m.status} ${m.mutatorName}: ${(lines[at.line - 1] ?? "").trim().slice(0, 110)}  →  ${(m.replacement ?? "").replace(/\s+/g, " ").slice(0, 80)}`,
      )
    }
  }
}
