// Three real `serve` processes of one mesh under the controller lease (issue 13, seed 004), over the
// real NATS and PostgreSQL, with short lease bounds (lease 4 s, renew deadline 2.6 s, retry 300 ms):
// exactly one acts at a time; kill -9 of the holder → another takes over within lease + retry;
// SIGTERM → the lease given back and another takes over within 2 s; SIGSTOP past the lease, then
// SIGCONT → the woken holder acts no more, says it stands down and waits as a candidate again, still
// running. Each one killed is replaced by a new candidate, as a supervisor would start it again.
//
// What acted is read from the store itself: triggers of this test's own, on every table the
// controller's workers write, note for each row written the epoch its transaction was fenced under
// (the store's `lease_fence` row, held by the transaction's `mesh_fence` until it commits) and whether
// it was fenced at all. Providers' words are published in bursts between the faults; every one of them
// is kept in the end (no standing lost).
import { type ChildProcess, spawn } from "node:child_process"
import { jetstream } from "@nats-io/jetstream"
import { headers } from "@nats-io/transport-node"
import { Effect } from "effect"
import type postgres from "postgres"
import type { GateFacts } from "@mesh-core/core/gate/judging/facts"
import { ComponentController, noManifest } from "@mesh-core/core/gate/judging/facts"
import { healthGood, judgeHealth } from "@mesh-core/core/gate/judging/judge"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { openOnce } from "../../shells/src/bus/nats.ts"
import { busNames, saidAtHeader } from "../../shells/src/bus/subjects.ts"
import { leaseBucketName } from "../../shells/src/lease/bucket.ts"
import { leaseHolderFact } from "../../shells/src/lease/read.ts"
import { failingBody } from "../support/private-controller.ts"
import {
  cleanUp,
  cliPath,
  databaseUrl,
  eventually,
  natsUrl,
  requireNats,
  migratedStore,
  runCli,
  uniqueNames,
} from "../support/servers.ts"

const lease = 4_000
const retry = 300
/** What a loaded machine adds to a takeover: the looks themselves, the process's line reaching this test. */
const slack = 1_500
const lostSentence =
  "the controller lease was lost; this controller stopped acting and stands down, a candidate again until it holds the lease"
const holdsPattern = /^\[lease\] this controller holds the controller lease, epoch (\d+); it acts$/
const waitsPattern = /this controller waits as a candidate$/

const { prefix, schema } = uniqueNames("serve_lease")
const env = {
  NATS_URL: natsUrl,
  DATABASE_URL: databaseUrl,
  MESH_BUS_PREFIX: prefix,
  MESH_STORE_SCHEMA: schema,
  MESH_METRICS_ADDR: "127.0.0.1:0",
  MESH_LEASE_DURATION: `${lease}ms`,
  MESH_LEASE_RENEW_DEADLINE: "2600ms",
  MESH_LEASE_RETRY: `${retry}ms`,
}
const names = busNames(prefix)
/** The tables the controller's workers write (push's `sent` and `nodes`, and the schema reach at start, are not acts of the lease). */
const actTables = ["standings", "dead_letters", "reports", "health_statements", "conditions", "plans", "gate_verdicts"]

interface Line {
  readonly at: number
  readonly text: string
}

interface Serve {
  readonly name: string
  readonly child: ChildProcess
  readonly lines: Array<Line>
  readonly exited: Promise<number | null>
  readonly waitFor: (pattern: RegExp, ms: number) => Promise<Line>
  readonly signal: (s: NodeJS.Signals) => void
  readonly output: () => string
}

const serves: Array<Serve> = []
let sql: postgres.Sql
let published = 0

const startServe = (name: string): Serve => {
  const child = spawn(process.execPath, [cliPath, "serve"], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  })
  const lines: Array<Line> = []
  let partial = ""
  const take = (d: Buffer) => {
    partial += d.toString()
    const parts = partial.split("\n")
    partial = parts.pop() ?? ""
    for (const text of parts) lines.push({ at: Date.now(), text })
  }
  child.stdout!.on("data", take)
  child.stderr!.on("data", take)
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)))
  const output = () => lines.map((l) => l.text).join("\n")
  const s: Serve = {
    name,
    child,
    lines,
    exited,
    output,
    // Polled, so a line is timed when it arrived, not when this test looked.
    waitFor: (pattern, ms) =>
      eventually(`${name}: a line matching ${pattern}`, () => lines.find((l) => pattern.test(l.text)), ms).catch(
        (e: Error) => {
          throw new Error(`${e.message}; it said:\n${output()}`)
        },
      ),
    signal: (sig) => {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, sig)
    },
  }
  serves.push(s)
  return s
}

