// npm run bench:standings: how many failing/recovered words a second the controller keeps, from
// NATS into PostgreSQL, on this machine. The words are published first; the figure is the time the
// controller takes to read, decide and commit them all. Prints figures; asserts nothing.
import { jetstream, jetstreamManager } from "@nats-io/jetstream"
import { connect, headers } from "@nats-io/transport-node"
import { Effect, Fiber, Layer } from "effect"
import { ControllerLease } from "../../shells/src/lease/service.ts"
import * as Bus from "../../shells/src/bus/nats.ts"
import { busNames, saidAtHeader } from "../../shells/src/bus/subjects.ts"
import { followStandings } from "../../shells/src/controller/follow.ts"
import * as Journal from "../../shells/src/journal.ts"
import * as Store from "../../shells/src/store/postgres.ts"
import { databaseUrl, natsUrl } from "../support/servers.ts"

// CPU seconds of every process named `name` (from /proc; undefined where there is none): the store's
// and the bus's share of a phase, which a busy machine's wall clock does not show.
const { readdirSync, readFileSync } = await import("node:fs")
const cpuOf = (name: string): number | undefined => {
  try {
    let ticks = 0
    for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
        const close = stat.lastIndexOf(")")
        if (stat.slice(stat.indexOf("(") + 1, close) !== name) continue
        const f = stat.slice(close + 2).split(" ")
        ticks += Number(f[11]) + Number(f[12])
      } catch {
        /* gone meanwhile */
      }
    }
    return ticks / 100
  } catch {
    return undefined
  }
}
const cpuNow = () => ({ own: process.cpuUsage(), store: cpuOf("postgres"), bus: cpuOf("nats-server") })
const cpuSince = (c0: ReturnType<typeof cpuNow>) => {
  const own = process.cpuUsage(c0.own)
  const d = (a: number | undefined, b: number | undefined) =>
    a === undefined || b === undefined ? "n/a" : `${(b - a).toFixed(2)} s`
  return `CPU: this process ${((own.user + own.system) / 1e6).toFixed(2)} s, PostgreSQL ${d(c0.store, cpuOf("postgres"))}, NATS ${d(c0.bus, cpuOf("nats-server"))}`
}

const words = Number(process.env["WORDS"] ?? 50_000)
const keys = Number(process.env["KEYS"] ?? 2_000)
// Most words kept in one transaction, the follower's and the anchor's alike (serve's --batch).
const batch = Number(process.env["BATCH"] ?? 1_000)
const id = `bench_${process.pid}`
const names = busNames(id)

const nc = await connect({ servers: natsUrl })
const jsm = await jetstreamManager(nc)
await jsm.streams.add({ name: names.stream, subjects: [names.failing, names.recovered] })
const js = jetstream(nc)
const t0 = performance.now()
let pending: Array<Promise<unknown>> = []
for (let i = 0; i < words; i++) {
  const k = i % keys
  const failing = Math.floor(i / keys) % 3 !== 2
  const at = new Date(Date.parse("2026-10-05T06:00:00Z") + i * 10)
  const body = failing
    ? {
        attempts: i,
        class: "credentials-rejected",
        consumer: `c${k % 100}`,
        error: "invalid_grant",
        node: "hq-3",
        provider: `p${Math.floor(k / 100)}`,
        "provider-node": "hq-2",
        since: "2026-10-05T06:00:00Z",
      }
    : { consumer: `c${k % 100}`, provider: `p${Math.floor(k / 100)}`, "provider-node": "hq-2", why: "first-success" }
  const h = headers()
  h.set(saidAtHeader, at.toISOString())
  pending.push(js.publish(failing ? names.failing : names.recovered, JSON.stringify(body), { headers: h }))
  if (pending.length === 1_000) {
    await Promise.all(pending)
    pending = []
  }
}
await Promise.all(pending)
const published = performance.now() - t0
await nc.close()

