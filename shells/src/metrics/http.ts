// The controller's watch port (issue 10), as controller-runtime and Argo serve it: `/metrics` in
// Prometheus' text exposition format, `/healthz` (alive: its loops turn) and `/readyz` (holds the
// lease, and the store and bus answer; 503 with one reason a line otherwise). Node's own http module:
// `/` the live page and `/live` its stream (issue 29, metrics/live.ts) where a LivePage is given (serve).
// A few fixed GET routes need no router, and it is stable where Effect's HTTP server is new in 4.1.
// What each answer says is the core's (readiness.ts); this listens, asks and writes.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { defaultMetricsAddress, ListenAddressText, parseListenAddress } from "@mesh-core/core/controller/metrics"
import { probeAnswer } from "@mesh-core/core/controller/readiness"
import { livePage } from "@mesh-core/core/status/live"
import { Config, Context, Data, Effect, Layer, Option } from "effect"
import { Journal } from "../journal.ts"
import { Readiness } from "./readiness.ts"
import { Metrics } from "./service.ts"
import { type LiveHub, LivePage, liveHub } from "./live.ts"

export class MetricsAddressRefused extends Data.TaggedError("MetricsAddressRefused")<{
  readonly address: string
  readonly reason: string
  readonly cause?: unknown
}> {
  override get message(): string {
    return `the metrics port cannot listen on ${this.address}: ${this.reason}`
  }
}

/** Where the watch port listens, once it does (the port the system gave when 0 was asked). */
export class MetricsServer extends Context.Service<
  MetricsServer,
  { readonly host: string; readonly port: number; readonly url: string }
>()("mesh-core/MetricsServer") {}

/** `MESH_METRICS_ADDR`, decoded by the core's Schema; default 127.0.0.1:9464. `--metrics-addr` overrides it. */
export const metricsAddressConfig = Config.schema(ListenAddressText, "MESH_METRICS_ADDR").pipe(
  Config.withDefault(defaultMetricsAddress),
)

const text = (res: ServerResponse, status: number, body: string, contentType = "text/plain; charset=utf-8") => {
  res.writeHead(status, { "content-type": contentType, "cache-control": "no-store" })
  res.end(body)
}

const handle =
  (metrics: Metrics["Service"], readiness: Readiness["Service"], live: LiveHub | undefined) =>
  (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? "/").split("?")[0]
    if (req.method !== "GET" && req.method !== "HEAD") return text(res, 405, "only GET\n")
    if (live !== undefined && path === "/") return text(res, 200, page, "text/html; charset=utf-8")
    if (live !== undefined && path === "/live") return live.open(req, res)
    const answer: Effect.Effect<void> =
      path === "/metrics"
        ? metrics.exposition.pipe(
            Effect.map((e) => text(res, 200, e.body, e.contentType)),
            Effect.catch((e) => Effect.sync(() => text(res, 500, `${e.message}\n`))),
          )
        : path === "/healthz"
          ? Effect.map(readiness.alive, (v) => {
              const a = probeAnswer(v, "alive")
              text(res, a.status, a.body)
            })
          : path === "/readyz"
            ? Effect.map(readiness.ready, (v) => {
                const a = probeAnswer(v, "ready")
                text(res, a.status, a.body)
              })
            : Effect.sync(() =>
                text(
                  res,
                  404,
                  `not found: ${live === undefined ? "" : "/ (the live page), "}/metrics, /healthz and /readyz are served\n`,
                ),
              )
    Effect.runFork(answer.pipe(Effect.catchCause((c) => Effect.sync(() => text(res, 500, `${String(c)}\n`)))))
  }

const page = livePage()

const listen = (server: Server, host: string, port: number) =>
  Effect.callback<AddressInfo, MetricsAddressRefused>((resume) => {
    const onError = (e: Error) =>
      resume(Effect.fail(new MetricsAddressRefused({ address: `${host}:${port}`, reason: e.message, cause: e })))
    server.once("error", onError)
    server.listen(port, host, () => {
      server.off("error", onError)
      const a = server.address()
      if (a === null || typeof a === "string")
        resume(Effect.fail(new MetricsAddressRefused({ address: `${host}:${port}`, reason: "no TCP address" })))
      else resume(Effect.succeed(a))
    })
  })

/**
 * Serves `/metrics`, `/healthz` and `/readyz` on `address` (host:port) for as long as the layer's
 * scope is open; closing it stops listening and ends open connections.
 */
export const metricsHttpLayer = (address: string) =>
  Layer.effect(
    MetricsServer,
    Effect.gen(function* () {
      const parsed = parseListenAddress(address)
      if (!parsed.ok) return yield* Effect.fail(new MetricsAddressRefused({ address, reason: parsed.why }))
      const metrics = yield* Metrics
      const readiness = yield* Readiness
      const livePageGiven = yield* Effect.serviceOption(LivePage)
      const live = Option.isSome(livePageGiven) ? yield* liveHub(livePageGiven.value) : undefined
      const server = createServer(handle(metrics, readiness, live))
      const bound = yield* Effect.acquireRelease(listen(server, parsed.host, parsed.port), () =>
        Effect.callback<void>((resume) => {
          server.close(() => resume(Effect.void))
          server.closeAllConnections()
        }),
      )
      const host = bound.family === "IPv6" ? `[${bound.address}]` : bound.address
      const url = `http://${host}:${bound.port}`
      // Said where a journal is given (serve): with port 0 the system picks the port, and a person needs it.
      const journal = yield* Effect.serviceOption(Journal)
      if (Option.isSome(journal))
        yield* journal.value.say(
          `[metrics] /metrics, /healthz and /readyz on ${url}${live === undefined ? "" : `; the live page at ${url}/`}`,
        )
      return MetricsServer.of({ host: bound.address, port: bound.port, url })
    }),
  )
