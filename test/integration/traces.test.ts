// Traces (issue 44): serve with OTEL_EXPORTER_OTLP_ENDPOINT set sends its spans over OTLP/HTTP to a
// collector, here a small HTTP server of the test's own that keeps what it is sent; without the
// setting it sends nothing to it.
import { spawn } from "node:child_process"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { cliPath } from "../support/cli.ts"
import { cleanUp, databaseUrl, natsUrl, requireNats, requirePostgres } from "../support/servers.ts"

const name = `traces_${process.pid}`
const received: Array<{ path: string; body: string }> = []
const collector = createServer((req, res) => {
  let body = ""
  req.on("data", (c: Buffer) => void (body += c.toString()))
  req.on("end", () => {
    received.push({ path: req.url ?? "", body })
    res.writeHead(200, { "content-type": "application/json" }).end("{}")
  })
})
let endpoint = ""

beforeAll(async () => {
  await (await requireNats()).close()
  await (await requirePostgres()).end()
  await new Promise<void>((r) => collector.listen(0, "127.0.0.1", r))
  endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`
})
afterAll(async () => {
  collector.close()
  await cleanUp(name, name)
})

/** serve for `ms`, then SIGTERM; its exit code. */
const serveFor = (ms: number, env: Record<string, string>) =>
  new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, [cliPath, "serve", "--metrics-addr", "127.0.0.1:0"], {
      env: {
        PATH: process.env["PATH"] ?? "",
        NATS_URL: natsUrl,
        DATABASE_URL: databaseUrl,
        MESH_BUS_PREFIX: name,
        MESH_STORE_SCHEMA: name,
        ...env,
      },
      stdio: "ignore",
    })
    setTimeout(() => child.kill("SIGTERM"), ms)
    child.on("exit", (code) => resolve(code))
  })

const spanNames = (body: string): Array<string> =>
  JSON.parse(body).resourceSpans.flatMap((r: { scopeSpans: Array<{ spans: Array<{ name: string }> }> }) =>
    r.scopeSpans.flatMap((s) => s.spans.map((x) => x.name)),
  )

describe("serve's traces", () => {
  it("none without OTEL_EXPORTER_OTLP_ENDPOINT", async () => {
    expect(await serveFor(4_000, {})).toBe(0)
    expect(received).toEqual([])
  })

  it("with it: the spans of the store, the bus and the gate over OTLP/HTTP, as service mesh-controller", async () => {
    expect(await serveFor(6_000, { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint })).toBe(0)
    expect(received.length).toBeGreaterThan(0)
    expect(new Set(received.map((r) => r.path))).toEqual(new Set(["/v1/traces"]))
    const names = new Set(received.flatMap((r) => spanNames(r.body)))
    for (const n of [
      "Store.ping",
      "Bus.ping",
      "Program.drive",
      "Gate.run",
      "ControllerLease.look",
      "SchemaReach.record",
    ])
      expect([...names]).toContain(n)
    expect(received[0]?.body).toContain('"service.name"')
    expect(received[0]?.body).toContain("mesh-controller")
  })
})
