// serve watched (issue 10) over the real NATS and PostgreSQL: its own process with `--metrics-addr`
// and `--log-format json`; providers' words and machines' health statements published on the bus; the
// scrape's counters moved by exactly what was sent, `/healthz` alive, `/readyz` ready on the serve that
// holds the controller lease and 503 on a second serve waiting as a candidate (issue 13), and the
// journal as JSON lines.
import { jetstream } from "@nats-io/jetstream"
import { headers } from "@nats-io/transport-node"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { busNames, saidAtHeader } from "../../shells/src/bus/subjects.ts"
import { parseExposition, only } from "../support/exposition.ts"
import { failingBody } from "../support/private-controller.ts"
import { liveMesh } from "../support/mesh-run.ts"
import { freePort } from "../support/private-servers.ts"
import { eventually, requireNats, requireServers, type Running } from "../support/servers.ts"

const mesh = liveMesh("metrics")
const names = busNames(mesh.prefix)
const delivery = mesh.names
let serve: Running
let candidate: Running
let base = ""
let candidateBase = ""

const get = async (path: string, at = base) => {
  const r = await fetch(`${at}${path}`)
  return { status: r.status, body: await r.text() }
}

const scrape = async () => only(parseExposition((await get("/metrics")).body).samples, "mesh_")

const sumOf = (samples: ReadonlyMap<string, number>, prefixOfKey: string) =>
  [...samples].filter(([k]) => k.startsWith(prefixOfKey)).reduce((n, [, v]) => n + v, 0)

beforeAll(async () => {
  await requireServers()
  const port = await freePort()
  base = `http://127.0.0.1:${port}`
  serve = mesh.start(["serve", "--metrics-addr", `127.0.0.1:${port}`, "--log-format", "json"])
  await eventually(
    "serve following the providers' words and the machines' health",
    () => {
      if (serve.process.exitCode !== null)
        throw new Error(`serve exited (${serve.process.exitCode}):\n${serve.output()}`)
      const out = serve.output()
      return out.includes("following") && out.includes(delivery.health) ? true : undefined
    },
    40_000,
  ).catch((e: Error) => {
    throw new Error(`${e.message}\n${serve.output()}`)
  })
  // A second serve of the same mesh: it waits as a candidate, its watch port answering all the same.
  const candidatePort = await freePort()
  candidateBase = `http://127.0.0.1:${candidatePort}`
  candidate = mesh.start(["serve", "--metrics-addr", `127.0.0.1:${candidatePort}`])
  await eventually(
    "the second serve waiting as a candidate",
    () => {
      if (candidate.process.exitCode !== null)
        throw new Error(`the second serve exited (${candidate.process.exitCode}):\n${candidate.output()}`)
      return candidate.output().includes("this controller waits as a candidate") ? true : undefined
    },
    40_000,
  ).catch((e: Error) => {
    throw new Error(`${e.message}\n${candidate.output()}`)
  })
}, 90_000)

afterAll(mesh.stop)

