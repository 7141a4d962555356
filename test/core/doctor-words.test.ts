// doctor's lines, word for word (docs/operations.md shows them): each check's line when it is fit,
// and when not, the line that says what to do. The property beside it (doctor.test.ts) holds which
// checks are fit and which refuse; this holds what each says.
import { doctorFindings, doctorLines, type Ground } from "@mesh-core/core/doctor"
import { describe, expect, it } from "vitest"

const busUp: Extract<Ground["bus"], { ok: true }> = {
  ok: true,
  noJetStream: undefined,
  jetStreamOff: false,
  servers: 1,
  clustered: false,
  maxPayload: 1024 * 1024,
  skewMs: 12.4,
}
const storeUp: Extract<Ground["store"], { ok: true }> = {
  ok: true,
  applied: 19,
  carried: 19,
  canEndSessions: true,
  canCreateSchema: true,
  key: "usable",
  skewMs: -1_000,
}
const well: Ground = {
  settings: [],
  busUrl: "nats://bus:4222",
  bus: busUp,
  replicas: { bus: 1, lease: 1 },
  storeUrl: "postgres://db/mesh",
  store: storeUp,
  metricsAddr: "127.0.0.1:9464",
  metricsTaken: undefined,
}

describe("doctor's lines", () => {
  it("a ground fit to stand on: every check ok, each saying what it found", () => {
    expect(doctorLines(doctorFindings(well))).toEqual([
      "ok   settings      every setting reads (mesh-controller settings)",
      "ok   bus           the bus at nats://bus:4222 answers",
      "ok   jetstream     JetStream is on",
      "ok   replicas      1 copy of each stream asked, a bus of one server",
      "ok   message-limit the bus takes 1048576 bytes in one message",
      "ok   bus-clock     the bus's clock is 12ms from this machine's",
      "ok   store         the store at postgres://db/mesh answers",
      "ok   migrations    the store is at migration 19, this build's",
      "ok   fence         the store's role can end other sessions (fencing)",
      "ok   schema        the store's role can create and migrate its schema",
      "ok   signing-key   the signing key in the store signs",
      "ok   store-clock   the store's clock is -1000ms from this machine's",
      "ok   metrics-port  127.0.0.1:9464 is free for /metrics, /healthz, /readyz",
    ])
    expect(doctorFindings(well).some((f) => f.refuses)).toBe(false)
  })

  it("a store not yet migrated, no key yet, a cluster holding its copies and a clock not read are fit, and say so", () => {
    const g: Ground = {
      ...well,
      bus: { ...busUp, servers: 3, clustered: true, skewMs: undefined },
      replicas: { bus: 3, lease: 1 },
      store: { ...storeUp, applied: undefined, key: "none" },
    }
    const lines = doctorLines(doctorFindings(g))
    expect(lines).toContain(
      "ok   replicas      3 copies of each stream asked, 3 server(s) of the bus's cluster answering",
    )
    expect(lines).toContain("ok   bus-clock     the bus's clock: not read")
    expect(lines).toContain("ok   migrations    the store is at migration 0; serve will apply those up to 19")
    expect(lines).toContain("ok   signing-key   no signing key yet: serve makes one at its first start")
  })

  it("each check not fit says what to do; the ones serve does not start on are marked so", () => {
    const g: Ground = {
      ...well,
      settings: ["MESH_GATE_PASSES: 0 is not 1 to 999999", "MESH_BUS_REPLICAS: 2 is not 1, 3 or 5"],
      bus: {
        ok: true,
        noJetStream: "no JetStream account",
        jetStreamOff: true,
        servers: 1,
        clustered: false,
        maxPayload: 65_536,
        skewMs: -1_500,
      },
      replicas: { bus: 1, lease: 3 },
      store: {
        ok: true,
        applied: 21,
        carried: 19,
        canEndSessions: false,
        canCreateSchema: false,
        key: "bad decrypt",
        skewMs: 1_001,
      },
      metricsTaken: "address in use",
    }
    const found = doctorFindings(g)
    expect(doctorLines(found)).toEqual([
      "FIX  settings      MESH_GATE_PASSES: 0 is not 1 to 999999: fix it in the environment file",
      "FIX  settings      MESH_BUS_REPLICAS: 2 is not 1, 3 or 5: fix it in the environment file",
      "ok   bus           the bus at nats://bus:4222 answers",
      "FIX  jetstream     JetStream cannot be used: no JetStream account; start nats-server with -js (or jetstream {} in its config)",
      "FIX  replicas      MESH_BUS_REPLICAS 1 / MESH_LEASE_REPLICAS 3: 3 copies asked of a bus of 1 server(s), which can never hold them; set at most 1, or join more servers to the cluster",
      "FIX  message-limit the bus takes 65536 bytes in one message, under 1048576: a large mesh's declarations will be refused; raise max_payload",
      "FIX  bus-clock     the bus's clock is -1500ms from this machine's: more than 1000ms; run NTP (chrony, systemd-timesyncd) on both machines",
      "ok   store         the store at postgres://db/mesh answers",
      "FIX  migrations    the store is at migration 21, beyond 19, the last this build carries: run a build that reads it (docs/operations.md, upgrades)",
      "FIX  fence         the store's role cannot end other sessions, so a takeover cannot fence the old holder: GRANT pg_signal_backend TO the role",
      "FIX  schema        the store's role can neither create its schema nor use the one there: GRANT CREATE ON DATABASE to the role, or make it the schema's owner",
      "FIX  signing-key   the signing key in the store cannot sign: bad decrypt; restore it from a backup of the store",
      "FIX  store-clock   the store's clock is 1001ms from this machine's: more than 1000ms; run NTP (chrony, systemd-timesyncd) on both machines",
      "FIX  metrics-port  127.0.0.1:9464 cannot be listened on: address in use; stop what holds it or set MESH_METRICS_ADDR",
    ])
    expect(found.filter((f) => f.refuses).map((f) => f.check)).toEqual([
      "settings",
      "settings",
      "jetstream",
      "replicas",
      "metrics-port",
    ])
  })

  it("a cluster answering with too few servers and a JetStream without its quorum are waited out, and say why", () => {
    const g: Ground = {
      ...well,
      bus: { ...busUp, noJetStream: "no quorum", clustered: true },
      replicas: { bus: 3, lease: 3 },
    }
    const found = doctorFindings(g)
    expect(doctorLines(found)).toContain(
      "FIX  jetstream     JetStream cannot be used: no quorum; its cluster may have lost its quorum: bring its servers back",
    )
    expect(doctorLines(found)).toContain(
      "FIX  replicas      MESH_BUS_REPLICAS 3 / MESH_LEASE_REPLICAS 3: 3 copies asked of a cluster of which 1 server(s) answer now; it holds them once enough of its servers answer",
    )
    expect(found.some((f) => f.refuses)).toBe(false)
  })

  it("a bus or a store that does not answer says so, what to start or fix, and nothing it could not check", () => {
    const g: Ground = {
      ...well,
      bus: { ok: false, why: "connection refused" },
      store: { ok: false, why: "timeout" },
    }
    expect(doctorLines(doctorFindings(g))).toEqual([
      "ok   settings      every setting reads (mesh-controller settings)",
      "FIX  bus           the bus at nats://bus:4222 does not answer: connection refused; start nats-server or fix NATS_URL",
      "FIX  store         the store at postgres://db/mesh does not answer: timeout; start PostgreSQL or fix DATABASE_URL",
      "ok   metrics-port  127.0.0.1:9464 is free for /metrics, /healthz, /readyz",
    ])
  })
})
