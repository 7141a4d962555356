// The delivery records in the store. What to compose, send and report is the core's; this moves rows.
import type { Report, Sent } from "@mesh-core/core/delivery/behind"
import { decodeRecords, type MeshRecords } from "@mesh-core/core/mesh/records"
import type { ReportRecord } from "@mesh-core/core/delivery/questions"
import { PlanRecord } from "@mesh-core/core/gate/plan/records"
import { IdentityRow, NodeNameRow, ReportRow, reportOfRow, SentRow } from "@mesh-core/core/delivery/rows"
import { readRows } from "@mesh-core/core/rows"
import { Context, Effect, Layer, Ref } from "effect"
import { decodedRows, lockKeys, runSql, type Sql, Store, type Tx, type StoreUnreadable } from "./postgres.ts"
import { beginGuarded } from "./session-guard.ts"

const writeRecords = async (tx: Sql, records: MeshRecords) => {
  await tx`insert into mesh_records (id, records) values (1, ${tx.json(records as never)})
    on conflict (id) do update set records = excluded.records, applied_at = now()`
  // The machines as one array each way, never a parameter per machine: the store takes at most 65,535
  // parameters a statement, and `mesh apply` of 400,000 machines failed on it, said as a store that
  // could not be read (issue 28).
  const names = [...records.nodes]
  await tx`insert into nodes (name) select unnest(${names}::text[]) on conflict (name) do nothing`
  await tx`delete from nodes where not (name = any(${names}::text[]))`
}

/**
 * The records in one transaction: their own, or the one `sql` already is (a transaction's connection
 * has no `begin`): the gate's set-build is written in a transaction fenced under the lease's epoch (issue 13).
 */
const saveRecords = async (sql: Sql, records: MeshRecords): Promise<void> => {
  if (typeof Reflect.get(sql, "begin") !== "function") return writeRecords(sql, records)
  await sql.begin((tx) => writeRecords(tx as unknown as Sql, records))
}

const loadRecords = async (sql: Sql): Promise<MeshRecords | undefined> => {
  const [row] = await sql`select records from mesh_records where id = 1`
  if (row === undefined) return undefined
  const d = decodeRecords(row["records"])
  if (!d.ok) throw new Error(`the mesh's records kept in the store are not records: ${d.field}: ${d.problem}`)
  return d.value
}

/** Rows read by the core's Schema; a row that is not one is an unreadable store, never a guess. */
const rowsOrThrow = <A>(
  r: { readonly ok: true; readonly value: A } | { readonly ok: false; readonly why: string },
): A => {
  if (!r.ok) throw new Error(r.why)
  return r.value
}

const nodeNames = async (sql: Sql): Promise<Array<string>> =>
  rowsOrThrow(readRows("nodes", NodeNameRow, await sql`select name from nodes order by name`, (r) => r.name))

/** The next sequence for a machine: the number its next declaration carries. */
const allot = async (sql: Sql | Tx, node: string): Promise<number> => {
  const [row] = await sql`update nodes set sequence = sequence + 1 where name = ${node} returning sequence`
  if (row === undefined) throw new Error(`no machine named ${node} is in the mesh's records`)
  return Number(row["sequence"])
}

const recordSent = async (
  sql: Sql | Tx,
  node: string,
  s: { digest: string; sequence: number; builds: Record<string, string> | null; busUsersDigest: string | undefined },
) => {
  await sql`insert into sent (node, digest, sequence, builds, bus_users_digest, sent_at)
    values (${node}, ${s.digest}, ${s.sequence}, ${s.builds === null ? null : sql.json(s.builds)}, ${s.busUsersDigest ?? null}, now())
    on conflict (node) do update set digest = excluded.digest, sequence = excluded.sequence, builds = excluded.builds,
      bus_users_digest = coalesce(excluded.bus_users_digest, sent.bus_users_digest), sent_at = excluded.sent_at`
}

/** What a machine was last sent, with each module's build its declaration carried when that is known. */
export type SentWithBuilds = Sent & {
  readonly busUsersDigest: string | undefined
  readonly builds: Readonly<Record<string, string>> | undefined
}

const sentAll = async (sql: Sql): Promise<Map<string, SentWithBuilds>> => {
  const read = readRows(
    "sent",
    SentRow,
    await sql`select node, digest, sequence::float8 as sequence, bus_users_digest, builds from sent`,
    (r) =>
      [
        r.node,
        {
          digest: r.digest,
          sequence: r.sequence,
          busUsersDigest: r.bus_users_digest ?? undefined,
          builds: r.builds ?? undefined,
        },
      ] as const,
  )
  if (!read.ok) throw new Error(read.why)
  return new Map(read.value)
}

