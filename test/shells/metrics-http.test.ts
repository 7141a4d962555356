// The watch port (issue 10): started on a free port, scraped, and its figures checked against the
// updates applied, as a model of the exposition format computes them (test/support/metrics-model.ts,
// independent of prom-client); /readyz 503 with reasons unless the lease is held and the store and
// bus answer; /healthz 200 while the loops turn.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { type MetricUpdate, metricList, metricUpdates, type Observed } from "@mesh-core/core/controller/metrics"
import { Effect, Layer } from "effect"
import { refusedRelease } from "../../examples/metrics-demo.ts"
import { MetricsAddressRefused, metricsHttpLayer, MetricsServer } from "../../shells/src/metrics/http.ts"
import { type LeaseSeen, Readiness, type ReadinessOptions } from "../../shells/src/metrics/readiness.ts"
import { Metrics } from "../../shells/src/metrics/service.ts"
import { only, parseExposition } from "../support/exposition.ts"
import { modelOf } from "../support/metrics-model.ts"

const well = { lease: { held: true, holder: "test", epoch: 3 }, store: true, bus: true }

/** Runs `f` with the watch port up on a free port, over the test registry and the given probes. */
const withPort = <A>(
  seen: { readonly lease: LeaseSeen; readonly store: boolean; readonly bus: boolean },
  f: (url: string) => Effect.Effect<A, unknown, Metrics | Readiness>,
  options: ReadinessOptions = {},
  metrics = Metrics.layerTest,
) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const { url } = yield* MetricsServer
      return yield* f(url)
    }).pipe(
      Effect.provide(
        metricsHttpLayer("127.0.0.1:0").pipe(
          Layer.provideMerge(Layer.mergeAll(metrics, Readiness.layerTest(seen, options))),
        ),
      ),
    ),
  )

interface Got {
  readonly status: number
  readonly type: string
  readonly body: string
}
const get = (url: string): Effect.Effect<Got, unknown> =>
  Effect.tryPromise(async () => {
    const r = await fetch(url)
    return { status: r.status, type: r.headers.get("content-type") ?? "", body: await r.text() }
  })

const applied = (updates: ReadonlyArray<MetricUpdate>) =>
  Effect.gen(function* () {
    const m = yield* Metrics
    yield* m.apply(updates)
  })
const beat = (loop: string) =>
  Effect.gen(function* () {
    const r = yield* Readiness
    yield* r.beat(loop)
  })

