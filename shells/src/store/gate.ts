// The gate's records in the store. What to raise, judge and put back is the core's; this moves rows.
import type { Gate } from "@mesh-core/core/gate/judge"
import type { Observation } from "@mesh-core/core/gate/observations"
import {
  BuildRow, buildOfRow, ConditionRow, conditionOfRow, PlanRow, planOfRow, readRows, StatementRow, statementOfRow,
} from "@mesh-core/core/controller/rows"
import type {
  BuildRecord, ConditionRecord, ObservationRecord, PlanRecord, StatementRecord, VerdictRecord,
} from "@mesh-core/core/controller/records"
import { Context, Effect, Layer, Ref } from "effect"
import { decodedRows, lockKeys, runSql, type Sql, Store, type StoreUnreadable } from "./postgres.ts"

type Raisable = Pick<Observation, "key" | "source" | "scope" | "id" | "machine" | "also" | "kind" | "severity" | "summary" | "resolver">

/** Raises a condition, or keeps it raised (its first raising stands; its words are the newest). */
export const raiseIn = async (sql: Sql, o: Raisable | (Omit<Raisable, "scope"> & { scope: string }), at: number) => {
  await sql`insert into conditions (key, source, scope, subject_id, machine, also, kind, severity, summary, resolver, raised_at)
    values (${o.key}, ${o.source}, ${o.scope}, ${o.id}, ${o.machine === "" ? null : o.machine}, ${sql.json([...o.also])}, ${o.kind}, ${o.severity}, ${o.summary}, ${o.resolver ?? null}, ${new Date(at)})
    on conflict (key) do update set summary = excluded.summary, severity = excluded.severity, resolver = excluded.resolver,
      raised_at = case when conditions.cleared_at is null then conditions.raised_at else excluded.raised_at end,
      cleared_at = null, cleared_by = null`
}

export const clearIn = async (sql: Sql, key: string, by: string) => {
  await sql`update conditions set cleared_at = now(), cleared_by = ${by} where key = ${key} and cleared_at is null`
}

/** The open conditions, as `conditions` shows them: read by the core's row Schema. */
export const openConditions = async (sql: Sql) => {
  const read = readRows("conditions", ConditionRow, await sql.unsafe(`select ${conditionColumns} from conditions where cleared_at is null order by raised_at, key`), conditionOfRow)
  if (!read.ok) throw new Error(read.why)
  return read.value
}

export const recordBuild = async (sql: Sql, b: { build: string; module: string; commit: string; source?: string | undefined }) => {
  await sql`insert into builds (build, module, commit, source) values (${b.build}, ${b.module}, ${b.commit}, ${b.source ?? null}) on conflict (build) do nothing`
}

/** Whether a build is among the newest kept of its module. */
export const amongKept = async (sql: Sql, module: string, build: string, kept: number) => {
  const rows = await sql`select build from builds where module = ${module} order by recorded_at desc limit ${kept}`
  return rows.some((r) => r["build"] === build)
}

export interface PlanRow {
  readonly id: string
  readonly module: string
  readonly build: string
  readonly commit: string
  readonly previous: string
  readonly previousBuild: string | undefined
  readonly machines: ReadonlyArray<string>
  readonly rest: ReadonlyArray<string>
  readonly sentAt: number
  readonly state: "open" | "sending" | "passed" | "rolling-back" | "failed"
  readonly gate: Gate | undefined
  readonly note: string
}

/** Keeps a plan; one already decided (by this controller or another) is not written over. */
export const savePlan = async (sql: Sql, p: PlanRow) => {
  await sql`insert into plans (id, module, build, commit, previous, previous_build, machines, rest, sent_at, state, gate, note)
    values (${p.id}, ${p.module}, ${p.build}, ${p.commit}, ${p.previous}, ${p.previousBuild ?? null}, ${sql.json([...p.machines])}, ${sql.json([...p.rest])},
      ${new Date(p.sentAt)}, ${p.state}, ${p.gate === undefined ? null : sql.json(p.gate as never)}, ${p.note})
    on conflict (id) do update set state = excluded.state, gate = excluded.gate, note = excluded.note
    where plans.state = 'open'`
}

/** Records a gate's verdict once per build; answers false when one was kept already. */
export const recordVerdict = async (sql: Sql, v: {
  build: string; module: string; commit: string; previous: string; plan: string; machines: ReadonlyArray<string>; verdict: string
  rollback: string; why: string; component: string; judgingFrom: number
}): Promise<boolean> => {
  const rows = await sql`insert into gate_verdicts (build, module, commit, previous, plan, machines, verdict, rollback, why, component, judging_from)
    values (${v.build}, ${v.module}, ${v.commit}, ${v.previous}, ${v.plan}, ${sql.json([...v.machines])}, ${v.verdict}, ${v.rollback}, ${v.why}, ${v.component || null}, ${new Date(v.judgingFrom)})
    on conflict (build) do nothing returning build`
  return rows.length === 1
}

