// After a run over some files (`--mutate`), puts back the results of every other file as they were
// before it. Usage:
//
//   node test/mutation/keep-stale.ts REV 'core/src/facts/**' [more --mutate globs]
//
// Why: StrykerJS 10 rewrites the incremental file's entry of every file, not only those it mutated:
// a file outside the run that changed since its results were taken gets its new source, the results
// of its mutants that still match, and none for its changed code, which it never tests. The file
// then reads as up to date (`mutation:scores` no longer names it stale) with its changed code
// counted nowhere. REV is the commit whose reports/stryker-incremental.json the run started from;
// the files outside the globs get that commit's entry back, so they read as stale until a run
// over them tests their changed code.
import { execFileSync } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { join, matchesGlob } from "node:path"

const root = join(import.meta.dirname, "../..")
const file = join(root, "reports/stryker-incremental.json")
const [rev, ...globs] = process.argv.slice(2)
if (rev === undefined || globs.length === 0) {
  console.error(
    "usage: node test/mutation/keep-stale.ts REV GLOB... (the commit the run started from, and its --mutate globs)",
  )
  process.exit(2)
}

interface Test {
  readonly id: string
  readonly name: string
}
interface Mutant {
  coveredBy?: Array<string> | undefined
  killedBy?: Array<string> | undefined
}
interface FileResult {
  readonly source: string
  readonly mutants: Array<Mutant>
}
interface Report {
  files: Record<string, FileResult>
  testFiles: Record<string, { tests: ReadonlyArray<Test> }>
}
const before = JSON.parse(
  execFileSync("git", ["show", `${rev}:reports/stryker-incremental.json`], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 1 << 30,
  }),
) as Report
const after = JSON.parse(readFileSync(file, "utf8")) as Report
const globList = globs.flatMap((g) => g.split(","))
const ran = (path: string) => globList.some((g) => matchesGlob(path, g))

// Test ids are numbered per report: an entry put back names its tests by the ids of this one.
const idOf = new Map<string, string>()
for (const [path, { tests }] of Object.entries(after.testFiles))
  for (const t of tests) idOf.set(`${path}\n${t.name}`, t.id)
const renamed = new Map<string, string | undefined>()
for (const [path, { tests }] of Object.entries(before.testFiles))
  for (const t of tests) renamed.set(t.id, idOf.get(`${path}\n${t.name}`))
const ids = (list: Array<string> | undefined) => list?.flatMap((id) => renamed.get(id) ?? [])

const kept: Array<string> = []
for (const [path, entry] of Object.entries(before.files)) {
  // Only a file whose source the run rewrote: the others' entries are the same results, under this report's test ids.
  if (ran(path) || after.files[path] === undefined || after.files[path].source === entry.source) continue
  after.files[path] = {
    ...entry,
    mutants: entry.mutants.map((m) => ({ ...m, coveredBy: ids(m.coveredBy), killedBy: ids(m.killedBy) })),
  }
  kept.push(path)
}
writeFileSync(file, JSON.stringify(after, null, 2))
console.log(kept.length === 0 ? "nothing to put back" : `put back as they were at ${rev}: ${kept.join(", ")}`)
