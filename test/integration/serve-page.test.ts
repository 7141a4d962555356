// serve's live page (issue 29) as an operator leaves it open: Debian's Chromium (installed by .ci/run),
// driven by playwright-core, on `/` of a running serve over the real NATS and PostgreSQL. A release is
// made while the page is open; the page shows the plan appear with its tier and passes, pass and leave
// the plans in flight — all without a reload. The screenshot is kept in reports/pages/.
import { mkdirSync, statSync } from "node:fs"
import { join } from "node:path"
import { jetstream } from "@nats-io/jetstream"
import { headers } from "@nats-io/transport-node"
import { type Browser, chromium, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { busNames, saidAtHeader } from "../../shells/src/bus/subjects.ts"
import { liveMesh, machinesRunningTheMesh, shippedMesh } from "../support/mesh-run.ts"
import { failingBody } from "../support/private-controller.ts"
import { eventually, requireNats, requireServers, runCli, saying } from "../support/servers.ts"

const mesh = liveMesh("page", {
  MESH_GATE_SETTLE: "3s",
  MESH_GATE_BOUND: "20s",
  MESH_GATE_EVERY: "1s",
  MESH_GATE_PASSES: "3",
})
const { prefix, env, start } = mesh
const artifacts = join(import.meta.dirname, "../../reports/pages")
let browser: Browser | undefined
let page: Page
let url = ""

beforeAll(async () => {
  await requireServers()
  mesh.apply(shippedMesh())
  mesh.makeKey()
  const serve = start(["serve"])
  url = await eventually(
    "serve's live page said",
    () => /the live page at (http:\/\/\S+\/)/.exec(serve.output())?.[1],
    60_000,
  )
  await saying("serve judging", serve, "judging open plans", 60_000)
  await machinesRunningTheMesh(start, env, ["hq-3", "hq-4"], mesh.keyFile)
  try {
    browser = await chromium.launch({
      executablePath: "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
    })
  } catch (e) {
    throw new Error(`chromium (/usr/bin/chromium) could not be started; bash .ci/run installs it: ${String(e)}`)
  }
  page = await browser.newPage({ viewport: { width: 1260, height: 640 } })
}, 240_000)

afterAll(async () => {
  await browser?.close()
  await mesh.stop()
})

/** A provider's failing word for consumer c`i`, said at `at`. */
const sayFailing = async (i: number, at: string) => {
  const nc = await requireNats()
  try {
    const h = headers()
    h.set(saidAtHeader, at)
    await jetstream(nc).publish(busNames(prefix).failing, JSON.stringify(failingBody(i)), {
      headers: h,
      timeout: 5_000,
    })
  } finally {
    await nc.close()
  }
}

const attr = (selector: string, name: string) => page.locator(selector).getAttribute(name, { timeout: 1_000 })

describe("serve's live page", () => {
  it("shows the lease's holder and epoch, then a release's plan appear with its tier and passes, pass and leave, without a reload", async () => {
    const fetched: Array<string> = []
    page.on("request", (r) => fetched.push(r.url()))
    await page.goto(url)
    await page.waitForSelector('#lease[data-state="held"]', { timeout: 10_000 })
    expect(await attr("#lease", "data-epoch")).toMatch(/^[1-9]\d*$/)
    expect(await attr("#lease", "data-holder")).toMatch(/\S/)
    expect(await page.locator("#plans tr.plan").count()).toBe(0)
    expect(await attr("h1", "data-well")).toBe("true")
    // Two failing standings: one said an hour ago (stale: nobody has said it for over MESH_STALE_AFTER,
    // 30m), one said now.
    await sayFailing(0, new Date(Date.now() - 3_600_000).toISOString())
    await sayFailing(1, new Date().toISOString())
    await page.waitForSelector("#failing tr.standing >> nth=1", { timeout: 15_000 })
    expect(await page.locator('#failing tr.standing[data-stale="true"]').count()).toBe(1)
    expect(await attr('#failing tr.standing[data-stale="true"]', "data-consumer")).toBe("c0")
    expect(await attr("h1", "data-well")).toBe("false")
    // A reload would lose this, and the page's own count of frames would start again.
    await page.evaluate("window.stillTheSamePage = true")

    const released = runCli(
      ["release", "letta", "--build", "letta-205", "--commit", "77aa01b9cd", "--first", "hq-3"],
      env,
    )
    expect(released.code, released.err).toBe(0)
    const row = page.locator("#plans tr.plan")
    await row.first().waitFor({ timeout: 15_000 })
    const id = await row.first().getAttribute("data-plan")
    expect(id).toMatch(/\S/)
    expect(await row.first().getAttribute("data-needed")).toBe("3")
    expect(await row.first().getAttribute("data-tier")).toBe("1")
    // Its passes counted on the page as the gate finds it healthy, one judging after another.
    const seen = new Set<string>()
    await eventually(
      "passes 2 of 3 shown",
      async () => {
        const passes = await page
          .locator(`#plans tr.plan[data-plan="${id}"]`)
          .getAttribute("data-passes", { timeout: 1_000 })
          .catch(() => null)
        if (passes !== null) seen.add(passes)
        return seen.has("2") ? true : undefined
      },
      30_000,
    )
    mkdirSync(artifacts, { recursive: true })
    const png = join(artifacts, "serve-page.png")
    await page.screenshot({ path: png, fullPage: true })
    expect(statSync(png).size).toBeGreaterThan(10_000)

    // Passed: it leaves the plans in flight, and is its module's newest ended plan.
    await page.waitForSelector(`#ended tr.plan[data-plan="${id}"][data-state="passed"]`, { timeout: 40_000 })
    await page.waitForSelector(`#plans tr.plan[data-plan="${id}"]`, { state: "detached", timeout: 20_000 })
    expect(await page.evaluate("window.stillTheSamePage === true")).toBe(true)
    expect(Number(await page.evaluate("document.body.dataset.frames"))).toBeGreaterThan(3)
    // Read-only and self-contained: the page and its stream, nothing else.
    expect([...new Set(fetched.map((u) => new URL(u).pathname))].sort()).toEqual(["/", "/live"])
  }, 120_000)
})
