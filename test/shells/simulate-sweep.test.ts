// `simulate FILE --sweep name=v1,v2,…` as a person runs it, and the one reading of the log: a bad
// line anywhere, even after megabytes of decisions, stops it before anything is printed.
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { gunzipSync } from "node:zlib"
import { describe, expect, it } from "vitest"
import { cliPath } from "../support/cli.ts"

const top = join(import.meta.dirname, "../..")
const cli = cliPath
const run = (...args: Array<string>) => {
  const r = spawnSync(process.execPath, [cli, "simulate", ...args], {
    cwd: top,
    encoding: "utf8",
    maxBuffer: 256 << 20,
  })
  return { code: r.status, out: r.stdout, err: r.stderr }
}
const scratch = mkdtempSync(join(tmpdir(), "mesh-core-sweep-"))
const day179 = "examples/identity-issue-179.facts.jsonl.gz"

describe("simulate --sweep", () => {
  it("the issue-179 day under four values of failingAfter: a row each, announcing later and less as it grows", () => {
    const r = run(day179, "--sweep", "failingAfter=1m,2m,5m,10m")
    expect(r.err).toBe("")
    expect(r.code).toBe(0)
    const rows = r.out.split("\n").filter((l) => l.startsWith("failingAfter="))
    expect(rows.map((l) => l.split(/\s{2,}/).slice(0, 5))).toEqual([
      ["failingAfter=1m", "174", "3", "1m0s / 1m0s / 1m0s", "3.0 min"],
      ["failingAfter=2m", "174", "3", "2m0s / 2m0s / 2m0s", "6.0 min"],
      ["failingAfter=5m", "171", "3", "5m0s / 5m0s / 5m0s", "15.0 min"],
      ["failingAfter=10m", "171", "3", "10m0s / 10m0s / 10m0s", "30.0 min"],
    ])
    expect(r.out).toContain("82950 facts, each replayed 4 times in one reading")
  })

  it("the row of the recorded value is what the plain replay says; --json gives the same figures for scripts", () => {
    const json = JSON.parse(run(day179, "--sweep", "failingAfter=5m,10m", "--json").out)
    expect(json.sweep[0]).toMatchObject({
      point: { failingAfter: "5m" },
      failing: 171,
      recovered: 3,
      runs: 3,
      announcedRuns: 3,
      toFirst: { min: 300_000, median: 300_000, max: 300_000 },
      inferred: 0,
    })
    expect(run(day179).out).toContain("announcements: 171 provisioner.failing, 3 provisioner.recovered; 141 lines said")
    expect(json.sweep[0].said).toBe(141)
  })

  it("a grid of two settings, with --set under every point", () => {
    const r = run(
      "examples/small.facts.jsonl",
      "--set",
      "verifyEvery=30s",
      "--sweep",
      "failingAfter=30s,5m",
      "--sweep",
      "sayAgainEvery=1m,15m",
    )
    expect(r.code).toBe(0)
    expect(r.out).toContain("with verifyEvery=30s")
    expect(
      r.out
        .split("\n")
        .filter((l) => l.startsWith("failingAfter="))
        .map((l) => l.split(/\s{2,}/)[0]),
    ).toEqual([
      "failingAfter=30s sayAgainEvery=1m",
      "failingAfter=30s sayAgainEvery=15m",
      "failingAfter=5m sayAgainEvery=1m",
      "failingAfter=5m sayAgainEvery=15m",
    ])
  })

  it("a bad sweep, or a sweep of a gate's log, stops it with exit code 2 and one line", () => {
    for (const [args, said] of [
      [["--sweep", "failingAftr=1m,2m"], `no setting "failingAftr"`],
      [["--sweep", "failingAfter=1m,later"], `"later" is not a duration`],
      [["--sweep", "failingAfter=1m", "--sweep", "every=5s", "--sweep", "verifyEvery=1m"], "a grid of two"],
    ] as const) {
      const r = run("examples/small.facts.jsonl", ...args)
      expect(r.code).toBe(2)
      expect(r.out).toBe("")
      expect(r.err).toContain(said)
    }
    for (const [args, said] of [
      [
        ["--sweep", "failingAfter=1m,2m"],
        `no gate setting "failingAfter"; the gate's settings are settle, bound, every, passes`,
      ],
      [["--sweep", "passes=1,many"], "--sweep passes=1,many: "],
    ] as const) {
      const gate = run("examples/gate-crash-loop.facts.jsonl", ...args)
      expect(gate.code).toBe(2)
      expect(gate.out).toBe("")
      expect(gate.err).toContain(said)
    }
    // A controller's sweep draws its page: one row per point.
    const page = join(scratch, "gate.html")
    const drawn = run("examples/gate-crash-loop.facts.jsonl", "--sweep", "bound=5m,20m", "--html", page)
    expect(drawn.code).toBe(0)
    expect(readFileSync(page, "utf8").match(/<tr class="row"/g)?.length).toBe(2)
  })

  it("a controller's release day under the gate's settings: per value its verdicts, rollbacks and time to verdict", () => {
    const r = run("examples/release-day.facts.jsonl", "--sweep", "settle=30s,2m,5m")
    expect(r.err).toBe("")
    expect(r.code).toBe(0)
    const rows = r.out.split("\n").filter((l) => l.startsWith("settle="))
    // letta-204 crash-loops and is failed and put back whatever the settle; letta-205 passes after
    // settle plus the passes, so its verdict comes later as settle grows, never sooner.
    expect(rows.map((l) => l.split(/\s{2,}/).slice(0, 6))).toEqual([
      ["settle=30s", "20", "1", "1", "1 (1)", "2m40s / 2m40s / 10m20s"],
      ["settle=2m", "20", "1", "1", "1 (1)", "2m40s / 2m40s / 10m20s"],
      ["settle=5m", "24", "1", "1", "1 (1)", "5m20s / 5m20s / 10m20s"],
    ])
    expect(r.out).toContain("recorded under settle=2m0s bound=10m0s every=40s passes=3")
    // The recorded value's row is what the plain replay's summary says.
    expect(run("examples/release-day.facts.jsonl").out).toContain("verdicts: 1 passed, 1 failed; rollbacks: 1 ")
    const json = JSON.parse(
      run("examples/release-day.facts.jsonl", "--sweep", "settle=2m", "--sweep", "passes=3,5", "--json").out,
    )
    expect(json.sweep.map((p: { point: unknown }) => p.point)).toEqual([
      { settle: "2m", passes: "3" },
      { settle: "2m", passes: "5" },
    ])
    expect(json.sweep[0]).toMatchObject({
      passed: 1,
      failed: 1,
      rollbacks: 1,
      toVerdict: { min: 160_000, median: 160_000, max: 620_000 },
      inferred: 0,
    })
    expect(json.sweep[1].toVerdict.min).toBeGreaterThan(json.sweep[0].toVerdict.min)
  })

  it("a bad last line stops it before anything is printed, though the day before it is megabytes of --json decisions", () => {
    const text = gunzipSync(readFileSync(join(top, day179)))
      .toString("utf8")
      .trimEnd()
    const lines = text.split("\n").length
    const file = join(scratch, "bad-last-line.jsonl")
    writeFileSync(file, `${text}\n{"at":"2026-10-05T23:59:59.000Z","fact":"create","as":"letta","outcome":"maybe"}\n`)
    for (const args of [["--json"], [], ["--sweep", "failingAfter=1m,2m"]]) {
      const r = run(file, ...args)
      expect(r.code).toBe(2)
      expect(r.out).toBe("")
      expect(r.err).toBe(`${file}:${lines + 1}: outcome: must be one of "ok", "error", not "maybe"\n`)
    }
    // And the same day without it prints every decision, in order, through the held output.
    const good = join(scratch, "good.jsonl")
    writeFileSync(good, `${text}\n`)
    const all = run(good, "--json")
    expect(all.code).toBe(0)
    const printed = all.out.trimEnd().split("\n")
    const summary = JSON.parse(printed.at(-1)!).summary
    expect(summary.facts).toBe(82_950)
    // Under its own settings every recorded answer is one call decision: none lost in holding them.
    expect(summary.inferred + summary.unasked).toBe(0)
    expect(printed.filter((l) => l.includes(`"kind":"called"`)).length).toBe(summary.facts - summary.passes)
    const times = printed.slice(0, -1).map((l) => Date.parse(JSON.parse(l).at))
    expect(times.every((t, i) => i === 0 || t >= times[i - 1]!)).toBe(true)
  })
})