describe("/metrics", () => {
  it("a failed release's exchanges, scraped: the figures are the model's, series for series, and typed as the catalogue says", async () => {
    const extra: ReadonlyArray<Observed> = [
      { kind: "loop", loop: "gate", seconds: 0.042, at: 1_764_000_000_000 },
      { kind: "lease", held: true, epoch: 7 },
      { kind: "plans-by-state", counts: { open: 2, failed: 1 } },
      { kind: "standings-failing", counts: { "credentials-rejected": 3 } },
      { kind: "words", outcome: "set-aside", count: 2 },
    ]
    const updates = [...refusedRelease(), ...extra.flatMap(metricUpdates)]
    const scrape = await withPort(well, (url) => Effect.andThen(applied(updates), get(`${url}/metrics`)))
    expect(scrape.status).toBe(200)
    expect(scrape.type).toContain("text/plain")
    const parsed = parseExposition(scrape.body)
    expect(only(parsed.samples, "mesh_")).toEqual(modelOf(metricList, updates))
    for (const m of metricList) expect(parsed.types.get(m.name), m.name).toBe(m.type)
    expect(parsed.samples.get('mesh_gate_verdicts_total{verdict="failed"}')).toBe(1)
    expect(parsed.samples.get('mesh_gate_rollbacks_total{outcome="rolled-back"}')).toBe(1)
    expect(parsed.samples.get('mesh_events_published_total{event="rolled-back",outcome="published"}')).toBe(1)
    expect(parsed.samples.get("mesh_lease_epoch")).toBe(7)
  })

  it("any list of observations, scraped, is the model's figures exactly (a census replaces what it replaces)", async () => {
    const obs: fc.Arbitrary<Observed> = fc.oneof(
      fc.record({
        kind: fc.constant("verdict" as const),
        verdict: fc.constantFrom("passed" as const, "failed" as const),
      }),
      fc.record({ kind: fc.constant("store-error" as const), operation: fc.constantFrom("open-plans", "save-plan") }),
      fc.record({
        kind: fc.constant("loop" as const),
        loop: fc.constantFrom("gate", "standings"),
        seconds: fc.double({ noNaN: true, min: 0, max: 40 }),
        at: fc.integer({ min: 0, max: 2e12 }),
      }),
      fc.record({
        kind: fc.constant("conditions-open" as const),
        counts: fc.dictionary(fc.constantFrom("warning", "urgent"), fc.nat(9)),
      }),
      fc.record({
        kind: fc.constant("lease" as const),
        held: fc.boolean(),
        epoch: fc.option(fc.nat(50), { nil: undefined }),
      }),
      fc.record({
        kind: fc.constant("published" as const),
        event: fc.constantFrom("verdict", "plan-paused", 'odd "name"\\'),
        ok: fc.boolean(),
      }),
    )
    await fc.assert(
      fc.asyncProperty(fc.array(obs, { maxLength: 25 }), async (list) => {
        const updates = list.flatMap(metricUpdates)
        const scrape = await withPort(well, (url) => Effect.andThen(applied(updates), get(`${url}/metrics`)))
        const got = only(parseExposition(scrape.body).samples, "mesh_")
        const want = modelOf(metricList, updates)
        expect([...got.keys()].sort()).toEqual([...want.keys()].sort())
        for (const [k, v] of want) expect(got.get(k), k).toBeCloseTo(v, 6)
      }),
      { numRuns: 15 },
    )
  })

  it("the live registry also carries the process's own metrics", async () => {
    const scrape = await withPort(well, (url) => get(`${url}/metrics`), {}, Metrics.layer)
    expect(scrape.body).toMatch(/^process_cpu_user_seconds_total /m)
    expect(scrape.body).toMatch(/^# TYPE mesh_gate_verdicts_total counter$/m)
  })
})

describe("/readyz and /healthz", () => {
  it("503 on a controller that does not hold the lease, naming who does; 200 once held with the store and bus answering", async () => {
    const notHeld = await withPort({ ...well, lease: { held: false, holder: "hq-2/4242/ab12" } }, (url) =>
      get(`${url}/readyz`),
    )
    expect(notHeld.status).toBe(503)
    expect(notHeld.body).toBe(
      "not ready:\n- this controller does not hold the controller lease (hq-2/4242/ab12 holds it)\n",
    )
    const held = await withPort(well, (url) => get(`${url}/readyz`))
    expect(held).toMatchObject({ status: 200, body: "ready\n" })
  })

  it("503 while the store or the bus does not answer, each said", async () => {
    const r = await withPort({ ...well, store: false, bus: false }, (url) => get(`${url}/readyz`))
    expect(r.status).toBe(503)
    expect(r.body).toContain("- the store has not answered: connection refused\n")
    expect(r.body).toContain("- the bus has not answered: connection refused\n")
  })

  it("/healthz is 200 while the loops turn, 503 naming a loop that stopped turning", async () => {
    const alive = await withPort(well, (url) => Effect.andThen(beat("gate"), get(`${url}/healthz`)))
    expect(alive).toMatchObject({ status: 200, body: "alive\n" })
    const stalled = await withPort(
      well,
      (url) =>
        Effect.gen(function* () {
          yield* beat("gate")
          yield* Effect.sleep("60 millis")
          return yield* get(`${url}/healthz`)
        }),
      { stallAfter: 20 },
    )
    expect(stalled.status).toBe(503)
    expect(stalled.body).toMatch(/^not alive:\n- the gate loop has not finished a pass for \d+ms \(more than 20ms\)\n$/)
  })

  it("anything else is 404, a write 405", async () => {
    const r = await withPort(well, (url) =>
      Effect.all([
        get(`${url}/`),
        Effect.tryPromise(() => fetch(`${url}/metrics`, { method: "POST" }).then((x) => x.status)),
      ]),
    )
    expect(r[0].status).toBe(404)
    expect(r[1]).toBe(405)
  })
})

describe("the address", () => {
  it("a port already taken, or an address that is none, stops it with a sentence naming the address", async () => {
    const taken = await withPort(well, (url) =>
      Effect.flip(Layer.build(metricsHttpLayer(url.replace("http://", ""))).pipe(Effect.scoped)),
    )
    expect(taken).toBeInstanceOf(MetricsAddressRefused)
    expect((taken as MetricsAddressRefused).message).toMatch(
      /^the metrics port cannot listen on 127\.0\.0\.1:\d+: .*EADDRINUSE/,
    )
    const bad = await Effect.runPromise(
      Effect.flip(
        Layer.build(metricsHttpLayer("nowhere")).pipe(
          Effect.scoped,
          Effect.provide(Layer.mergeAll(Metrics.layerTest, Readiness.layerTest(well))),
        ),
      ),
    )
    expect(bad.message).toContain("is not host:port")
  })
})