const reportColumnsOf = `node, digest, sequence::float8 as sequence, outcome, (extract(epoch from reported_at) * 1000)::float8 as reported_ms, refused, failed, detects`

/** Reports read by the core's row Schema: a row that is not one is an error, never a report. */
const reportsOfRows = (rows: ReadonlyArray<unknown>): Array<Report> => {
  const read = readRows("reports", ReportRow, rows, reportOfRow)
  if (!read.ok) throw new Error(read.why)
  return read.value
}

const reportsAll = async (sql: Sql): Promise<Map<string, Report>> =>
  new Map(reportsOfRows(await sql.unsafe(`select ${reportColumnsOf} from reports`)).map((r) => [r.node, r]))

const reportOfNode = async (sql: Sql, node: string): Promise<Report | undefined> =>
  reportsOfRows(await sql.unsafe(`select ${reportColumnsOf} from reports where node = $1`, [node]))[0]

/**
 * The plans a push and `status` read (issue 9, seed 002's heldMachines): every plan in flight, and the
 * newest plan of each module whatever its state (a failed plan whose build stayed registered still
 * holds its unreached machines). Each row is built as the core's PlanRecord and read by its Schema,
 * the 0007 columns (tiers, tier, sent, put_back, tries, tried_at) with it, and what its failed tier
 * carried (0016: held back where its module was put back, 003-15/17); a dry run is never one
 * (issue 10: it holds nothing and hides no real plan), read from the row whether or not the store has
 * that column yet.
 */
const plansHolding = async (sql: Sql): Promise<Array<PlanRecord>> => {
  const rows = await sql.unsafe(`
    with real as (select * from plans where coalesce((to_jsonb(plans) ->> 'dry_run')::boolean, false) = false),
         newest as (select distinct on (module) id from real order by module, sent_at desc, id desc)
    select jsonb_strip_nulls(jsonb_build_object(
      'id', id, 'module', module, 'build', build, 'commit', commit, 'previous', previous, 'previousBuild', previous_build,
      'machines', machines, 'rest', rest, 'sentAt', (extract(epoch from sent_at) * 1000)::float8, 'state', state, 'gate', gate,
      'note', note, 'tiers', tiers, 'tier', tier, 'sent', sent, 'putBack', put_back, 'tries', tries,
      'triedAt', (extract(epoch from tried_at) * 1000)::float8, 'carried', carried)) as plan
    from real where state in ('open', 'sending', 'rolling-back') or id in (select id from newest)
    order by sent_at, id`)
  return rowsOrThrow(
    readRows(
      "plans",
      PlanRecord,
      rows.map((r) => r["plan"]),
      (p) => p,
    ),
  )
}

/**
 * Holds the machines from composing to sending (novox/hq ADR 0100), so two pushes cannot interleave
 * on one machine and be overtaken by what was composed before: advisory locks taken in name order (so
 * two pushes never wait on each other in a circle) in a transaction left open until the release.
 * Not session locks on a reserved connection: once the store had ended that session (stopped, or a
 * partition), the release's unlock was written to a socket the client had let go, and the exception
 * ended `serve` (issue 43, the soak; porsager/postgres#1208). The transaction is guarded
 * (session-guard.ts): a session gone is its locks gone, and nothing more is sent on it. Its own
 * session is not ended for waiting: it waits, idle in its transaction, for the push it holds.
 */
// Exported for test/integration/store.test.ts alone (two clients holding one machine); callers go through DeliveryStore.
export const holdNodes = async (sql: Sql, names: ReadonlyArray<string>) => {
  const sorted = [...new Set(names)].sort()
  let release = () => {}
  const released = new Promise<void>((r) => {
    release = r
  })
  let held = () => {}
  let failed = (_: unknown) => {}
  const taken = new Promise<void>((ok, fail) => {
    held = ok
    failed = fail
  })
  const ended = beginGuarded(sql, async (tx) => {
    await tx`set local idle_in_transaction_session_timeout = 0`
    for (const n of sorted) await tx`select pg_advisory_xact_lock(hashtext(${`mesh-core node ${n}`}))`
    held()
    await released
  })
  ended.catch(failed)
  await taken
  let once = false
  return async () => {
    if (once) return
    once = true
    release()
    // A session already gone released its locks with it: nothing to answer.
    await ended.catch(() => undefined)
  }
}

