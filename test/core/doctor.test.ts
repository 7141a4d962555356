// doctor's findings (issue 44) as rules stated apart from the code: each check once, ok exactly when
// its rule says so, serve refusing only what could never mend itself by waiting (issue 43: replicas a
// cluster cannot hold were retried for ever), and a bus or store that does not answer waited out.
import { doctorFindings, doctorLines, type Ground } from "@mesh-core/core/doctor"
import fc from "fast-check"
import { describe, expect, it } from "vitest"

const why = fc.string({ minLength: 1, maxLength: 20 }).filter((s) => !/[\n\r]/.test(s))
const replicas = fc.constantFrom(1, 3, 5)
const ground: fc.Arbitrary<Ground> = fc.record({
  settings: fc.array(why, { maxLength: 2 }),
  busUrl: fc.constant("nats://bus:4222"),
  bus: fc.oneof(
    fc.record({ ok: fc.constant(false as const), why }),
    fc.record({
      ok: fc.constant(true as const),
      noJetStream: fc.option(why, { nil: undefined }),
      jetStreamOff: fc.boolean(),
      servers: fc.integer({ min: 1, max: 7 }),
      clustered: fc.boolean(),
      maxPayload: fc.integer({ min: 1_000, max: 8 << 20 }),
      skewMs: fc.option(fc.integer({ min: -5_000, max: 5_000 }), { nil: undefined }),
    }),
  ),
  replicas: fc.record({ bus: replicas, lease: replicas }),
  storeUrl: fc.constant("postgres://db/mesh"),
  store: fc.oneof(
    fc.record({ ok: fc.constant(false as const), why }),
    fc.record({
      ok: fc.constant(true as const),
      applied: fc.option(fc.integer({ min: 1, max: 30 }), { nil: undefined }),
      carried: fc.integer({ min: 1, max: 30 }),
      canEndSessions: fc.boolean(),
      canCreateSchema: fc.boolean(),
      key: fc.constantFrom("none", "usable", "bad decrypt"),
      skewMs: fc.integer({ min: -5_000, max: 5_000 }),
    }),
  ),
  metricsAddr: fc.constant("127.0.0.1:9464"),
  metricsTaken: fc.option(why, { nil: undefined }),
})

describe("doctor's findings", () => {
  it("each check once (settings once per refusal), ok by its rule, refusing only what waiting cannot mend", () => {
    fc.assert(
      fc.property(ground, (g) => {
        const found = doctorFindings(g)
        const by = (check: string) => found.filter((f) => f.check === check)
        for (const f of found) if (f.refuses) expect(f.ok).toBe(false)
        expect(by("settings").length).toBe(Math.max(1, g.settings.length))
        expect(by("settings").every((f) => f.ok === (g.settings.length === 0))).toBe(true)
        // Unreachable is said and waited out by serve, never refused.
        expect(by("bus")).toMatchObject([{ ok: g.bus.ok, refuses: false }])
        expect(by("store")).toMatchObject([{ ok: g.store.ok, refuses: false }])
        if (g.bus.ok) {
          const most = Math.max(g.replicas.bus, g.replicas.lease)
          // A server of no cluster holds one copy, for ever; a cluster answering with too few servers
          // now (some down) is said and waited out, never refused.
          const holds = g.bus.clustered ? g.bus.servers : 1
          expect(by("replicas")).toMatchObject([{ ok: most <= holds, refuses: most > holds && !g.bus.clustered }])
          // A server with no JetStream at all is refused; one whose JetStream does not answer now (a
          // cluster without its quorum) is waited out.
          expect(by("jetstream")).toMatchObject([
            { ok: g.bus.noJetStream === undefined, refuses: g.bus.noJetStream !== undefined && g.bus.jetStreamOff },
          ])
          expect(by("message-limit")).toMatchObject([{ ok: g.bus.maxPayload >= 1 << 20, refuses: false }])
          const skew = g.bus.skewMs
          expect(by("bus-clock")).toMatchObject([{ ok: skew === undefined || Math.abs(skew) <= 1_000 }])
        } else expect(by("replicas")).toEqual([])
        if (g.store.ok) {
          expect(by("fence")).toMatchObject([{ ok: g.store.canEndSessions, refuses: false }])
          expect(by("schema")).toMatchObject([{ ok: g.store.canCreateSchema }])
          expect(by("migrations")).toMatchObject([{ ok: (g.store.applied ?? 0) <= g.store.carried }])
          expect(by("signing-key")).toMatchObject([{ ok: g.store.key !== "bad decrypt" }])
          expect(by("store-clock")).toMatchObject([{ ok: Math.abs(g.store.skewMs) <= 1_000 }])
        } else expect(by("fence")).toEqual([])
        expect(by("metrics-port")).toMatchObject([{ ok: g.metricsTaken === undefined }])
        // One line a finding, marked, with what to do when it is to fix.
        const lines = doctorLines(found)
        expect(lines.length).toBe(found.length)
        for (const [i, l] of lines.entries()) expect(l.startsWith(found[i]?.ok === true ? "ok   " : "FIX  ")).toBe(true)
        for (const f of found) expect(f.line).not.toMatch(/\n/)
      }),
    )
  })

  it("a refused replica count names both settings, the copies asked and the servers there are", () => {
    const g = fc.sample(ground, { numRuns: 1, seed: 1 })[0]!
    const found = doctorFindings({
      ...g,
      bus: {
        ok: true,
        noJetStream: undefined,
        jetStreamOff: false,
        servers: 1,
        clustered: false,
        maxPayload: 1 << 20,
        skewMs: 0,
      },
      replicas: { bus: 3, lease: 3 },
    })
    expect(found.find((f) => f.check === "replicas")?.line).toBe(
      "MESH_BUS_REPLICAS 3 / MESH_LEASE_REPLICAS 3: 3 copies asked of a bus of 1 server(s), which can never hold them; set at most 1, or join more servers to the cluster",
    )
  })
})