let kept = 0
let done: () => void
const all = new Promise<void>((r) => {
  done = r
})
const layers = Layer.mergeAll(
  Bus.layer(natsUrl),
  Store.layerMigrated(databaseUrl, id),
  Journal.memoryLayer([]),
  ControllerLease.layerTest(1),
)
const program = Effect.gen(function* () {
  const c0 = cpuNow()
  const started = performance.now()
  const fiber = yield* Effect.forkChild(
    followStandings({
      names,
      batch,
      onKept: (n) => {
        kept += n
        if (kept >= words) done()
      },
    }),
  )
  yield* Effect.promise(() => all)
  const ms = performance.now() - started
  const cpu = cpuSince(c0)
  yield* Fiber.interrupt(fiber)
  const { sql } = yield* Store.Store
  const [row] = yield* Effect.promise(
    () => sql`select count(*)::int as n, count(*) filter (where state = 'failing')::int as failing from standings`,
  )
  return { ms, cpu, rows: row!["n"] as number, failing: row!["failing"] as number }
}).pipe(Effect.provide(layers))

const r = await Effect.runPromise(program)

// The anchor, in the same run: the same rows (the newest per key of each batch of words, as the
// follower writes them) upserted into PostgreSQL with a plain batched insert … on conflict do
// update, nothing read from the bus, nothing decided.
const { default: postgres } = await import("postgres")
const anchorSql = postgres(databaseUrl, { onnotice: () => undefined, max: 1 })
await anchorSql.unsafe(`create table ${id}.anchor (provider text, provider_node text, consumer text, state text, said_at timestamptz, consumer_node text,
  class text, error text, since text, attempts integer, why text, primary key (provider, provider_node, consumer))`)
const anchorRows = (i0: number) => {
  const byKey = new Map<number, Record<string, unknown>>()
  for (let i = i0; i < Math.min(words, i0 + batch); i++) {
    const k = i % keys
    byKey.set(k, {
      provider: `p${Math.floor(k / 100)}`,
      provider_node: "hq-2",
      consumer: `c${k % 100}`,
      state: "failing",
      said_at: new Date(Date.parse("2026-10-05T06:00:00Z") + i * 10),
      consumer_node: "hq-3",
      class: "credentials-rejected",
      error: "invalid_grant",
      since: "2026-10-05T06:00:00Z",
      attempts: i,
      why: null,
    })
  }
  return [...byKey.values()]
}
const ac0 = cpuNow()
const a0 = performance.now()
for (let i = 0; i < words; i += batch) {
  await anchorSql`insert into ${anchorSql(id)}.anchor ${anchorSql(anchorRows(i))} on conflict (provider, provider_node, consumer) do update set
    state = excluded.state, said_at = excluded.said_at, consumer_node = excluded.consumer_node, class = excluded.class, error = excluded.error,
    since = excluded.since, attempts = excluded.attempts, why = excluded.why`
}
const anchorMs = performance.now() - a0
const anchorCpu = cpuSince(ac0)
await anchorSql.end()

console.log(
  `published ${words.toLocaleString("en")} words over ${keys.toLocaleString("en")} standings in ${(published / 1000).toFixed(2)} s`,
)
const rate = words / (r.ms / 1000)
const anchorRate = words / (anchorMs / 1000)
console.log(
  `the controller kept them, from NATS into PostgreSQL, in ${(r.ms / 1000).toFixed(2)} s: ` +
    `${Math.round(rate).toLocaleString("en")} words/s (batches of up to ${batch.toLocaleString("en")} words, newest word wins)`,
)
console.log(
  `anchor: a plain batched upsert of the same rows into PostgreSQL: ${Math.round(anchorRate).toLocaleString("en")} words/s; ` +
    `the controller reaches ${((100 * rate) / anchorRate).toFixed(0)}% of it`,
)
console.log(`  controller ${r.cpu}`)
console.log(`  anchor     ${anchorCpu}`)
console.log(`store: ${r.rows.toLocaleString("en")} standings kept, ${r.failing.toLocaleString("en")} failing`)

const cleanup = await connect({ servers: natsUrl })
await (await jetstreamManager(cleanup)).streams.delete(names.stream)
await cleanup.close()
const sql = postgres(databaseUrl, { onnotice: () => undefined })
await sql`drop schema ${sql(id)} cascade`
await sql.end()