const loadIdentity = async (sql: Sql): Promise<KeptIdentity | undefined> => {
  const [row] = rowsOrThrow(
    readRows("identity", IdentityRow, await sql`select private_pem, public_pem from identity where id = 1`, (r) => r),
  )
  return row === undefined ? undefined : { privatePem: row.private_pem, publicPem: row.public_pem }
}

/** Keeps a new key unless one is there already, and answers the one kept. */
const keepIdentity = async (sql: Sql, privatePem: string, publicPem: string): Promise<KeptIdentity> => {
  await sql`insert into identity (id, private_pem, public_pem) values (1, ${privatePem}, ${publicPem}) on conflict (id) do nothing`
  return (await loadIdentity(sql))!
}

const reportColumns = reportColumnsOf

/** What a send writes down: the digest and sequence of the declaration, the builds it carried. */
export interface SentWrite {
  readonly digest: string
  readonly sequence: number
  readonly builds: Record<string, string> | null
  readonly busUsersDigest: string | undefined
}

export interface KeptIdentity {
  readonly privatePem: string
  readonly publicPem: string
}

/** What machines reported and were sent, and the mesh's registered builds, as typed operations. */
export class DeliveryStore extends Context.Service<
  DeliveryStore,
  {
    /** A machine's kept report, locked until the transaction ends (when one is open). */
    readonly keptReport: (node: string) => Effect.Effect<ReportRecord | null, StoreUnreadable>
    readonly writeReport: (r: ReportRecord) => Effect.Effect<void, StoreUnreadable>
    readonly reports: Effect.Effect<ReadonlyArray<ReportRecord>, StoreUnreadable>
    readonly sent: Effect.Effect<ReadonlyArray<{ readonly node: string; readonly digest: string }>, StoreUnreadable>
    /** Puts a module's registered build (and its commit) back; fails when the mesh has no records. */
    readonly setBuild: (module: string, build: string, commit: string) => Effect.Effect<void, StoreUnreadable>
    /** Every plan in flight and the newest of each module (plansHolding): what a push composes through. */
    readonly plansHolding: Effect.Effect<ReadonlyArray<PlanRecord>, StoreUnreadable>
    /** The mesh's records, or undefined when none were ever set (`mesh set`). */
    readonly records: Effect.Effect<MeshRecords | undefined, StoreUnreadable>
    /** Sets the mesh's records and its machines, in one transaction (or the one open). */
    readonly saveRecords: (records: MeshRecords) => Effect.Effect<void, StoreUnreadable>
    readonly nodeNames: Effect.Effect<ReadonlyArray<string>, StoreUnreadable>
    /** The next sequence for a machine: the number its next declaration carries. */
    readonly allot: (node: string) => Effect.Effect<number, StoreUnreadable>
    readonly recordSent: (node: string, s: SentWrite) => Effect.Effect<void, StoreUnreadable>
    /** What each machine was last sent, with the bus users' digest it carried. */
    readonly sentAll: Effect.Effect<ReadonlyMap<string, SentWithBuilds>, StoreUnreadable>
    readonly reportsAll: Effect.Effect<ReadonlyMap<string, Report>, StoreUnreadable>
    readonly reportOfNode: (node: string) => Effect.Effect<Report | undefined, StoreUnreadable>
    /** Holds the machines from composing to sending (holdNodes); answers the release, which is safe to run twice. */
    readonly holdNodes: (
      names: ReadonlyArray<string>,
    ) => Effect.Effect<Effect.Effect<void, StoreUnreadable>, StoreUnreadable>
    /** The controller's signing key, kept at first use: the one kept already, or this new one. */
    readonly identity: Effect.Effect<KeptIdentity | undefined, StoreUnreadable>
    readonly keepIdentity: (k: KeptIdentity) => Effect.Effect<KeptIdentity, StoreUnreadable>
  }
