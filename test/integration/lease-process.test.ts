// A holder of the controller lease as a process, killed, stopped and frozen (issue 13; seed 004):
// kill -9 → another takes over within lease + retry; SIGTERM → given back, another takes over within
// 2 s; SIGSTOP past the lease, then SIGCONT → its act on the way is refused by the store, it says the
// seed's sentence and exits non-zero. SIGSTOP inside an open transaction (issue 26) → the store ends
// that transaction's session, by its bounds before anyone can take over or by the new holder's fence
// as it takes over, so it never commits, and the new holder keeps its words within lease + retry of
// the pause. Over the real NATS and PostgreSQL, each test with a bucket of its own; lease 2 s, renew
// deadline 1.2 s, retry 300 ms.
import type postgres from "postgres"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { endHolder, type Holder, holdsPattern, leaseSettingsEnv, startHolder } from "../support/lease-children.ts"
import { cleanUp, databaseUrl, migratedStore, natsUrl, requireNats, uniqueNames } from "../support/servers.ts"

const lease = 2_000
const retry = 300
const settings = leaseSettingsEnv(lease, 1_200, retry)
const lostSentence =
  "the controller lease was lost; this controller stopped acting and stands down, a candidate again until it holds the lease"

const { prefix, schema } = uniqueNames("lease_proc")
let sql: postgres.Sql
const started: Array<Holder> = []
let n = 0

beforeAll(async () => {
  await (await requireNats()).close()
  sql = await migratedStore(schema, 2)
  await sql`create table lease_acts (id bigserial primary key, epoch bigint not null, holder text not null)`
  // The order the acts committed in: each act's epoch noted as its transaction commits (a deferred
  // trigger runs at COMMIT), numbered as noted.
  await sql`create table act_commits (seq bigserial primary key, epoch bigint not null, holder text not null)`
  await sql`create function note_commit() returns trigger language plpgsql as $$
    begin insert into act_commits (epoch, holder) values (new.epoch, new.holder); return null; end $$`
  await sql`create constraint trigger note_commit after insert on lease_acts deferrable initially deferred
    for each row execute function note_commit()`
})
afterEach(async () => {
  for (const h of started.splice(0)) await endHolder(h)
})
afterAll(async () => {
  await sql.end({ timeout: 5 })
  await cleanUp(prefix, schema)
})

const holder = (name: string, mesh: string, extra: Record<string, string> = {}) => {
  const h = startHolder(name, {
    NATS_URL: natsUrl,
    LEASE_PREFIX: mesh,
    DATABASE_URL: databaseUrl,
    LEASE_SCHEMA: schema,
    ...settings,
    ...extra,
  })
  started.push(h)
  return h
}
/** A mesh prefix of each test's own (its lease's bucket is the prefix's), all under the run's prefix so cleanUp removes them. */
const meshOfTest = () => `${prefix}_${++n}`
const epochOf = (text: string) => Number(holdsPattern.exec(text)![1])
const heldPattern = /^holding a transaction open under epoch (\d+) \(backend (\d+)\)$/

