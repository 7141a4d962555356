// The live page's stream on the watch port (issue 29), over a view the test changes: a page is sent
// the view at once and then only what changed (a quiet mesh costs its socket nothing but a keep-alive);
// nothing is read while no page is open; at most livePagesAtMost pages are open at once. Where no live
// page is given (a test's port), `/` is not found.
import { type LiveView, liveView, livePageEveryMs, livePagesAtMost } from "@mesh-core/core/status/live"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "vitest"
import { metricsHttpLayer, MetricsServer } from "../../shells/src/metrics/http.ts"
import { LivePage } from "../../shells/src/metrics/live.ts"
import { Readiness } from "../../shells/src/metrics/readiness.ts"
import { Metrics } from "../../shells/src/metrics/service.ts"

const well = { lease: { held: true, holder: "test", epoch: 3 }, store: true, bus: true }

/** A view with `n` open conditions, as the core draws it. */
const viewWith = (n: number): LiveView =>
  liveView({
    standings: {
      ok: true,
      value: { well: true, failing: [], stale: 0, setAside: { count: 0, newest: undefined }, staleAfterMs: 1 },
    },
    conditions: {
      ok: true,
      value: Array.from({ length: n }, (_, i) => ({
        key: `c${i}`,
        severity: "warning",
        summary: "s",
        raised: 0,
        source: "t",
      })),
    },
    plans: { ok: true, value: [] },
    held: { ok: true, value: [] },
    lease: { state: "none" },
    gate: { settle: 1, bound: 1, passes: 3, every: 1 },
  })

const world = { conditions: 0, reads: 0 }
const page = Layer.succeed(
  LivePage,
  LivePage.of({
    view: Effect.sync(() => {
      world.reads++
      return viewWith(world.conditions)
    }),
  }),
)

/**
 * A watch port on Effect's TestClock: the page's reads (one each livePageEveryMs) and keep-alives
 * happen when the test moves the clock (`advance`), not after seconds of real time.
 */
const withPort = <A>(f: (url: string, advance: (ms: number) => Promise<void>) => Promise<A>, live = true) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const { url } = yield* MetricsServer
      const services = yield* Effect.context<never>()
      const advance = (ms: number) => Effect.runPromise(TestClock.adjust(ms).pipe(Effect.provideContext(services)))
      return yield* Effect.promise(() => f(url, advance))
    }).pipe(
      Effect.provide(
        metricsHttpLayer("127.0.0.1:0").pipe(
          Layer.provideMerge(Layer.mergeAll(Metrics.layerTest, Readiness.layerTest(well), ...(live ? [page] : []))),
        ),
      ),
      Effect.provide(TestClock.layer()),
    ),
  )

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
/** Waits until `ok` holds, failing after 10 s; `step` (the clock moved one read on) between looks. */
const until = async (what: string, ok: () => boolean, step: () => Promise<void> = async () => {}) => {
  for (const end = Date.now() + 10_000; !ok(); await sleep(20)) {
    if (Date.now() > end) throw new Error(`not within 10 s: ${what}`)
    await step()
  }
}

/** Opens `/live` and keeps what it is sent until closed. */
const open = async (url: string) => {
  const stop = new AbortController()
  const r = await fetch(`${url}/live`, { signal: stop.signal })
  let text = ""
  if (r.status === 200) {
    const reader = r.body!.pipeThrough(new TextDecoderStream()).getReader()
    void (async () => {
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }))
        if (done) return
        text += value
      }
    })()
  }
  return { status: r.status, text: () => text, close: () => stop.abort() }
}

const frames = (text: string) => [...text.matchAll(/^event: view$/gm)].length

describe("the live page's stream", () => {
  it("sends the view at once, then only when it changed; reads nothing while no page is open", async () => {
    await withPort(async (url, advance) => {
      const aRead = () => advance(livePageEveryMs)
      const html = await fetch(`${url}/`)
      expect(html.headers.get("content-type")).toContain("text/html")
      expect(await html.text()).toContain('new EventSource("live")')
      await advance(3 * livePageEveryMs)
      expect(world.reads, "no page open: nothing read").toBe(0)
      const a = await open(url)
      expect(a.status).toBe(200)
      await until("the first frame", () => frames(a.text()) === 1, aRead)
      expect(a.text().startsWith("retry: ")).toBe(true)
      await until("three reads", () => world.reads >= 3, aRead)
      await sleep(50)
      expect(frames(a.text()), "three reads of the same view: one frame").toBe(1)
      world.conditions = 2
      await until("the changed view's frame", () => frames(a.text()) === 2, aRead)
      expect(a.text()).toContain('data-key=\\"c1\\"')
      // A second page is sent the newest frame at once, without a read.
      const b = await open(url)
      await until("the second page's first frame", () => frames(b.text()) === 1)
      expect(b.text()).toContain('data-key=\\"c1\\"')
      a.close()
      b.close()
      // The server hears the closes a moment after the browser's side.
      await sleep(300)
      const after = world.reads
      await advance(3 * livePageEveryMs)
      expect(world.reads, "every page closed: nothing read").toBe(after)
    })
  }, 20_000)

  it(`at most ${livePagesAtMost} pages at once: the next is refused with 503 until one closes`, async () => {
    await withPort(async (url) => {
      const pages = []
      for (let i = 0; i < livePagesAtMost; i++) pages.push(await open(url))
      expect(pages.every((p) => p.status === 200)).toBe(true)
      const refused = await open(url)
      expect(refused.status).toBe(503)
      pages[0]!.close()
      let next = await open(url)
      // The server hears the close a moment after the browser's side.
      for (const end = Date.now() + 5_000; next.status === 503 && Date.now() < end; next = await open(url))
        await sleep(50)
      expect(next.status).toBe(200)
      for (const p of [...pages, next]) p.close()
    })
  }, 20_000)

  it("a watch port given no live page (a test's) answers / with not found", async () => {
    const got = await withPort(async (url) => {
      const r = await fetch(`${url}/`)
      return { status: r.status, body: await r.text() }
    }, false)
    expect(got).toEqual({ status: 404, body: "not found: /metrics, /healthz and /readyz are served\n" })
  })
})