>()("mesh-core/store/DeliveryStore") {
  static readonly layer = Layer.effect(
    DeliveryStore,
    Effect.gen(function* () {
      const store = yield* Store
      const run = (span: string) => runSql(store, span)
      const decoded = decodedRows(store)
      return DeliveryStore.of({
        keptReport: (node) =>
          run("DeliveryStore.keptReport")(async (sql) => {
            await lockKeys(sql, "report", [node])
            return sql.unsafe(`select ${reportColumns} from reports where node = $1 for update`, [node])
          }).pipe(
            Effect.flatMap((rows) => decoded(readRows("reports", ReportRow, rows, reportOfRow))),
            Effect.map((l) => l[0] ?? null),
          ),
        writeReport: (r) =>
          run("DeliveryStore.writeReport")(async (sql) => {
            // What it detects is its newest word too: a report that does not say sets it back to not known.
            await sql`insert into reports (node, digest, sequence, outcome, refused, failed, reported_at, detects)
            values (${r.node}, ${r.digest}, ${r.sequence}, ${r.outcome}, ${r.refused ?? null}, ${sql.json([...r.failed])}, ${new Date(r.at)},
              ${r.detects === undefined ? null : sql.json([...r.detects])})
            on conflict (node) do update set digest = excluded.digest, sequence = excluded.sequence, outcome = excluded.outcome,
              refused = excluded.refused, failed = excluded.failed, reported_at = excluded.reported_at, heard_at = now(), detects = excluded.detects`
          }),
        reports: run("DeliveryStore.reports")((sql) => sql.unsafe(`select ${reportColumns} from reports`)).pipe(
          Effect.flatMap((rows) => decoded(readRows("reports", ReportRow, rows, reportOfRow))),
        ),
        sent: run("DeliveryStore.sent")(
          (sql) => sql`select node, digest, sequence::float8 as sequence, bus_users_digest from sent`,
        ).pipe(
          Effect.flatMap((rows) =>
            decoded(readRows("sent", SentRow, rows, (r) => ({ node: r.node, digest: r.digest }))),
          ),
        ),
        setBuild: (module, build, commit) =>
          run("DeliveryStore.setBuild")(async (sql) => {
            const records = await loadRecords(sql)
            if (records === undefined) throw new Error("the mesh has no records")
            await saveRecords(sql, {
              ...records,
              modules: records.modules.map((m) => (m.name === module ? { ...m, build, commit } : m)),
            })
          }),
        plansHolding: run("DeliveryStore.plansHolding")(plansHolding),
        records: run("DeliveryStore.records")(loadRecords),
        saveRecords: (records) => run("DeliveryStore.saveRecords")((sql) => saveRecords(sql, records)),
        nodeNames: run("DeliveryStore.nodeNames")(nodeNames),
        allot: (node) => run("DeliveryStore.allot")((sql) => allot(sql, node)),
        recordSent: (node, s) => run("DeliveryStore.recordSent")((sql) => recordSent(sql, node, s)),
        sentAll: run("DeliveryStore.sentAll")(sentAll),
        reportsAll: run("DeliveryStore.reportsAll")(reportsAll),
        reportOfNode: (node) => run("DeliveryStore.reportOfNode")((sql) => reportOfNode(sql, node)),
        holdNodes: (names) =>
          run("DeliveryStore.holdNodes")((sql) => holdNodes(sql, names)).pipe(
            Effect.map((release) => run("DeliveryStore.releaseNodes")(release)),
          ),
        identity: run("DeliveryStore.identity")(loadIdentity),
        keepIdentity: (k) => run("DeliveryStore.keepIdentity")((sql) => keepIdentity(sql, k.privatePem, k.publicPem)),
      })
    }),
  )

  /** In memory, for shell tests. */
  static readonly layerTest = (
    seed: {
      readonly sent?: ReadonlyArray<{ readonly node: string; readonly digest: string }>
      readonly plans?: ReadonlyArray<PlanRecord>
    } = {},
  ) =>
    Layer.effect(
      DeliveryStore,
      Effect.gen(function* () {
        const reports = yield* Ref.make(new Map<string, ReportRecord>())
        const builds = yield* Ref.make(new Map<string, { build: string; commit: string }>())
        const identity = yield* Ref.make<KeptIdentity | undefined>(undefined)
        return DeliveryStore.of({
          keptReport: (node) => Effect.map(Ref.get(reports), (m) => m.get(node) ?? null),
          writeReport: (r) => Ref.update(reports, (m) => new Map(m).set(r.node, r)),
          reports: Effect.map(Ref.get(reports), (m) => [...m.values()]),
          sent: Effect.succeed(seed.sent ?? []),
          setBuild: (module, build, commit) => Ref.update(builds, (m) => new Map(m).set(module, { build, commit })),
          plansHolding: Effect.succeed(seed.plans ?? []),
          records: Effect.succeed(undefined),
          saveRecords: () => Effect.void,
          nodeNames: Effect.succeed([]),
          allot: () => Effect.succeed(1),
          recordSent: () => Effect.void,
          sentAll: Effect.succeed(new Map()),
          reportsAll: Effect.succeed(new Map()),
          reportOfNode: () => Effect.succeed(undefined),
          holdNodes: () => Effect.succeed(Effect.void),
          identity: Ref.get(identity),
          keepIdentity: (k) => Ref.modify(identity, (kept) => [kept ?? k, kept ?? k]),
        })
      }),
    )
}