/** When a backend of the store was gone, looked for every 25 ms from now. */
const goneAt = async (pid: number, ms: number) => {
  const until = Date.now() + ms
  while (Date.now() < until) {
    if ((await sql`select 1 from pg_stat_activity where pid = ${pid}`).length === 0) return Date.now()
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new Error(`backend ${pid} still there after ${ms} ms`)
}

/** The epochs of the acts, in the order their transactions committed. */
const commitOrder = async (epochs: ReadonlyArray<number>) =>
  (await sql`select epoch::int as epoch from act_commits where epoch in ${sql(epochs)} order by seq`).map(
    (r) => r["epoch"] as number,
  )

describe("a lease holder as a process", () => {
  it("kill -9 of the holder: the candidate takes over within the lease and the retry, at the next epoch", async () => {
    const mesh = meshOfTest()
    const a = holder("a", mesh)
    const aHolds = await a.waitFor(holdsPattern, 15_000)
    const b = holder("b", mesh)
    await b.waitFor(
      /^\[lease\] the controller lease is held by .* \(epoch \d+\); this controller waits as a candidate$/,
      15_000,
    )
    // Killed at a moment the candidate has already seen a few renewals.
    await new Promise((r) => setTimeout(r, 1_000))
    const killedAt = Date.now()
    a.signal("SIGKILL")
    const bHolds = await b.waitFor(holdsPattern, 10_000)
    const took = bHolds.at - killedAt
    expect(epochOf(bHolds.text)).toBe(epochOf(aHolds.text) + 1)
    // The bound: the candidate saw the holder's last renewal within a retry of its writing, and takes it a lease after;
    // 400 ms for the looks themselves on a loaded machine and the line reaching this test.
    expect(took).toBeLessThan(lease + retry + 400)
    expect(took).toBeGreaterThan(lease - 1_200)
  })

  it("SIGTERM of the holder: the lease is given back, the holder exits 0, and the candidate takes over within 2 s", async () => {
    const mesh = meshOfTest()
    const a = holder("a", mesh)
    const aHolds = await a.waitFor(holdsPattern, 15_000)
    const b = holder("b", mesh)
    await b.waitFor(/waits as a candidate$/, 15_000)
    const termAt = Date.now()
    a.signal("SIGTERM")
    expect(await a.exited).toBe(0)
    await a.waitFor(
      new RegExp(`^\\[lease\\] the controller lease \\(epoch ${epochOf(aHolds.text)}\\) was given back`),
      1_000,
    )
    const bHolds = await b.waitFor(holdsPattern, 2_000)
    expect(bHolds.at - termAt).toBeLessThan(2_000)
    expect(epochOf(bHolds.text)).toBe(epochOf(aHolds.text) + 1)
  })

  it("SIGSTOP of the holder past its lease, then SIGCONT: its act on the way is refused by the store, and it says so and exits non-zero", async () => {
    const mesh = meshOfTest()
    // A's acts work 1.5 s between reading their epoch and reaching the store: it is frozen inside one.
    const a = holder("a", mesh, { LEASE_ACT_MS: "1500" })
    const aHolds = await a.waitFor(holdsPattern, 15_000)
    const epochA = epochOf(aHolds.text)
    const b = holder("b", mesh, { LEASE_ACT_MS: "50" })
    await b.waitFor(/waits as a candidate$/, 15_000)
    const from = a.lines.length
    await a.waitFor(new RegExp(`^acting under epoch ${epochA}$`), 5_000, from)
    a.signal("SIGSTOP")
    const bHolds = await b.waitFor(holdsPattern, 10_000)
    const epochB = epochOf(bHolds.text)
    expect(epochB).toBe(epochA + 1)
    await b.waitFor(new RegExp(`^acted under epoch ${epochB}$`), 5_000)
    a.signal("SIGCONT")
    const code = await Promise.race([a.exited, new Promise<string>((r) => setTimeout(() => r("still running"), 5_000))])
    expect(code).toBe(1)
    const said = a.lines.map((l) => l.text)
    expect(said).toContain(
      `refused: the store refused a write under epoch ${epochA}: epoch ${epochB} is newer, so another controller holds the lease; ${lostSentence}`,
    )
    expect(said.at(-1)).toContain(lostSentence)
    // Woken, it began no act: the one it was frozen in was its last.
    expect(a.lines.slice(from).filter((l) => l.text.startsWith("acting under epoch"))).toHaveLength(1)
    // In the store the epochs never interleave: every act under A's epoch before every act under B's.
    const rows = await sql`select epoch::int as epoch from lease_acts where epoch in (${epochA}, ${epochB}) order by id`
    const epochs = rows.map((r) => r["epoch"] as number)
    expect(epochs.lastIndexOf(epochA)).toBeLessThan(epochs.indexOf(epochB))
    expect(epochs).toContain(epochB)
  })

  for (const bounded of [true, false])
    it(`SIGSTOP of the holder while its transaction is open${bounded ? "" : ", its sessions unbounded (a controller built before the bounds)"}: the transaction never commits, ${bounded ? "its session ended by its own bound before anyone could take over" : "its session ended by the new holder's fence as it takes over"}, and the new holder keeps its words within lease + retry of the pause`, async () => {
      const mesh = meshOfTest()
      const a = holder("a", mesh, {
        LEASE_ACT_MS: "50",
        // Over before the pause ends, so woken it tries to commit at once.
        LEASE_HOLD_MS: "1000",
        ...(bounded ? {} : { LEASE_STORE_UNBOUNDED: "1" }),
      })
      const aHolds = await a.waitFor(holdsPattern, 15_000)
      const epochA = epochOf(aHolds.text)
      const b = holder("b", mesh, { LEASE_ACT_MS: "50" })
      await b.waitFor(/waits as a candidate$/, 15_000)
      const from = a.lines.length
      a.signal("SIGUSR2")
      const held = await a.waitFor(heldPattern, 5_000, from)
      a.signal("SIGSTOP")
      const pausedAt = Date.now()
      const backend = Number(heldPattern.exec(held.text)![2])
      expect(Number(heldPattern.exec(held.text)![1])).toBe(epochA)
      const gone = goneAt(backend, lease + retry + 5_000)
      const bHolds = await b.waitFor(holdsPattern, 10_000)
      const epochB = epochOf(bHolds.text)
      expect(epochB).toBe(epochA + 1)
      const bActed = await b.waitFor(new RegExp(`^acted under epoch ${epochB}$`), 10_000)
      const endedAt = await gone
      const kept = bActed.at - pausedAt
      const tookOver = bHolds.at - pausedAt
      console.log(
        `[lease-process] ${bounded ? "bounded" : "unbounded"}: paused holder's session ended ${endedAt - pausedAt} ms after the pause; ` +
          `next holder at ${tookOver} ms, its first fenced write kept at ${kept} ms (lease ${lease} ms + retry ${retry} ms)`,
      )
      if (bounded) {
        // Ended by the server at its idle bound (320 ms for these settings), before any candidate could take over.
        expect(endedAt).toBeLessThan(bHolds.at)
      } else {
        // Nothing ended it until the new holder's fence did: as it took over, not before.
        expect(endedAt).toBeGreaterThanOrEqual(bHolds.at - 200)
      }
      // Words kept within the lease and the retry of the pause; 1 s for a loaded machine.
      expect(kept).toBeLessThan(lease + retry + 1_000)
      a.signal("SIGCONT")
      // 10 s: when its session ended with a statement on the way, the client keeps that statement as
      // though still to be answered, and closing the store waits its 5 s for it (store/postgres.ts open).
      const code = await Promise.race([
        a.exited,
        new Promise<string>((r) => setTimeout(() => r("still running"), 10_000)),
      ])
      expect(
        code,
        a.lines
          .slice(from)
          .map((l) => l.text)
          .join("\n"),
      ).toBe(1)
      expect(a.lines.at(-1)?.text).toContain(lostSentence)
      // Nothing of its epoch acted from the held transaction on (acts before it, while SIGUSR2 was on its
      // way on a loaded machine, were ordinary acts of the holder it then was).
      const said = a.lines.slice(a.lines.indexOf(held) + 1).map((l) => l.text)
      expect(said.filter((l) => l === `acted under epoch ${epochA}`).length, said.join("\n")).toBe(0)
      // The held transaction never committed, and no act of A's epoch committed after B's first.
      const heldRows = await sql`select 1 from lease_acts where holder like '% held'`
      expect(heldRows).toHaveLength(0)
      const order = await commitOrder([epochA, epochB])
      expect(order.lastIndexOf(epochA)).toBeLessThan(order.indexOf(epochB))
    })
})