const running = (s: Serve) => s.child.exitCode === null && s.child.signalCode === null
const epochOf = (l: Line) => Number(holdsPattern.exec(l.text)![1])
const holdsLine = (s: Serve) => s.lines.find((l) => holdsPattern.test(l.text))
/** Every serve still running that has not held the lease: the candidates. */
const candidates = () => serves.filter((s) => running(s) && holdsLine(s) === undefined)
/** Waits until every candidate says it waits (a new one is up and looking). */
const allWaiting = () => Promise.all(candidates().map((s) => s.waitFor(waitsPattern, 30_000)))

/** The one among `among` that comes to hold the lease, with its line; fails if two do. */
const nextHolder = async (among: ReadonlyArray<Serve>, ms: number) => {
  const found = await eventually(
    "a controller holding the lease",
    () => {
      const holding = among.filter((s) => holdsLine(s) !== undefined)
      return holding.length > 0 ? holding : undefined
    },
    ms,
  ).catch((e: Error) => {
    throw new Error(`${e.message}\n${among.map((s) => `--- ${s.name}\n${s.output()}`).join("\n")}`)
  })
  expect(
    found.map((s) => s.name),
    "two candidates took the lease",
  ).toHaveLength(1)
  return { serve: found[0]!, line: holdsLine(found[0]!)! }
}

/** A burst of providers' words, each a consumer of its own; waits until the store keeps every word said so far. */
const burst = async (n: number) => {
  const nc = await requireNats()
  try {
    const js = jetstream(nc)
    for (let i = published; i < published + n; i++) {
      const h = headers()
      h.set(saidAtHeader, new Date(Date.parse("2026-10-05T06:10:00Z") + i).toISOString())
      await js.publish(names.failing, JSON.stringify(failingBody(i)), { headers: h, timeout: 5_000 })
    }
  } finally {
    await nc.close()
  }
  published += n
  await kept()
}

const kept = () =>
  eventually(
    `the store keeping all ${published} words`,
    async () => {
      const [r] = await sql`select count(*)::int as n from standings where state = 'failing'`
      return r!["n"] === published ? true : undefined
    },
    20_000,
  )

beforeAll(async () => {
  await (await requireNats()).close()
  sql = await migratedStore(schema, 2)
  // The test's own witness of every act: the epoch the writing transaction was fenced under, and
  // whether it was fenced (it holds lease_fence's row shared, or updated it) at all.
  await sql`create table act_epochs (
    id bigserial primary key, tbl text not null, epoch bigint not null, fenced boolean not null, at timestamptz not null default clock_timestamp())`
  await sql.unsafe(`create function note_act() returns trigger language plpgsql set search_path from current as $$
    begin
      insert into act_epochs (tbl, epoch, fenced) values (tg_table_name, (select epoch from lease_fence where one),
        exists (select 1 from pg_locks where pid = pg_backend_pid() and locktype = 'relation'
          and relation = 'lease_fence'::regclass and mode in ('RowShareLock', 'RowExclusiveLock')));
      return null;
    end $$`)
  for (const t of actTables)
    await sql.unsafe(
      `create trigger note_act after insert or update or delete on ${t} for each row execute function note_act()`,
    )
}, 30_000)

afterAll(async () => {
  for (const s of serves) {
    s.signal("SIGCONT")
    s.signal("SIGKILL")
  }
  await Promise.all(serves.map((s) => s.exited))
  await sql?.end({ timeout: 5 })
  await cleanUp(prefix, schema)
})