export const setRollback = async (sql: Sql, build: string, rollback: string) => {
  await sql`update gate_verdicts set rollback = ${rollback} where build = ${build}`
}

const planColumns = `id, module, build, commit, previous, previous_build, machines, rest, (extract(epoch from sent_at) * 1000)::float8 as sent_ms,
  state, gate, note`
const conditionColumns = `key, source, (extract(epoch from raised_at) * 1000)::float8 as raised_ms, scope, subject_id, machine, also, kind, summary,
  severity, resolver`
const statementColumns = `machine, (extract(epoch from stated_at) * 1000)::float8 as stated_ms, resources, streaks`

export type KeptStatement = { readonly statement: StatementRecord; readonly streaks: Readonly<Record<string, number>> }

/** The release gate's records and the machines' health statements, as typed operations. */
export class GateStore extends Context.Service<GateStore, {
  readonly openPlans: Effect.Effect<ReadonlyArray<PlanRecord>, StoreUnreadable>
  readonly plans: Effect.Effect<ReadonlyArray<PlanRecord>, StoreUnreadable>
  /** Keeps a plan; one already decided (by this controller or another) is not written over. */
  readonly savePlan: (p: PlanRecord) => Effect.Effect<void, StoreUnreadable>
  readonly builds: (builds: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<BuildRecord>, StoreUnreadable>
  /** Whether a build is among the newest `kept` of its module. */
  readonly amongKept: (module: string, build: string, kept: number) => Effect.Effect<boolean, StoreUnreadable>
  /** Keeps a verdict once per build; answers whether this one was kept (false: one was kept already). */
  readonly recordVerdict: (v: VerdictRecord) => Effect.Effect<boolean, StoreUnreadable>
  readonly setRollback: (build: string, rollback: string) => Effect.Effect<void, StoreUnreadable>
  readonly raiseCondition: (o: ObservationRecord, at: number) => Effect.Effect<void, StoreUnreadable>
  readonly clearCondition: (key: string, by: string) => Effect.Effect<void, StoreUnreadable>
  readonly openConditions: Effect.Effect<ReadonlyArray<ConditionRecord>, StoreUnreadable>
  readonly statements: Effect.Effect<Readonly<Record<string, StatementRecord>>, StoreUnreadable>
  /** A machine's kept statement and streaks, locked until the transaction ends (when one is open). */
  readonly keptStatement: (machine: string) => Effect.Effect<KeptStatement | null, StoreUnreadable>
  readonly writeStatement: (s: StatementRecord, streaks: Readonly<Record<string, number>>) => Effect.Effect<void, StoreUnreadable>
}>()("mesh-core/store/GateStore") {
  static readonly layer = Layer.effect(GateStore, Effect.gen(function*() {
    const store = yield* Store
    const run = (span: string) => runSql(store, span)
    const decoded = decodedRows(store)
    const plansWhere = (span: string, open: boolean) =>
      run(span)((sql) => open ? sql.unsafe(`select ${planColumns} from plans where state = 'open' order by sent_at`) : sql.unsafe(`select ${planColumns} from plans order by sent_at`))
        .pipe(Effect.flatMap((rows) => decoded(readRows("plans", PlanRow, rows, planOfRow))))
    return GateStore.of({
      openPlans: plansWhere("GateStore.openPlans", true),
      plans: plansWhere("GateStore.plans", false),
      savePlan: (p) => run("GateStore.savePlan")((sql) => savePlan(sql, {
        ...p, previousBuild: p.previousBuild, gate: p.gate === undefined ? undefined : gateOfRecord(p.gate),
      })),
      builds: (builds) =>
        run("GateStore.builds")((sql) => sql`select build, module, commit, source from builds where build = any(${[...builds]}::text[])`).pipe(
          Effect.flatMap((rows) => decoded(readRows("builds", BuildRow, rows, buildOfRow))),
          Effect.map((found) => builds.flatMap((b) => found.filter((f) => f.build === b))),
        ),
      amongKept: (module, build, kept) => run("GateStore.amongKept")((sql) => amongKept(sql, module, build, kept)),
      recordVerdict: (v) => run("GateStore.recordVerdict")((sql) => recordVerdict(sql, v)),
      setRollback: (build, rollback) => run("GateStore.setRollback")((sql) => setRollback(sql, build, rollback)),
      raiseCondition: (o, at) => run("GateStore.raiseCondition")((sql) => raiseIn(sql, { ...o, resolver: o.resolver }, at)),
      clearCondition: (key, by) => run("GateStore.clearCondition")((sql) => clearIn(sql, key, by)),
      openConditions: run("GateStore.openConditions")((sql) => sql.unsafe(`select ${conditionColumns} from conditions where cleared_at is null order by raised_at, key`))
        .pipe(Effect.flatMap((rows) => decoded(readRows("conditions", ConditionRow, rows, conditionOfRow)))),
      statements: run("GateStore.statements")((sql) => sql.unsafe(`select ${statementColumns} from health_statements`)).pipe(
        Effect.flatMap((rows) => decoded(readRows("health_statements", StatementRow, rows, statementOfRow))),
        Effect.map((list) => Object.fromEntries(list.map((k) => [k.statement.machine, k.statement]))),
      ),
      keptStatement: (machine) =>
        run("GateStore.keptStatement")(async (sql) => {
          // FOR UPDATE locks only a row that exists: the key's lock keeps two first statements apart.
          await lockKeys(sql, "health", [machine])
          return sql.unsafe(`select ${statementColumns} from health_statements where machine = $1 for update`, [machine])
        }).pipe(
          Effect.flatMap((rows) => decoded(readRows("health_statements", StatementRow, rows, statementOfRow))),
          Effect.map((list) => list[0] ?? null),
        ),
      writeStatement: (st, streaks) =>
        run("GateStore.writeStatement")(async (sql) => {
          await sql`insert into health_statements (machine, stated_at, resources, streaks)
            values (${st.machine}, ${new Date(st.at)}, ${sql.json(st.resources as never)}, ${sql.json({ ...streaks })})
            on conflict (machine) do update set stated_at = excluded.stated_at, resources = excluded.resources, streaks = excluded.streaks, heard_at = now()`
        }),
    })
  }))

  /** In memory, for shell tests: plans, verdicts once per build, conditions, statements. */
  static readonly layerTest = (seed: { readonly plans?: ReadonlyArray<PlanRecord>; readonly builds?: ReadonlyArray<BuildRecord> } = {}) =>
    Layer.effect(GateStore, Effect.gen(function*() {
      const plans = yield* Ref.make(new Map((seed.plans ?? []).map((p) => [p.id, p])))
      const verdicts = yield* Ref.make(new Map<string, VerdictRecord>())
      const conditions = yield* Ref.make(new Map<string, ConditionRecord>())
      const statements = yield* Ref.make(new Map<string, KeptStatement>())
      const builds = seed.builds ?? []
      const all = Effect.map(Ref.get(plans), (m) => [...m.values()].sort((a, b) => a.sentAt - b.sentAt))
      return GateStore.of({
        openPlans: Effect.map(all, (ps) => ps.filter((p) => p.state === "open")),
        plans: all,
        savePlan: (p) => Ref.update(plans, (m) => (m.get(p.id)?.state ?? "open") === "open" ? new Map(m).set(p.id, p) : m),
        builds: (names) => Effect.succeed(names.flatMap((n) => builds.filter((b) => b.build === n))),
        amongKept: (module, build, kept) => Effect.succeed(builds.filter((b) => b.module === module).slice(-kept).some((b) => b.build === build)),
        recordVerdict: (v) => Ref.modify(verdicts, (m) => (m.has(v.build) ? [false, m] : [true, new Map(m).set(v.build, v)])),
        setRollback: (build, rollback) => Ref.update(verdicts, (m) => {
          const v = m.get(build)
          return v === undefined ? m : new Map(m).set(build, { ...v, rollback })
        }),
        raiseCondition: (o, at) => Ref.update(conditions, (m) => new Map(m).set(o.key, {
          key: o.key, source: o.source, raised: m.get(o.key)?.raised ?? at, scope: o.scope, id: o.id, also: o.also, kind: o.kind, summary: o.summary,
          severity: o.severity, ...(o.machine === "" ? {} : { machine: o.machine }),
        })),
        clearCondition: (key) => Ref.update(conditions, (m) => {
          const next = new Map(m)
          next.delete(key)
          return next
        }),
        openConditions: Effect.map(Ref.get(conditions), (m) => [...m.values()]),
        statements: Effect.map(Ref.get(statements), (m) => Object.fromEntries([...m.values()].map((k) => [k.statement.machine, k.statement]))),
        keptStatement: (machine) => Effect.map(Ref.get(statements), (m) => m.get(machine) ?? null),
        writeStatement: (st, streaks) => Ref.update(statements, (m) => new Map(m).set(st.machine, { statement: st, streaks })),
      })
    }))
}

const gateOfRecord = (g: NonNullable<PlanRecord["gate"]>): Gate => ({ ...g, lastPass: g.lastPass, judgedAt: g.judgedAt })
