// `simulate FILE --html OUT.html` as a person opens it: the page is loaded in headless Chromium
// (Debian's `chromium`, installed by .ci/run), and what the browser drew is counted against the
// replay's own figures: for a provider's log, a band per failing run and a mark per
// provisioner.failing, for every row; for a controller's log, a lane per plan and tier, the failed
// verdict and its rollback where the log has them, and per sweep point the verdicts the sweep counted.
// Screenshots are kept in reports/pages/.
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { cliPath } from "../support/cli.ts"

const top = join(import.meta.dirname, "../..")
const cli = cliPath
const scratch = mkdtempSync(join(tmpdir(), "mesh-core-page-"))
const artifacts = join(top, "reports/pages")

const simulate = (...args: Array<string>) => {
  const r = spawnSync(process.execPath, [cli, "simulate", ...args], { cwd: top, encoding: "utf8", maxBuffer: 64 << 20 })
  expect(r.stderr).toBe("")
  expect(r.status).toBe(0)
  return r.stdout
}

const chromium = (...args: Array<string>) => {
  const r = spawnSync(
    "chromium",
    [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      `--user-data-dir=${mkdtempSync(join(tmpdir(), "mesh-core-chromium-"))}`,
      ...args,
    ],
    { encoding: "utf8", maxBuffer: 64 << 20, timeout: 120_000 },
  )
  if (r.error !== undefined) throw new Error(`chromium could not be run (bash .ci/run installs it): ${r.error.message}`)
  expect(r.status).toBe(0)
  return r.stdout
}

const count = (dom: string, pattern: RegExp): number => [...dom.matchAll(pattern)].length

interface SweepRow {
  readonly point: Record<string, string>
  readonly failing: number
  readonly runs: number
}

