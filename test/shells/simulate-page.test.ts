// `simulate FILE --html OUT.html` as a person opens it: the page is loaded in headless Chromium
// (Debian's `chromium`, installed by .ci/run), and what the browser drew is counted against the
// replay's own figures: a band per failing run, a mark per provisioner.failing, for every row.
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { cliPath } from "../support/cli.ts"

const top = join(import.meta.dirname, "../..")
const cli = cliPath
const scratch = mkdtempSync(join(tmpdir(), "mesh-core-page-"))

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
})