describe("three serve processes under the controller lease", () => {
  it("one acts at a time; kill -9, SIGTERM and SIGSTOP of the holder each hand the lease on, epochs never interleave in the store, no word lost", async () => {
    const figures: Array<string> = []
    // Three at once: exactly one takes the lease, the others wait and say for whom.
    const first = [startServe("a"), startServe("b"), startServe("c")]
    const h1 = await nextHolder(first, 45_000)
    const e1 = epochOf(h1.line)
    await allWaiting()
    await h1.serve.waitFor(/following /, 20_000)
    await burst(20)

    // status names the holder, its epoch and since when.
    const holderName = /held by (\S+) \(epoch/.exec(first.find((s) => s !== h1.serve)!.output())![1]!
    expect(holderName).toContain(`/${h1.serve.child.pid}/`)
    // Ready from the holder's first renewal after its followers caught up (up to one retry after).
    const json = await eventually(
      "status saying the holder is ready",
      () => {
        const j = JSON.parse(runCli(["status", "--json"], env).out) as { lease: Record<string, unknown> }
        return j.lease["ready"] === true ? j : undefined
      },
      15_000,
    )
    expect(json.lease).toMatchObject({ state: "held", holder: holderName, epoch: e1, ready: true })
    expect(Date.parse(String(json.lease["since"]))).toBeLessThanOrEqual(Date.now())
    expect(runCli(["status"], env).out).toMatch(
      new RegExp(
        `^controller lease: held by ${holderName.replace(/[/.]/g, "\\$&")}, epoch ${e1}, since \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z \\(renewed \\d+(ms|s) ago\\); it acts$`,
        "m",
      ),
    )

    // kill -9: no give-back; a candidate takes over once the lease has run out on its own clock.
    const killedAt = Date.now()
    h1.serve.signal("SIGKILL")
    startServe("d")
    const h2 = await nextHolder(candidates(), lease + retry + slack + 5_000)
    const killTakeover = h2.line.at - killedAt
    figures.push(`kill -9 → next holder ${killTakeover} ms (lease ${lease} ms + retry ${retry} ms)`)
    expect(epochOf(h2.line)).toBe(e1 + 1)
    expect(killTakeover).toBeLessThan(lease + retry + slack)
    await allWaiting()
    await burst(20)

    // SIGTERM: the lease given back, the holder exits 0, another takes over within 2 s.
    const termAt = Date.now()
    h2.serve.signal("SIGTERM")
    const waiting = candidates()
    startServe("e")
    const h3 = await nextHolder(waiting, 2_000 + slack)
    const termTakeover = h3.line.at - termAt
    figures.push(`SIGTERM → next holder ${termTakeover} ms`)
    expect(termTakeover).toBeLessThan(2_000)
    expect(epochOf(h3.line)).toBe(e1 + 2)
    expect(await h2.serve.exited).toBe(0)
    expect(h2.serve.output()).toContain(`the controller lease (epoch ${e1 + 1}) was given back`)
    await allWaiting()
    await burst(20)

    // The gate's controller component, judged from the real lease as a release of the controller's
    // own module would be: the new holder took the lease after the "send" (the SIGTERM), says it is
    // ready, and is named with its epoch, so the gate passes it.
    const now = Date.now()
    const readHolder = () =>
      Effect.runPromise(
        Effect.scoped(Effect.flatMap(openOnce(natsUrl), (bus) => leaseHolderFact(bus, leaseBucketName(prefix), now))),
      )
    // Ready from its first renewal after its followers caught up (up to one retry after).
    const holder = await eventually(
      "the new holder's record saying it is ready",
      async () => {
        const h = await readHolder()
        return h.ok && h.value?.ready === true ? h : undefined
      },
      15_000,
    )
    expect(holder).toMatchObject({
      ok: true,
      value: { ready: true, why: expect.stringContaining(`/${h3.serve.child.pid}/`) },
    })
    expect(holder.ok && holder.value?.why).toContain(`(epoch ${e1 + 2})`)
    const facts: GateFacts = {
      now,
      reports: { "hq-3": { at: now - 1_000, current: true, outcome: "applied" } },
      engines: {},
      served: { ok: true, value: {} },
      open: { ok: true, value: [] },
      rolledBack: {},
      holder,
      health: { ok: true, value: {} },
    }
    expect(judgeHealth("controller", ComponentController, noManifest, "hq-3", termAt, facts).health).toBe(healthGood)

    // SIGSTOP past the lease: another takes over and acts; woken, the old holder acts no more and stands
    // down as a candidate, still running (docs/lease.md: serve exits only on a signal).
    const stoppedAt = Date.now()
    h3.serve.signal("SIGSTOP")
    const h4 = await nextHolder(candidates(), lease + retry + slack + 5_000)
    figures.push(`SIGSTOP → next holder ${h4.line.at - stoppedAt} ms`)
    expect(epochOf(h4.line)).toBe(e1 + 3)
    await burst(20)
    h3.serve.signal("SIGCONT")
    const woke = Date.now()
    for (;;) {
      const out = h3.serve.output()
      const lostAt = out.indexOf(lostSentence)
      if (lostAt >= 0 && out.indexOf("this controller waits as a candidate", lostAt) > lostAt) break
      expect(Date.now() - woke, h3.serve.output()).toBeLessThan(10_000)
      await new Promise((r) => setTimeout(r, 100))
    }
    expect(running(h3.serve), h3.serve.output()).toBe(true)
    await burst(20)

    // The store's witness: every act fenced, under an epoch some holder said it held, and the epochs in
    // the order they were written never interleave (each epoch's acts all after the one before).
    const acts = await sql`select epoch::int as epoch, fenced, at from act_epochs order by at, id`
    expect(acts.length).toBeGreaterThanOrEqual(published)
    expect(acts.filter((a) => a["fenced"] !== true)).toEqual([])
    const order = acts.map((a) => a["epoch"] as number).filter((ep, i, all) => i === 0 || all[i - 1] !== ep)
    expect(order).toEqual([e1, e1 + 1, e1 + 2, e1 + 3])
    // No standing lost: every word said, kept once per consumer; the last holder still acts.
    await kept()
    expect(running(h4.serve)).toBe(true)
    // No other running serve holds it now: one that held it before stood down since.
    const holdsNow = (s: Serve) => {
      const out = s.output()
      const held = out.lastIndexOf("holds the controller lease")
      return held >= 0 && !out.slice(held).includes(lostSentence)
    }
    expect(serves.filter((s) => running(s) && s !== h4.serve && holdsNow(s)).map((s) => s.name)).toEqual([])
    console.log(`[serve-lease] ${figures.join("; ")}`)
  }, 120_000)
})