describe("serve --metrics-addr", () => {
  it("/healthz says alive on both; /readyz is ready on the holder of the controller lease and 503 naming the lease on the candidate", async () => {
    const h = await get("/healthz")
    expect(h.status).toBe(200)
    expect(h.body).toMatch(/^alive/)
    const ready = await eventually(
      "the holder's /readyz 200",
      async () => {
        const r = await get("/readyz")
        return r.status === 200 ? r : undefined
      },
      20_000,
    )
    expect(ready.body).toBe("ready\n")
    expect((await get("/healthz", candidateBase)).status).toBe(200)
    // Its store and bus answer: the lease is the one reason it is not ready.
    const r = await eventually(
      "the candidate's /readyz naming the lease alone",
      async () => {
        const r = await get("/readyz", candidateBase)
        return r.body.split("\n").filter((l) => l.startsWith("- ")).length === 1 ? r : undefined
      },
      20_000,
    )
    const holder = /held by (\S+) \(epoch/.exec(candidate.output())?.[1]
    expect(holder).toContain(`/${serve.process.pid}/`)
    expect(r).toEqual({
      status: 503,
      body: `not ready:\n- this controller does not hold the controller lease (${holder} holds it)\n`,
    })
    const held = only(parseExposition((await get("/metrics")).body).samples, "mesh_lease")
    expect(held.get("mesh_lease_held")).toBe(1)
    expect(held.get("mesh_lease_epoch")).toBeGreaterThanOrEqual(1)
    expect(
      only(parseExposition((await get("/metrics", candidateBase)).body).samples, "mesh_lease").get("mesh_lease_held"),
    ).toBe(0)
    expect((await get("/nothing")).status).toBe(404)
  })

  it("counts each providers' word and health statement it read by what became of it, and the conditions raised and cleared", async () => {
    const before = await scrape()
    const nc = await requireNats()
    const js = jetstream(nc)
    // Three words, each its own consumer, and one that is no word (set aside).
    for (let i = 0; i < 3; i++) {
      const h = headers()
      h.set(saidAtHeader, new Date(Date.parse("2026-10-05T06:10:00Z") + i).toISOString())
      await js.publish(names.failing, JSON.stringify(failingBody(i)), { headers: h, timeout: 5_000 })
    }
    await js.publish(names.failing, "not a word", { timeout: 5_000 })
    // Statements of hq-7: kept, older (not kept), kept and raising the condition, kept and clearing it; one unreadable.
    const say = (at: string, state: string) =>
      js.publish(
        delivery.healthSubject("hq-7"),
        JSON.stringify({ machine: "hq-7", at, resources: [{ resource: "x-main", module: "x", state, reason: "oom" }] }),
        { timeout: 5_000 },
      )
    await say("2026-12-01T10:00:02.000Z", "unhealthy")
    await say("2026-12-01T10:00:01.000Z", "healthy")
    await say("2026-12-01T10:00:03.000Z", "unhealthy")
    await say("2026-12-01T10:00:04.000Z", "healthy")
    await js.publish(delivery.healthSubject("hq-7"), "{", { timeout: 5_000 })
    await nc.close()

    const moved = (after: ReadonlyMap<string, number>, key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0)
    const after = await eventually(
      "every word and statement counted",
      async () => {
        const s = await scrape()
        const words =
          moved(s, 'mesh_standing_words_total{outcome="kept"}') +
          moved(s, 'mesh_standing_words_total{outcome="set-aside"}')
        const statements =
          sumOf(s, 'mesh_machine_messages_total{kind="statement"') -
          sumOf(before, 'mesh_machine_messages_total{kind="statement"')
        return words >= 4 && statements >= 5 ? s : undefined
      },
      30_000,
    )

    expect(moved(after, 'mesh_standing_words_total{outcome="kept"}')).toBe(3)
    expect(moved(after, 'mesh_standing_words_total{outcome="set-aside"}')).toBe(1)
    expect(moved(after, 'mesh_machine_messages_total{kind="statement",outcome="kept"}')).toBe(3)
    expect(moved(after, 'mesh_machine_messages_total{kind="statement",outcome="older-than-kept"}')).toBe(1)
    expect(moved(after, 'mesh_machine_messages_total{kind="statement",outcome="set-aside"}')).toBe(1)
    expect(sumOf(after, "mesh_conditions_raised_total") - sumOf(before, "mesh_conditions_raised_total")).toBe(1)
    expect(moved(after, 'mesh_condition_clears_total{by="DH"}')).toBe(1)
    expect(sumOf(after, 'mesh_machine_messages_total{kind="report"')).toBe(0)
    // Each follower's passes are timed and stamped.
    for (const loop of ["standings", "health", "reports"]) {
      expect(after.get(`mesh_loop_duration_seconds_count{loop="${loop}"}`) ?? 0, loop).toBeGreaterThan(0)
      expect(after.get(`mesh_loop_last_run_timestamp_seconds{loop="${loop}"}`), loop).toBeGreaterThan(
        Date.parse("2026-01-01") / 1000,
      )
    }
    expect(after.get("mesh_lease_held")).toBe(1)
  }, 60_000)

  it("writes its journal as JSON lines on standard error with --log-format json", () => {
    const lines = serve
      .output()
      .split("\n")
      .filter((l) => l.trim() !== "")
    // No text journal line: every bracketed area went into a JSON object.
    expect(
      lines.filter((l) => l.startsWith("[")),
      serve.output(),
    ).toEqual([])
    const entries = lines.filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as Record<string, unknown>)
    for (const e of entries)
      expect(Object.keys(e).sort()).toEqual(expect.arrayContaining(["area", "level", "message", "time"]))
    const following = entries.find(
      (e) => e["area"] === "controller" && String(e["message"]).startsWith(`following ${names.failing}`),
    )
    expect(following, serve.output()).toBeDefined()
    expect(following!["level"]).toBe("info")
    expect(following!["fields"]).toMatchObject({ worker: "standings" })
    expect(entries.some((e) => e["area"] === "controller" && String(e["message"]).startsWith("store "))).toBe(true)
    expect(
      entries.some(
        (e) =>
          e["area"] === "metrics" &&
          e["message"] === `/metrics, /healthz and /readyz on ${base}; the live page at ${base}/`,
      ),
      serve.output(),
    ).toBe(true)
  })
})
