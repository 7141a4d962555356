// `mesh-controller doctor` (issue 44): the ground checked before it is stood on, each finding one line
// with what to do. The shells gather the facts (a connection tried, a query, a port bound); the
// words and whether each is fit are decided here. `serve` says the same lines at start, and refuses
// to start on the ones that could only fail later (`refuses`): replicas a cluster cannot hold (issue
// 43: said "cannot be reached" and retried for ever), a bus without JetStream, a port taken.
import type { Found } from "./outcome.ts"

export interface Ground {
  readonly settings: ReadonlyArray<string>
  readonly busUrl: string
  readonly bus: Found<{
    /** Why JetStream cannot be used; undefined when it can. */
    readonly noJetStream: string | undefined
    /** Whether the server says it runs no JetStream at all (started without -js): never mended by waiting. */
    readonly jetStreamOff: boolean
    /** The servers of its cluster that answer now (1 for a server of no cluster). */
    readonly servers: number
    /** Whether the server is in a cluster: one of no cluster can never hold more than one copy. */
    readonly clustered: boolean
    readonly maxPayload: number
    readonly skewMs: number | undefined
  }>
  readonly replicas: { readonly bus: number; readonly lease: number }
  readonly storeUrl: string
  readonly store: Found<{
    readonly applied: number | undefined
    readonly carried: number
    readonly canEndSessions: boolean
    readonly canCreateSchema: boolean
    /** "none" before the first serve made it, "usable", or why it cannot sign. */
    readonly key: string
    readonly skewMs: number
  }>
  readonly metricsAddr: string
  /** Undefined: the port can be bound. */
  readonly metricsTaken: string | undefined
}

/** Clocks further apart than this make the lease's bounds and the gate's timings wrong. */
export const skewAllowedMs = 1_000
/** NATS's own default: the mesh's declarations are sized to fit it (docs/delivery.md). */
const payloadNeeded = 1024 * 1024

/** A check: its line when well, its line (with what to do) when not; `refuses`: serve does not start on it. */
const c = (check: string, ok: boolean, well: string, fix: string, refuses = false) => ({
  check,
  ok,
  line: ok ? well : fix,
  refuses: !ok && refuses,
})
/** A finding: its check, whether it is fit, its line, and whether serve does not start on it. */
export type Finding = ReturnType<typeof c>
const skew = (check: string, what: string, ms: number | undefined): Finding => {
  const said = `${what}'s clock is ${Math.round(ms ?? 0)}ms from this machine's`
  if (ms === undefined) return c(check, true, `${what}'s clock: not read`, "")
  const fix = `${said}: more than ${skewAllowedMs}ms; run NTP (chrony, systemd-timesyncd) on both machines`
  return c(check, Math.abs(ms) <= skewAllowedMs, said, fix)
}

const busFindings = (g: Ground): ReadonlyArray<Finding> => {
  const fix = `the bus at ${g.busUrl} does not answer: ${g.bus.ok ? "" : g.bus.why}; start nats-server or fix NATS_URL`
  if (!g.bus.ok) return [c("bus", false, "", fix)]
  const { noJetStream, jetStreamOff, servers, clustered, maxPayload, skewMs } = g.bus
  const most = Math.max(g.replicas.bus, g.replicas.lease)
  const asked = `MESH_BUS_REPLICAS ${g.replicas.bus} / MESH_LEASE_REPLICAS ${g.replicas.lease}: ${most} copies asked`
  const takes = `the bus takes ${maxPayload} bytes in one message`
  // biome-ignore format: one check a line
  return [
    c("bus", true, `the bus at ${g.busUrl} answers`, ""),
    c("jetstream", noJetStream === undefined, "JetStream is on", `JetStream cannot be used: ${noJetStream}; ${jetStreamOff ? "start nats-server with -js (or jetstream {} in its config)" : "its cluster may have lost its quorum: bring its servers back"}`, jetStreamOff),
    // A cluster with servers down answers with fewer than it has (the soak's quorum lost, issue 43):
    // waited out, as a bus that does not answer is; only a server of no cluster never mends.
    c("replicas", most <= (clustered ? servers : 1), `${most} cop${most === 1 ? "y" : "ies"} of each stream asked, ${clustered ? `${servers} server(s) of the bus's cluster answering` : "a bus of one server"}`, clustered ? `${asked} of a cluster of which ${servers} server(s) answer now; it holds them once enough of its servers answer` : `${asked} of a bus of 1 server(s), which can never hold them; set at most 1, or join more servers to the cluster`, !clustered),
    c("message-limit", maxPayload >= payloadNeeded, takes, `${takes}, under ${payloadNeeded}: a large mesh's declarations will be refused; raise max_payload`),
    skew("bus-clock", "the bus", skewMs),
  ]
}

const storeFindings = (g: Ground): ReadonlyArray<Finding> => {
  const fix = `the store at ${g.storeUrl} does not answer: ${g.store.ok ? "" : g.store.why}; start PostgreSQL or fix DATABASE_URL`
  if (!g.store.ok) return [c("store", false, "", fix)]
  const { applied = 0, carried, canEndSessions, canCreateSchema, key, skewMs } = g.store
  // biome-ignore format: one check a line
  return [
    c("store", true, `the store at ${g.storeUrl} answers`, ""),
    c("migrations", applied <= carried, applied === carried ? `the store is at migration ${applied}, this build's` : `the store is at migration ${applied}; serve will apply those up to ${carried}`, `the store is at migration ${applied}, beyond ${carried}, the last this build carries: run a build that reads it (docs/operations.md, upgrades)`),
    c("fence", canEndSessions, "the store's role can end other sessions (fencing)", "the store's role cannot end other sessions, so a takeover cannot fence the old holder: GRANT pg_signal_backend TO the role"),
    c("schema", canCreateSchema, "the store's role can create and migrate its schema", "the store's role can neither create its schema nor use the one there: GRANT CREATE ON DATABASE to the role, or make it the schema's owner"),
    c("signing-key", key === "usable" || key === "none", key === "none" ? "no signing key yet: serve makes one at its first start" : "the signing key in the store signs", `the signing key in the store cannot sign: ${key}; restore it from a backup of the store`),
    skew("store-clock", "the store", skewMs),
  ]
}

// biome-ignore format: one check a line
export const doctorFindings = (g: Ground): ReadonlyArray<Finding> => [
  ...(g.settings.length === 0
    ? [c("settings", true, "every setting reads (mesh-controller settings)", "")]
    : g.settings.map((s) => c("settings", false, "", `${s}: fix it in the environment file`, true))),
  ...busFindings(g),
  ...storeFindings(g),
  c("metrics-port", g.metricsTaken === undefined, `${g.metricsAddr} is free for /metrics, /healthz, /readyz`, `${g.metricsAddr} cannot be listened on: ${g.metricsTaken}; stop what holds it or set MESH_METRICS_ADDR`, true),
]

/** One line a finding, each marked ok or FIX. */
export const doctorLines = (findings: ReadonlyArray<Finding>): ReadonlyArray<string> =>
  findings.map((x) => `${x.ok ? "ok " : "FIX"}  ${x.check.padEnd(13)} ${x.line}`)
