// A seeded fault soak (issue 27), as the systems people trust test themselves (Jepsen's nemesis
// schedules): `npm run soak -- --minutes N --seed S`. It starts its own NATS (a three-node cluster,
// every stream and bucket kept in three copies) and PostgreSQL (with passwords), two `serve` each
// recording, a `provide postgres` whose backend is that PostgreSQL, two simulated machines, a stream
// of providers' words and a release now and then, and under a random schedule drawn from the seed it
// kills (-9), freezes (SIGSTOP) and restarts the controllers and the provider, cuts a controller off
// from the bus or the store (TCP proxies between them, as a network partition), freezes and stops the
// store, and kills, freezes and restarts the bus's nodes, one at a time and two of three at once
// (quorum lost a while, then back). A partition (of a controller or the provider, from the bus, the
// store or the provider's backend) either resets connections or drops the traffic silently.
// At the end, the faults healed, it checks what must hold, each saying how much it checked and
// failing when that is nothing (issue 43: a soak could pass with nothing done):
//   - words published and acknowledged; no word lost over every key, in order: every word the bus
//     acknowledged is in the stream, each key's in the order said;
//   - no word lost or reordered in the store: every consumer's standing is the newest word the bus
//     acknowledged for it;
//   - plans released, passed and rolled back (odd builds crash on their first machine); takeovers;
//     the provider's failures and recoveries, as its words on the bus say them;
//   - every process's exit accounted for: killed by the nemesis, or stopped by the soak's SIGTERM
//     with exit 0, never ended by itself;
//   - the provider's consumers all stand well again once its backend is back (nothing it owed the
//     bus was lost across its deaths), and each of its runs' recordings replays to what it did;
//   - one holder per epoch: no two controller processes ever said they act under the same epoch,
//     and the epochs taken only grow;
//   - at most one epoch acting at any instant, from the store's own commit order: every fenced
//     transaction says its epoch in its WAL (migration 0018, `mesh.fence_witness`), a logical slot
//     reads them as they committed, and a newer epoch's commit is never followed by an older one's;
//   - every release plan ended (passed or failed, none left in flight);
//   - every recording replays to what was done (`simulate --strict` on each, exit 0);
//   - no secret (the bus's and the store's passwords, the provider's consumers') in any byte captured
//     or written: every process's output, every command's, every message on the bus, every row of the
//     store, every file the soak wrote (recordings, the provider's outbox), the store's log and data
//     and the bus nodes' stores.
// It prints a table of the faults injected and the invariants held, and the seed to run it again.
// Never the shared servers: everything here is the soak's own, killed by PID.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { headers } from "@nats-io/transport-node"
import { jetstream, jetstreamManager } from "@nats-io/jetstream"
import { saidAtHeader } from "../../shells/src/bus/subjects.ts"
import { leaksOf } from "../support/leaks.ts"
import {
  alive,
  controllerWorld,
  failingBody,
  serverPasswords,
  sleep,
  startPrivateClusterMesh,
} from "../support/private-controller.ts"
import { providerFiles } from "../support/private-provider.ts"
import { type Running, startCli } from "../support/servers.ts"
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.ts"
import { everyFile, exits, streamWords, wordsLost } from "./ledger.ts"

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`)
  const v = i < 0 ? undefined : Number(process.argv[i + 1])
  if (v !== undefined && !(Number.isInteger(v) && v >= 0)) throw new Error(`--${name}: give a whole number`)
  return v ?? fallback
}
const minutes = arg("minutes", 3)
const seed = arg("seed", Math.floor(Date.now() % 2 ** 31))

/** mulberry32: a small seeded generator, so a schedule is drawn again from its seed. */
const random = (() => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
})()
const between = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1))

const top = join(import.meta.dirname, "../..")
const dir = mkdtempSync(join(tmpdir(), "mesh-core-soak-"))
const consumers = 40
const settings = {
  MESH_GATE_EVERY: "2s",
  MESH_GATE_SETTLE: "6s",
  MESH_GATE_BOUND: "40s",
  MESH_GATE_PASSES: "2",
  MESH_LEASE_DURATION: "6s",
  MESH_LEASE_RENEW_DEADLINE: "4s",
  MESH_LEASE_RETRY: "1s",
  MESH_BUS_REPLICAS: "3",
}
/** The provider's consumers, each with the password it is minted (searched for in every byte at the end). */
const providerConsumers = { soak_p1: "soak-consumer-pw-1-4k9", soak_p2: "soak-consumer-pw-2-7q3" }

const faults = new Map<string, number>()
const count = (what: string) => faults.set(what, (faults.get(what) ?? 0) + 1)

const main = async () => {
  console.log(`soak: ${minutes} minute(s), seed ${seed} (npm run soak -- --minutes ${minutes} --seed ${seed})`)
  const outputs: Array<Running> = []
  const held: Array<() => void> = [] // thaw whatever is frozen, at the end
  const mesh = await startPrivateClusterMesh()
  // Stopped by a signal: its own servers and processes go with it, never left running.
  for (const signal of ["SIGINT", "SIGTERM"] as const)
    process.once(signal, () => {
      for (const r of outputs) if (alive(r)) r.process.kill("SIGKILL")
      mesh.stop()
      rmSync(dir, { recursive: true, force: true })
      process.exit(130)
    })
  const w = await controllerWorld(mesh, "soak", settings)
  const provided = providerFiles(providerConsumers)
  const setup = mesh.pg.sql()
  try {
    await setup`alter database postgres set mesh.fence_witness = 'on'`
    await setup`select pg_create_logical_replication_slot('soak_fence', 'test_decoding')`
  } finally {
    await setup.end({ timeout: 1 })
  }
  // The fenced commits read so far: each transaction's epoch, in commit order. Every transaction is
  // decoded with its BEGIN (test_decoding's skip-empty-xacts would print a message before its own
  // transaction's BEGIN), and only committed ones are decoded at all.
  // A slot delivers at least once: after the store's crash (`pg_ctl stop -m immediate`) it goes back
  // to its last checkpointed position and decodes again what was read since, so each transaction is
  // counted once, by its id.
  const witness = {
    commits: 0,
    newest: 0,
    epochs: new Set<number>(),
    wentBack: [] as Array<string>,
    seen: new Set<string>(),
  }
  const readWitness = async () => {
    const sql = mesh.pg.sql()
    try {
      let open: Array<number> = []
      for (;;) {
        const rows = await sql`select data from pg_logical_slot_get_changes('soak_fence', null, 20000)`
        for (const r of rows) {
          const data = String(r["data"])
          if (data.startsWith("BEGIN")) open = []
          const m = /prefix: mesh_fence, sz: \d+ content:(\d+)/.exec(data)
          if (m !== null) open.push(Number(m[1]))
          const xid = /^COMMIT (\d+)/.exec(data)?.[1]
          if (xid !== undefined && witness.seen.has(xid)) continue
          if (xid !== undefined) witness.seen.add(xid)
          if (data.startsWith("COMMIT") && open.length > 0) {
            const epoch = Math.max(...open)
            witness.commits += 1
            witness.epochs.add(epoch)
            if (epoch < witness.newest) witness.wentBack.push(`epoch ${epoch} committed after ${witness.newest}`)
            witness.newest = Math.max(witness.newest, epoch)
          }
        }
        if (rows.length < 20000) break
      }
    } finally {
      await sql.end({ timeout: 1 })
    }
  }
  try {
    const mesh_ = JSON.parse(readFileSync(join(top, "examples/mesh.json"), "utf8"))
    writeFileSync(join(dir, "mesh.json"), JSON.stringify(mesh_))
    if (w.cli(["mesh", "apply", join(dir, "mesh.json")]).code !== 0) throw new Error("mesh apply failed")
    writeFileSync(join(dir, "key.pem"), w.cli(["identity"]).out)
    // An odd build crash-loops on the first machine, so its gate fails and the plan is rolled back.
    const crashing = Array.from({ length: 1000 }, (_, n) => n)
      .filter((n) => n % 2 === 1)
      .flatMap((n) => ["--crash-module", `letta@letta-${500 + n}`])
    for (const m of ["hq-3", "hq-4"])
      outputs.push(
        w.start([
          "node-engine",
          "--simulate",
          m,
          "--trust-key",
          join(dir, "key.pem"),
          "--state-every",
          "1s",
          ...(m === "hq-3" ? crashing : []),
        ]),
      )
    const ended = exits()
    const recordings = ["a", "b"].map((n) => join(dir, `serve-${n}.jsonl`))
    // Each controller reaches every bus node and the store through proxies of its own, to be cut off alone.
    // The third is the provider's: its bus, and its backend (the same PostgreSQL) as "store".
    const via = await Promise.all(
      [...recordings, "provider"].map(async () => {
        const bus = await Promise.all(mesh.nats.nodes.map((n) => startTcpProxy(n.port)))
        return {
          bus: {
            ports: bus.map((p) => p.port),
            cut: () => {
              for (const p of bus) p.cut()
            },
            stall: () => {
              for (const p of bus) p.stall()
            },
            heal: () => {
              for (const p of bus) p.heal()
            },
            stop: () => Promise.all(bus.map((p) => p.stop())),
          },
          store: (await startTcpProxy(mesh.pg.port)) as Pick<TcpProxy, "cut" | "stall" | "heal" | "stop" | "port">,
        }
      }),
    )
    const busVia = (k: number) =>
      mesh.nats.nodes
        .map((n, i) => mesh.nats.url.split(",")[i]!.replace(`:${n.port}`, `:${via[k]!.bus.ports[i]}`))
        .join(",")
    const serveAt = (k: number) =>
      startCli(["serve", "--record", recordings[k]!], {
        ...w.env,
        NATS_URL: busVia(k),
        DATABASE_URL: mesh.pg.url.replace(`:${mesh.pg.port}`, `:${via[k]!.store.port}`),
      })
    const serves: Array<Running> = recordings.map((_, k) => serveAt(k))
    outputs.push(...serves)
    if (w.cli(["push"]).code !== 0) count("push refused at start (retried by the releases)")

    // A provider whose backend is the soak's PostgreSQL: its words reach the bus through its outbox.
    const providerRuns: Array<string> = []
    const provide = () => {
      const record = join(dir, `provider-${providerRuns.length + 1}.jsonl`)
      providerRuns.push(record)
      const r = startCli(
        [
          "provide",
          "postgres",
          "--receives",
          provided.receives,
          "--node",
          "hq-3",
          "--record",
          record,
          "--outbox",
          join(dir, "provider.outbox"),
          "--set",
          "every=1s",
          "--set",
          "verifyEvery=1s",
          "--set",
          "holdsTimeout=2s",
          "--set",
          "failingAfter=3s",
        ],
        {
          ...w.env,
          NATS_URL: busVia(2),
          PROVIDER_ADMIN_URL: mesh.pg.url.replace(`:${mesh.pg.port}`, `:${via[2]!.store.port}`),
        },
      )
      outputs.push(r)
      return r
    }
    let provider = provide()

    // ---- the workload: words, each said later and with more attempts than the one before ----
    const acked = new Map<string, number>() // consumer → newest attempts the bus acknowledged
    const ackedAll = new Map<string, Array<number>>() // consumer → every attempts the bus acknowledged
    const said = new Map<string, Set<number>>() // consumer → every attempts published, acknowledged or not
    let published = 0
    let unacked = 0
    let stopping = false
    const words = (async () => {
      let i = 0
      let nc: Awaited<ReturnType<typeof mesh.nats.connect>> | undefined
      while (!stopping) {
        try {
          nc ??= await mesh.nats.connect()
          const c = i % consumers
          const body = { ...failingBody(c), attempts: i + 1 }
          const h = headers()
          h.set(saidAtHeader, new Date(Date.parse("2026-12-05T06:00:00Z") + i).toISOString())
          said.set(`c${c}`, (said.get(`c${c}`) ?? new Set()).add(i + 1))
          await jetstream(nc).publish(w.names.failing, JSON.stringify(body), { headers: h, timeout: 3_000 })
          acked.set(`c${c}`, i + 1)
          ackedAll.set(`c${c}`, [...(ackedAll.get(`c${c}`) ?? []), i + 1])
          published += 1
        } catch {
          unacked += 1
          try {
            await nc?.close()
          } catch {
            /* gone */
          }
          nc = undefined
          await sleep(500)
        }
        i += 1
        await sleep(100)
      }
      await nc?.close().catch(() => undefined)
    })()
    let released = 0
    let releaseRefused = 0
    const releases = (async () => {
      let n = 0
      while (!stopping) {
        await sleep(between(10_000, 25_000))
        if (stopping) break
        // Released builds alternate even (passes) and odd (crashes, rolled back); each build is new.
        const r = w.cli([
          "release",
          "letta",
          "--build",
          `letta-${500 + 2 * n + (released % 2)}`,
          "--commit",
          `5${n}`.padEnd(10, "a"),
          "--first",
          "hq-3",
        ])
        if (r.code === 0) released += 1
        else releaseRefused += 1
        n += 1
      }
    })()

    const outboxSeen = new Set<string>()
    // ---- the nemesis ----
    const end = Date.now() + minutes * 60_000
    while (Date.now() < end) {
      await sleep(between(4_000, 10_000))
      // Read as it goes, so the slot keeps little WAL; a store down now is read next time.
      await readWitness().catch(() => undefined)
      // The provider's outbox as it stands now: removed at a clean stop, so searched as it goes.
      try {
        outboxSeen.add(readFileSync(join(dir, "provider.outbox"), "latin1"))
      } catch {
        /* none owed now */
      }
      const roll = random()
      if (roll < 0.2) {
        const k = between(0, 1)
        const s = serves[k]!
        ended.kill(s)
        count("serve killed (-9) and restarted")
        await sleep(between(1_000, 5_000))
        serves[k] = serveAt(k)
        outputs.push(serves[k]!)
      } else if (roll < 0.27) {
        ended.kill(provider)
        count("provider killed (-9) and restarted")
        await sleep(between(1_000, 5_000))
        provider = provide()
      } else if (roll < 0.4) {
        const k = between(0, 2)
        const part = random() < 0.5 ? "bus" : "store"
        const proxy = via[k]![part]
        const silent = random() < 0.5
        if (silent) proxy.stall()
        else proxy.cut()
        held.push(() => proxy.heal())
        const who = k === 2 ? "provider" : "serve"
        const from = k === 2 && part === "store" ? "its backend" : `the ${part}`
        count(`${who} cut off from ${from} (a partition, ${silent ? "traffic dropped silently" : "connections reset"})`)
        await sleep(between(3_000, 12_000))
        proxy.heal()
      } else if (roll < 0.5) {
        const s = serves[between(0, 1)]!
        if (!alive(s)) continue
        process.kill(s.process.pid!, "SIGSTOP")
        held.push(() => process.kill(s.process.pid!, "SIGCONT"))
        count("serve frozen (SIGSTOP)")
        await sleep(between(3_000, 12_000))
        process.kill(s.process.pid!, "SIGCONT")
      } else if (roll < 0.65) {
        mesh.pg.freeze()
        held.push(() => mesh.pg.thaw())
        count("store frozen (SIGSTOP)")
        await sleep(between(2_000, 8_000))
        mesh.pg.thaw()
      } else if (roll < 0.8) {
        mesh.pg.halt()
        held.push(() => mesh.pg.start())
        count("store stopped and started")
        await sleep(between(3_000, 10_000))
        mesh.pg.start()
      } else if (roll < 0.86) {
        const node = mesh.nats.nodes[between(0, mesh.nats.nodes.length - 1)]!
        await node.kill()
        held.push(() => node.start())
        count("a bus node killed (-9) and restarted")
        await sleep(between(2_000, 8_000))
        node.start()
      } else if (roll < 0.93) {
        // Two of three down: the streams' quorum lost a while, then back with nothing lost.
        const spared = between(0, mesh.nats.nodes.length - 1)
        const down = mesh.nats.nodes.filter((_, i) => i !== spared)
        for (const node of down) {
          await node.kill()
          held.push(() => node.start())
        }
        count("two of three bus nodes killed (-9), quorum lost, then restarted")
        await sleep(between(8_000, 20_000))
        for (const node of down) node.start()
      } else {
        const node = mesh.nats.nodes[between(0, mesh.nats.nodes.length - 1)]!
        node.freeze()
        held.push(() => node.thaw())
        count("a bus node frozen (SIGSTOP)")
        await sleep(between(2_000, 8_000))
        node.thaw()
      }
    }
    stopping = true
    await Promise.all([words, releases])
    for (const thaw of held) {
      try {
        thaw()
      } catch {
        /* already thawed or started */
      }
    }

    // ---- what must hold, once the faults have healed ----
    const results: Array<readonly [string, boolean, string]> = []
    let fenced: number | undefined
    const until = Date.now() + 120_000
    const sql = mesh.pg.sql()
    try {
      let missing: Array<string> = []
      let inFlight = -1
      let unwell: Array<string> = []
      if (!alive(provider)) provider = provide()
      for (;;) {
        const rows = await sql`select consumer, attempts, state from ${sql(w.schema)}.standings`.catch(() => [])
        const kept = new Map(rows.map((r) => [String(r["consumer"]), Number(r["attempts"])]))
        // The newest word the bus acknowledged, or a newer one it took whose acknowledgement was lost
        // on its way back (a node frozen or killed then): never an older one, never one not said.
        missing = [...acked]
          .filter(([c, a]) => {
            const k = kept.get(c)
            return k === undefined || k < a || !(said.get(c)?.has(k) ?? false)
          })
          .map(([c, a]) => `${c}: ${kept.get(c)} for ${a}`)
        unwell = rows
          .filter((r) => String(r["consumer"]) in providerConsumers && r["state"] === "failing")
          .map((r) => String(r["consumer"]))
        const plans =
          await sql`select count(*)::int as n from ${sql(w.schema)}.plans where state in ('open', 'sending', 'rolling-back')`.catch(
            () => [{ n: -1 }],
          )
        inFlight = Number(plans[0]!["n"])
        if ((missing.length === 0 && inFlight === 0 && unwell.length === 0) || Date.now() > until) break
        await sleep(2_000)
      }
      // A word missing from the store: which controller's recording heard it, if any (where it was lost).
      const heardBy = (c: string, attempts: number) =>
        recordings
          .filter((f) =>
            readFileSync(f, "utf8")
              .split("\n")
              .some(
                (l) => /consumer\W+(c\d+)/.exec(l)?.[1] === c && /attempts\W+(\d+)/.exec(l)?.[1] === String(attempts),
              ),
          )
          .map((f) => f.split("/").at(-1))
      const whereLost = missing.slice(0, 3).map((m) => {
        const [c, , , a] = m.split(/[: ]+/)
        return `${m} (its newest heard by ${heardBy(c!, Number(a)).join(" and ") || "no controller's recording"})`
      })
      results.push([
        "no word lost or reordered in the store",
        missing.length === 0 && acked.size > 0,
        `${acked.size} key(s), each at the newest word acknowledged for it; ${missing.length} not${missing.length === 0 ? "" : `: ${whereLost.join(", ")}`}`,
      ])
      results.push([
        "the provider's consumers stand well again",
        unwell.length === 0,
        `${providerRuns.length} provider run(s); ${unwell.length === 0 ? "none failing" : `failing: ${unwell.join(", ")}`}`,
      ])
      results.push([
        "every release plan ended",
        inFlight === 0,
        `${released} released, ${releaseRefused} refused; ${inFlight} in flight`,
      ])
      const byState = new Map(
        (await sql`select state, count(*)::int as n from ${sql(w.schema)}.plans group by state`.catch(() => [])).map(
          (r) => [String(r["state"]), Number(r["n"])],
        ),
      )
      const passed = byState.get("passed") ?? 0
      const rolledBack = byState.get("failed") ?? 0
      results.push([
        "plans released, passed and rolled back",
        released > 0 && passed > 0 && rolledBack > 0,
        `${released} released; ${passed} passed their gate, ${rolledBack} failed it and were rolled back`,
      ])
      await readWitness()
      const fence = await sql`select epoch from ${sql(w.schema)}.lease_fence`.catch(() => [])
      fenced = fence.length === 0 ? undefined : Number(fence[0]!["epoch"])
    } finally {
      await sql.end({ timeout: 1 })
    }
    // Every word the stream kept, read back in its order once the bus is whole again.
    const kept = await (async () => {
      const nc = await mesh.nats.connect()
      try {
        return await streamWords(nc, w.names.stream)
      } finally {
        await nc.close()
      }
    })().catch((e: Error) => {
      console.log(`the stream could not be read back: ${e.message}`)
      return []
    })
    const lost = wordsLost(ackedAll, kept)
    results.push([
      "words published and acknowledged",
      published > 0,
      `${published} acknowledged by the bus, ${unacked} not (a fault then)`,
    ])
    results.push([
      "no word lost over every key, in order (the bus's stream)",
      lost.checked > 0 && lost.problems.length === 0,
      `${lost.checked} acknowledged word(s) of ${ackedAll.size} key(s) looked for among ${kept.length} kept${lost.problems.length === 0 ? ": every one there, each key's in order" : `: ${lost.problems.slice(0, 5).join("; ")}`}`,
    ])
    const providerWords = (subject: string) =>
      kept.filter((k) => k.subject === subject && k.consumer in providerConsumers).length
    const failed = providerWords(w.names.failing)
    const recovered = providerWords(w.names.recovered)
    results.push([
      "the provider failed and recovered (its words on the bus)",
      failed > 0 && recovered > 0,
      `${failed} failing, ${recovered} recovered word(s) for its consumers`,
    ])
    const epochs = new Map<number, number>()
    let rising = true
    for (const r of outputs) {
      let last = 0
      for (const m of r.output().matchAll(/holds the controller lease, epoch (\d+); it acts/g)) {
        const e = Number(m[1])
        epochs.set(e, (epochs.get(e) ?? 0) + 1)
        if (e <= last) rising = false
        last = e
      }
    }
    const shared = [...epochs].filter(([, n]) => n > 1).map(([e]) => e)
    // The store's fence has seen no write under an epoch no controller said it took.
    const fencedKnown = fenced !== undefined && (fenced === 0 || epochs.has(fenced))
    results.push([
      "one holder per epoch, epochs only growing, every fenced write under an epoch taken",
      shared.length === 0 && rising && epochs.size > 1 && fencedKnown,
      `${epochs.size} epoch(s) taken (${Math.max(0, epochs.size - 1)} takeover(s)), the fence at ${fenced ?? "(not read)"}${shared.length === 0 ? "" : `; held by two: ${shared.join(", ")}`}`,
    ])
    // Every stream and bucket the mesh made is kept in three copies (MESH_BUS_REPLICAS), so a node's loss lost nothing.
    const copies = await (async () => {
      const nc = await mesh.nats.connect()
      try {
        const jsm = await jetstreamManager(nc)
        const made: Array<string> = []
        for await (const si of jsm.streams.list())
          if (si.config.name.toUpperCase().includes(w.prefix.toUpperCase()))
            made.push(`${si.config.name}:${si.config.num_replicas}`)
        return made
      } finally {
        await nc.close()
      }
    })().catch((e: Error) => [`(not read: ${e.message})`])
    const single = copies.filter((c) => !c.endsWith(":3"))
    results.push([
      "every stream and bucket in three copies",
      copies.length > 0 && single.length === 0,
      `${copies.length} made${single.length === 0 ? "" : `; not three: ${single.join(", ")}`}`,
    ])
    results.push([
      "at most one epoch acting at any instant (the store's commit order)",
      witness.commits > 0 && witness.wentBack.length === 0,
      `${witness.commits} fenced commit(s) under ${witness.epochs.size} epoch(s)${witness.wentBack.length === 0 ? ", never an older after a newer" : `: ${witness.wentBack.slice(0, 3).join("; ")}`}`,
    ])
    const accounted = await ended.account(outputs)
    results.push([
      "every process's exit accounted for",
      accounted.unaccounted.length === 0 && accounted.started > 0,
      `${accounted.started} started: ${accounted.killed} killed by the nemesis, ${accounted.stopped} stopped by SIGTERM${accounted.unaccounted.length === 0 ? " with exit 0, none ended by itself" : `; ${accounted.unaccounted.slice(0, 4).join("; ")}`}`,
    ])
    for (const v of via) await Promise.all([v.bus.stop(), v.store.stop()])
    for (const f of [...recordings, ...providerRuns]) {
      const r = w.cli(["simulate", f, "--strict"])
      results.push([
        `${f.split("/").at(-1)} replays to what was done`,
        r.code === 0,
        r.code === 0 ? "simulate --strict: exit 0" : `exit ${r.code}: ${r.err.trim().split("\n").at(-1)}`,
      ])
    }
    const leaks = await w.leaks(
      {
        ...Object.fromEntries([...recordings, ...providerRuns].map((f) => [f, readFileSync(f, "utf8")])),
        ...Object.fromEntries(serves.length === 0 ? [] : outputs.map((r, i) => [`soak process ${i + 1}`, r.output()])),
      },
      Object.values(providerConsumers),
    )
    // Every byte written: the soak's files, the store's folder (its log, its data, its WAL), the bus
    // nodes' stores, and every state of the provider's outbox seen. A file at a time, so memory stays flat.
    const secrets = [...serverPasswords, ...Object.values(providerConsumers)]
    let scanned = 0
    let bytes = 0
    const fileLeaks: Array<string> = [...leaksOf(secrets, { "the provider's outbox": [...outboxSeen].join("\n") })]
    for (const folder of [dir, mesh.pg.dir, mesh.nats.dir])
      for (const [file, text] of Object.entries(everyFile(folder))) {
        scanned += 1
        bytes += text.length
        fileLeaks.push(...leaksOf(secrets, { [file]: text }))
      }
    results.push([
      "no secret in any byte captured or written",
      leaks.length === 0 && fileLeaks.length === 0 && scanned > 0,
      `${leaks.length + fileLeaks.length} found, over every output and command, the bus, the store's rows and ${scanned} file(s) (${(bytes / 2 ** 20).toFixed(1)} MiB; ${outboxSeen.size} state(s) of the outbox)${fileLeaks.length === 0 ? "" : `: ${fileLeaks.slice(0, 3).join("; ")}`}`,
    ])

    console.log(`\nfaults injected (seed ${seed}):`)
    for (const [what, n] of [...faults].sort()) console.log(`  ${String(n).padStart(4)}  ${what}`)
    console.log(`\ninvariants:`)
    for (const [what, ok, detail] of results) console.log(`  ${ok ? "held  " : "BROKEN"}  ${what}: ${detail}`)
    const broken = results.filter(([, ok]) => !ok).length
    console.log(
      broken === 0
        ? `\nsoak: every invariant held over ${minutes} minute(s), seed ${seed}`
        : `\nsoak: ${broken} invariant(s) broken; run it again with --seed ${seed}`,
    )
    process.exitCode = broken === 0 ? 0 : 1
    // A broken invariant is read afterwards: the recordings, every process's output and the store's
    // log are kept beside the soak (its own folder goes at the end).
    if (broken > 0) {
      const kept = mkdtempSync(join(tmpdir(), "mesh-core-soak-broken-"))
      for (const f of [...recordings, ...providerRuns]) cpSync(f, join(kept, f.split("/").at(-1)!))
      for (const [i, r] of outputs.entries())
        writeFileSync(join(kept, `process-${i + 1}.log`), `${r.process.spawnargs.slice(2).join(" ")}\n${r.output()}`)
      cpSync(join(mesh.pg.dir, "log"), join(kept, "store.log"))
      console.log(`what it needs to be read is kept in ${kept}`)
    }
  } finally {
    for (const thaw of held) {
      try {
        thaw()
      } catch {
        /* done */
      }
    }
    for (const r of outputs) await r.stop().catch(() => undefined)
    await w.close().catch(() => undefined)
    provided.remove()
    mesh.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