describe("simulate --html", () => {
  it("a sweep's page draws, in the browser, a band per failing run and a mark per announcement of every row, as the replay counted them", () => {
    const page = join(scratch, "sweep.html")
    const sweep = ["examples/small.facts.jsonl", "--sweep", "failingAfter=30s,5m", "--sweep", "sayAgainEvery=1m,15m"]
    const rows = (JSON.parse(simulate(...sweep, "--json")) as { sweep: ReadonlyArray<SweepRow> }).sweep
    simulate(...sweep, "--html", page)
    const dom = chromium("--dump-dom", `file://${page}`)
    expect(rows.length).toBe(4)
    rows.forEach((row, r) => {
      expect(count(dom, new RegExp(`<rect class="band[^"]*"[^>]*data-row="${r}"`, "g")), `bands of row ${r}`).toBe(
        row.runs,
      )
      expect(count(dom, new RegExp(`<rect class="mark failing"[^>]*data-row="${r}"`, "g")), `marks of row ${r}`).toBe(
        row.failing,
      )
      expect(dom).toContain(`failingAfter=${row.point["failingAfter"]} sayAgainEvery=${row.point["sayAgainEvery"]}`)
    })
    // Announcements move with the settings, so the rows differ: a page of one row four times would not pass.
    expect(new Set(rows.map((r) => r.failing)).size).toBeGreaterThan(1)
    // Self-contained: nothing is fetched (the one URL is the SVG namespace).
    expect([...readFileSync(page, "utf8").matchAll(/(?:src|href)=|https?:\/\/(?!www\.w3\.org\/2000\/svg)/g)]).toEqual(
      [],
    )
  })

  it("the issue-179 day's page: three consumers, one band each, 57 announcements each, under the settings it was recorded with; its screenshot is a picture", () => {
    const page = join(scratch, "179.html")
    const out = simulate("examples/identity-issue-179.facts.jsonl.gz", "--html", page)
    expect(out).toContain("announcements: 171 provisioner.failing")
    const dom = chromium("--dump-dom", `file://${page}`)
    for (const as of ["letta", "grafana", "outline"]) {
      expect(count(dom, new RegExp(`<rect class="band announced" data-consumer="${as}"`, "g"))).toBe(1)
      expect(count(dom, new RegExp(`<rect class="mark failing" data-consumer="${as}"`, "g"))).toBe(57)
      expect(count(dom, new RegExp(`<rect class="mark recovered" data-consumer="${as}"`, "g"))).toBe(1)
    }
    expect(dom).toContain("failingAfter=5m0s sayAgainEvery=15m0s")
    const png = join(scratch, "179.png")
    chromium("--window-size=1260,420", `--screenshot=${png}`, `file://${page}`)
    const bytes = readFileSync(png)
    expect(bytes.subarray(1, 4).toString("latin1")).toBe("PNG")
    expect(bytes.readUInt32BE(16)).toBe(1260)
    // A blank page compresses to a few KB; one with the table and three banded lanes does not.
    expect(statSync(png).size).toBeGreaterThan(15_000)
  })

  it("a controller's release day: both plans in their lanes, the failed gate and its rollback on letta-204's tier, the pass on letta-205's; its screenshot is a picture", () => {
    const page = join(scratch, "release-day.html")
    const out = simulate("examples/release-day.facts.jsonl", "--html", page)
    expect(out).toContain("letta-letta-204 (letta letta-204): failed")
    const dom = chromium("--dump-dom", `file://${page}`)
    const lanes = [...dom.matchAll(/<g class="plan" data-name="([^"]+)" data-lane="([^"]+)">/g)].map(
      (m) => `${m[1]} · ${m[2]}`,
    )
    expect(lanes).toEqual([
      "letta-letta-204 · tier 1 (hq-3)",
      "letta-letta-205 · tier 1 (hq-3)",
      "letta-letta-205 · the rest",
    ])
    const lane = (name: string, which: string) =>
      dom
        .slice(dom.indexOf(`<g class="plan" data-name="${name}" data-lane="${which}">`))
        .split(/<g class="(?:plan|condition)"/)[1]!
    const failing = lane("letta-letta-204", "tier 1 (hq-3)")
    expect(count(failing, /<g class="mark verdict failed"/g)).toBe(1)
    expect(count(failing, /<g class="mark rollback failed"/g)).toBe(1)
    expect(count(failing, /<g class="mark send failed"/g)).toBe(1)
    const passing = lane("letta-letta-205", "tier 1 (hq-3)")
    expect(count(passing, /<g class="mark verdict"/g)).toBe(1)
    expect(count(passing, /failed/g)).toBe(0)
    expect(count(lane("letta-letta-205", "the rest"), /<g class="mark send"/g)).toBe(1)
    // The condition the crash loop raised, as a span.
    expect(dom).toMatch(/<g class="condition" data-name="module\.letta\.hq-3\.unhealthy">/)
    expect(dom).toMatch(/<tr class="row" data-row="0" data-failed="1" data-rollbacks="1">/)
    mkdirSync(artifacts, { recursive: true })
    const png = join(artifacts, "controller-day.png")
    chromium("--window-size=1260,520", `--screenshot=${png}`, `file://${page}`)
    expect(readFileSync(png).subarray(1, 4).toString("latin1")).toBe("PNG")
    expect(statSync(png).size).toBeGreaterThan(15_000)
  })

  it("a controller's sweep over the gate's bound: a row per point, and the rows' verdicts and rollbacks are the sweep's", () => {
    const page = join(scratch, "release-sweep.html")
    const sweep = ["examples/release-day.facts.jsonl", "--sweep", "bound=5m,10m,20m"]
    const rows = (
      JSON.parse(simulate(...sweep, "--json")) as { sweep: ReadonlyArray<{ failed: number; rollbacks: number }> }
    ).sweep
    simulate(...sweep, "--html", page)
    const dom = chromium("--dump-dom", `file://${page}`)
    rows.forEach((row, r) => {
      expect(dom).toMatch(
        new RegExp(`<tr class="row" data-row="${r}" data-failed="${row.failed}" data-rollbacks="${row.rollbacks}">`),
      )
      expect(count(dom, new RegExp(`<g class="mark rollback failed" data-row="${r}"`, "g")), `row ${r}`).toBe(
        row.rollbacks,
      )
    })
    // Under bound=20m the crash loop would have passed: the sweep shows which setting lets it through.
    expect(rows.map((r) => r.failed)).toEqual([1, 1, 0])
  })
})
