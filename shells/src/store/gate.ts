// The gate's records in the store. What to raise, judge and put back is the core's; this moves rows.
import {
  BuildRow,
  buildOfRow,
  ConditionRow,
  conditionOfRow,
  StatementRow,
  statementOfRow,
  WitnessRow,
  witnessOfRow,
} from "@mesh-core/core/gate/plan/rows"
import { readRows } from "@mesh-core/core/rows"
import { PlanRecord as PlanSchema, VerdictRecord as VerdictSchema } from "@mesh-core/core/gate/plan/records"
import { Schema } from "effect"
import type { BuildRecord, PlanRecord, VerdictRecord } from "@mesh-core/core/gate/plan/records"
import type {
  ConditionRecord,
  ObservationRecord,
  StatementRecord,
  WitnessRecord,
} from "@mesh-core/core/gate/judging/facts"
import { inFlight } from "@mesh-core/core/gate/plan/plan"
import { ComponentEngine } from "@mesh-core/core/gate/judging/facts"
import type { MeshRecords } from "@mesh-core/core/mesh/records"
import { Context, Effect, Layer, Ref } from "effect"
import { decodedRows, lockKeys, runSql, type Sql, Store, type StoreUnreadable } from "./postgres.ts"

/** Raises a condition, or keeps it raised (its first raising stands; its words are the newest). */
const raiseIn = async (sql: Sql, o: ObservationRecord, at: number) => {
  await sql`insert into conditions (key, source, scope, subject_id, machine, also, kind, severity, summary, resolver, raised_at)
    values (${o.key}, ${o.source}, ${o.scope}, ${o.id}, ${o.machine === "" ? null : o.machine}, ${sql.json([...o.also])}, ${o.kind}, ${o.severity}, ${o.summary}, ${o.resolver ?? null}, ${new Date(at)})
    on conflict (key) do update set summary = excluded.summary, severity = excluded.severity, resolver = excluded.resolver,
      raised_at = case when conditions.cleared_at is null then conditions.raised_at else excluded.raised_at end,
      cleared_at = null, cleared_by = null`
}

const clearIn = async (sql: Sql, key: string, by: string) => {
  await sql`update conditions set cleared_at = now(), cleared_by = ${by} where key = ${key} and cleared_at is null`
}

/** A build as `release` records it. */
export interface BuildWrite {
  readonly build: string
  readonly module: string
  readonly commit: string
  readonly source?: string | undefined
  readonly manifest?: string | undefined
  readonly artifacts?: string | undefined
}

const recordBuild = async (sql: Sql, b: BuildWrite) => {
  await sql`insert into builds (build, module, commit, source, manifest, artifacts)
    values (${b.build}, ${b.module}, ${b.commit}, ${b.source ?? null}, ${b.manifest ?? null}, ${b.artifacts ?? null})
    on conflict (build) do nothing`
}

/** Whether a build is among the newest kept of its module. */
const amongKept = async (sql: Sql, module: string, build: string, kept: number) => {
  const rows = await sql`select build from builds where module = ${module} order by recorded_at desc limit ${kept}`
  return rows.some((r) => r["build"] === build)
}

const json = (sql: Sql, v: unknown) => (v === undefined ? null : sql.json(v as never))
const dateOf = (ms: number | undefined) => (ms === undefined ? null : new Date(ms))

/**
 * Keeps a plan, every column of it (issue 9: tiers, sent, put_back, tries; issue 10: paused, dry run,
 * errors, history); a row already ended (passed or failed, by this controller or another) is not
 * written over: `plans retry` opens one again through reopenPlan.
 */
const savePlan = async (sql: Sql, p: PlanRecord, over: "in-flight" | "failed" = "in-flight") => {
  const rows =
    await sql`insert into plans (id, module, build, commit, previous, previous_build, machines, rest, sent_at, state, gate, note,
      tiers, tier, sent, put_back, tries, tried_at, paused, paused_for, dry_run, errors, history, carried, without)
    values (${p.id}, ${p.module}, ${p.build}, ${p.commit}, ${p.previous}, ${p.previousBuild ?? null}, ${sql.json([...p.machines])}, ${sql.json([...p.rest])},
      ${new Date(p.sentAt)}, ${p.state}, ${json(sql, p.gate)}, ${p.note}, ${json(sql, p.tiers)}, ${p.tier ?? 0}, ${json(sql, p.sent)}, ${json(sql, p.putBack)},
      ${p.tries ?? 0}, ${dateOf(p.triedAt)}, ${json(sql, p.paused)}, ${p.pausedFor ?? null}, ${p.dryRun === true}, ${p.errors ?? 0}, ${json(sql, p.history)},
      ${json(sql, p.carried)}, ${json(sql, p.without)})
    on conflict (id) do update set state = excluded.state, gate = excluded.gate, note = excluded.note, tiers = excluded.tiers, tier = excluded.tier,
      sent = excluded.sent, put_back = excluded.put_back, tries = excluded.tries, tried_at = excluded.tried_at, paused = excluded.paused,
      paused_for = excluded.paused_for, errors = excluded.errors, history = excluded.history, carried = excluded.carried,
      without = excluded.without
    where ${
      over === "failed"
        ? sql`plans.state = 'failed' and not exists (select 1 from plans o where o.module = plans.module and o.id <> plans.id and o.state in ('open', 'sending', 'rolling-back') and not o.dry_run)`
        : sql`plans.state in ('open', 'sending', 'rolling-back')`
    }
    returning id`
  return rows.length === 1
}

/** Records a gate's verdict once per build; answers false when one was kept already. */
const recordVerdict = async (
  sql: Sql,
  v: {
    build: string
    module: string
    commit: string
    previous: string
    plan: string
    machines: ReadonlyArray<string>
    verdict: string
    rollback: string
    why: string
    component: string
    judgingFrom: number
  },
): Promise<boolean> => {
  const rows =
    await sql`insert into gate_verdicts (build, module, commit, previous, plan, machines, verdict, rollback, why, component, judging_from)
    values (${v.build}, ${v.module}, ${v.commit}, ${v.previous}, ${v.plan}, ${sql.json([...v.machines])}, ${v.verdict}, ${v.rollback}, ${v.why}, ${v.component || null}, ${new Date(v.judgingFrom)})
    on conflict (build) do nothing returning build`
  return rows.length === 1
}

const setRollback = async (sql: Sql, build: string, rollback: string, why: string | undefined) => {
  await sql`update gate_verdicts set rollback = ${rollback}, why = coalesce(${why ?? null}, why) where build = ${build}`
}

/** A plan row as the core's PlanRecord (absent keys for null columns), read by its Schema. */
const planObject = `jsonb_strip_nulls(jsonb_build_object(
  'id', id, 'module', module, 'build', build, 'commit', commit, 'previous', previous, 'previousBuild', previous_build,
  'machines', machines, 'rest', rest, 'sentAt', (extract(epoch from sent_at) * 1000)::float8, 'state', state, 'gate', gate, 'note', note,
  'tiers', tiers, 'tier', tier, 'sent', sent, 'putBack', put_back, 'tries', tries, 'triedAt', (extract(epoch from tried_at) * 1000)::float8,
  'paused', paused, 'pausedFor', paused_for, 'dryRun', case when dry_run then true end, 'errors', errors, 'history', history,
  'carried', carried, 'without', without)) as plan`
const verdictObject = `jsonb_build_object(
  'build', build, 'module', module, 'commit', commit, 'previous', previous, 'plan', plan, 'machines', machines, 'verdict', verdict,
  'rollback', coalesce(rollback, ''), 'why', why, 'component', coalesce(component, ''),
  'judgingFrom', coalesce((extract(epoch from judging_from) * 1000)::float8, 0)) as verdict, (extract(epoch from recorded_at) * 1000)::float8 as kept_ms`
const conditionColumns = `key, source, (extract(epoch from raised_at) * 1000)::float8 as raised_ms, scope, subject_id, machine, also, kind, summary,
  severity, resolver`
const statementColumns = `machine, (extract(epoch from stated_at) * 1000)::float8 as stated_ms, resources, streaks`
const witnessColumns = `machine, component, outcome, from_build, to_build, why, (extract(epoch from decided_at) * 1000)::float8 as decided_ms`

/** What each machine's witnesses said, by machine: the newest verdict per component. */
export type WitnessVerdicts = Readonly<Record<string, ReadonlyArray<WitnessRecord>>>

const byMachine = (list: ReadonlyArray<{ readonly machine: string; readonly verdict: WitnessRecord }>) => {
  const out: Record<string, Array<WitnessRecord>> = {}
  for (const w of list) (out[w.machine] ??= []).push(w.verdict)
  return out
}

export type KeptStatement = { readonly statement: StatementRecord; readonly streaks: Readonly<Record<string, number>> }

/** The release gate's records and the machines' health statements, as typed operations. */
export class GateStore extends Context.Service<
  GateStore,
  {
    /** Every plan not ended: open, sending or rolling-back (issue 9), oldest first. */
    readonly plansInFlight: Effect.Effect<ReadonlyArray<PlanRecord>, StoreUnreadable>
    readonly plans: Effect.Effect<ReadonlyArray<PlanRecord>, StoreUnreadable>
    /** One plan by its id, whatever its state. */
    readonly planOf: (id: string) => Effect.Effect<PlanRecord | null, StoreUnreadable>
    /** Keeps a plan; one already ended (by this controller or another) is not written over. */
    readonly savePlan: (p: PlanRecord) => Effect.Effect<void, StoreUnreadable>
    /** `plans retry`: written over the row only while it is failed and no other plan of its module is in flight; false when not. */
    readonly reopenPlan: (p: PlanRecord) => Effect.Effect<boolean, StoreUnreadable>
    /** The verdict kept for a build, and when it was kept. */
    readonly verdictOf: (
      build: string,
    ) => Effect.Effect<{ readonly verdict: VerdictRecord; readonly keptAt: number } | null, StoreUnreadable>
    /** The newest verdict of each module. */
    readonly latestVerdicts: Effect.Effect<ReadonlyArray<VerdictRecord>, StoreUnreadable>
    /** The open conditions one source raised, with their severity. */
    readonly probeConditions: (source: string) => Effect.Effect<ReadonlyArray<ConditionRecord>, StoreUnreadable>
    readonly builds: (builds: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<BuildRecord>, StoreUnreadable>
    /** Whether a build is among the newest `kept` of its module. */
    readonly amongKept: (module: string, build: string, kept: number) => Effect.Effect<boolean, StoreUnreadable>
    /** Keeps a verdict once per build; answers whether this one was kept (false: one was kept already). */
    readonly recordVerdict: (v: VerdictRecord) => Effect.Effect<boolean, StoreUnreadable>
    readonly setRollback: (build: string, rollback: string, why?: string) => Effect.Effect<void, StoreUnreadable>
    readonly raiseCondition: (o: ObservationRecord, at: number) => Effect.Effect<void, StoreUnreadable>
    readonly clearCondition: (key: string, by: string) => Effect.Effect<void, StoreUnreadable>
    /** The open conditions, as `conditions` and `status` show them (with who may resolve each). */
    readonly openConditions: Effect.Effect<
      ReadonlyArray<ConditionRecord & { readonly resolver?: string }>,
      StoreUnreadable
    >
    readonly statements: Effect.Effect<Readonly<Record<string, StatementRecord>>, StoreUnreadable>
    /** A machine's kept statement and streaks, locked until the transaction ends (when one is open). */
    readonly keptStatement: (machine: string) => Effect.Effect<KeptStatement | null, StoreUnreadable>
    readonly writeStatement: (
      s: StatementRecord,
      streaks: Readonly<Record<string, number>>,
    ) => Effect.Effect<void, StoreUnreadable>
    /** Every machine's witnesses' verdicts kept: the newest per machine and component. */
    readonly witnessVerdicts: Effect.Effect<WitnessVerdicts, StoreUnreadable>
    /** The verdict kept for a machine's component, locked until the transaction ends (when one is open). */
    readonly keptWitness: (machine: string, component: string) => Effect.Effect<WitnessRecord | null, StoreUnreadable>
    readonly writeWitness: (machine: string, v: WitnessRecord) => Effect.Effect<void, StoreUnreadable>
    /** Records a build under its module, once (a build recorded again keeps its first record). */
    readonly recordBuild: (b: BuildWrite) => Effect.Effect<void, StoreUnreadable>
    /** Each machine's node-engine build as it last reported it (engineBuilds). */
    readonly engineBuilds: Effect.Effect<Readonly<Record<string, string>>, StoreUnreadable>
  }
>()("mesh-core/store/GateStore") {
  static readonly layer = Layer.effect(
    GateStore,
    Effect.gen(function* () {
      const store = yield* Store
      const run = (span: string) => runSql(store, span)
      const decoded = decodedRows(store)
      const plansWhere = (span: string, where: string, params: ReadonlyArray<string> = []) =>
        run(span)((sql) =>
          sql.unsafe(`select ${planObject} from plans ${where} order by sent_at, id`, [...params]),
        ).pipe(
          Effect.flatMap((rows) =>
            decoded(
              readRows(
                "plans",
                PlanSchema,
                rows.map((r) => r["plan"]),
                (p) => p,
              ),
            ),
          ),
        )
      const verdicts = (span: string, where: string, params: ReadonlyArray<string> = []) =>
        run(span)((sql) => sql.unsafe(`select ${verdictObject} from gate_verdicts ${where}`, [...params])).pipe(
          Effect.flatMap((rows) =>
            decoded(readRows("gate_verdicts", KeptVerdict, rows, (r) => ({ verdict: r.verdict, keptAt: r.kept_ms }))),
          ),
        )
      return GateStore.of({
        plansInFlight: plansWhere("GateStore.plansInFlight", "where state in ('open', 'sending', 'rolling-back')"),
        plans: plansWhere("GateStore.plans", ""),
        planOf: (id) => Effect.map(plansWhere("GateStore.planOf", "where id = $1", [id]), (ps) => ps[0] ?? null),
        savePlan: (p) => Effect.asVoid(run("GateStore.savePlan")((sql) => savePlan(sql, p))),
        reopenPlan: (p) => run("GateStore.reopenPlan")((sql) => savePlan(sql, p, "failed")),
        verdictOf: (build) =>
          Effect.map(verdicts("GateStore.verdictOf", "where build = $1", [build]), (vs) => vs[0] ?? null),
        latestVerdicts: Effect.map(
          verdicts(
            "GateStore.latestVerdicts",
            "where build in (select distinct on (module) build from gate_verdicts order by module, recorded_at desc, build desc) order by module",
          ),
          (vs) => vs.map((v) => v.verdict),
        ),
        probeConditions: (source) =>
          run("GateStore.probeConditions")((sql) =>
            sql.unsafe(
              `select ${conditionColumns} from conditions where cleared_at is null and source = $1 order by raised_at, key`,
              [source],
            ),
          ).pipe(Effect.flatMap((rows) => decoded(readRows("conditions", ConditionRow, rows, conditionOfRow)))),
        builds: (builds) =>
          run("GateStore.builds")(
            (sql) =>
              sql`select build, module, commit, source, manifest, artifacts from builds where build = any(${[...builds]}::text[])`,
          ).pipe(
            Effect.flatMap((rows) => decoded(readRows("builds", BuildRow, rows, buildOfRow))),
            Effect.map((found) => builds.flatMap((b) => found.filter((f) => f.build === b))),
          ),
        amongKept: (module, build, kept) => run("GateStore.amongKept")((sql) => amongKept(sql, module, build, kept)),
        recordVerdict: (v) => run("GateStore.recordVerdict")((sql) => recordVerdict(sql, v)),
        setRollback: (build, rollback, why) =>
          run("GateStore.setRollback")((sql) => setRollback(sql, build, rollback, why)),
        raiseCondition: (o, at) => run("GateStore.raiseCondition")((sql) => raiseIn(sql, o, at)),
        clearCondition: (key, by) => run("GateStore.clearCondition")((sql) => clearIn(sql, key, by)),
        openConditions: run("GateStore.openConditions")((sql) =>
          sql.unsafe(`select ${conditionColumns} from conditions where cleared_at is null order by raised_at, key`),
        ).pipe(Effect.flatMap((rows) => decoded(readRows("conditions", ConditionRow, rows, conditionOfRow)))),
        statements: run("GateStore.statements")((sql) =>
          sql.unsafe(`select ${statementColumns} from health_statements`),
        ).pipe(
          Effect.flatMap((rows) => decoded(readRows("health_statements", StatementRow, rows, statementOfRow))),
          Effect.map((list) => Object.fromEntries(list.map((k) => [k.statement.machine, k.statement]))),
        ),
        keptStatement: (machine) =>
          run("GateStore.keptStatement")(async (sql) => {
            // FOR UPDATE locks only a row that exists: the key's lock keeps two first statements apart.
            await lockKeys(sql, "health", [machine])
            return sql.unsafe(`select ${statementColumns} from health_statements where machine = $1 for update`, [
              machine,
            ])
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
        witnessVerdicts: run("GateStore.witnessVerdicts")((sql) =>
          sql.unsafe(`select ${witnessColumns} from witness_verdicts order by machine, component`),
        ).pipe(
          Effect.flatMap((rows) => decoded(readRows("witness_verdicts", WitnessRow, rows, witnessOfRow))),
          Effect.map(byMachine),
        ),
        keptWitness: (machine, component) =>
          run("GateStore.keptWitness")(async (sql) => {
            // FOR UPDATE locks only a row that exists: the key's lock keeps two first verdicts apart.
            await lockKeys(sql, "witness", [`${machine}\u0000${component}`])
            return sql.unsafe(
              `select ${witnessColumns} from witness_verdicts where machine = $1 and component = $2 for update`,
              [machine, component],
            )
          }).pipe(
            Effect.flatMap((rows) => decoded(readRows("witness_verdicts", WitnessRow, rows, witnessOfRow))),
            Effect.map((list) => list[0]?.verdict ?? null),
          ),
        writeWitness: (machine, v) =>
          run("GateStore.writeWitness")(async (sql) => {
            await sql`insert into witness_verdicts (machine, component, outcome, from_build, to_build, why, decided_at)
            values (${machine}, ${v.component}, ${v.outcome}, ${v.from}, ${v.to}, ${v.why}, ${new Date(v.at)})
            on conflict (machine, component) do update set outcome = excluded.outcome, from_build = excluded.from_build,
              to_build = excluded.to_build, why = excluded.why, decided_at = excluded.decided_at, heard_at = now()`
          }),
        recordBuild: (b) => run("GateStore.recordBuild")((sql) => recordBuild(sql, b)),
        engineBuilds: run("GateStore.engineBuilds")(engineBuilds),
      })
    }),
  )

  /** In memory, for shell tests: plans, verdicts once per build, conditions, statements. */
  static readonly layerTest = (
    seed: { readonly plans?: ReadonlyArray<PlanRecord>; readonly builds?: ReadonlyArray<BuildRecord> } = {},
  ) =>
    Layer.effect(
      GateStore,
      Effect.gen(function* () {
        const plans = yield* Ref.make(new Map((seed.plans ?? []).map((p) => [p.id, p])))
        const verdicts = yield* Ref.make(new Map<string, VerdictRecord>())
        const conditions = yield* Ref.make(new Map<string, ConditionRecord>())
        const statements = yield* Ref.make(new Map<string, KeptStatement>())
        const witnesses = yield* Ref.make(new Map<string, { machine: string; verdict: WitnessRecord }>())
        const builds = seed.builds ?? []
        const all = Effect.map(Ref.get(plans), (m) => [...m.values()].sort((a, b) => a.sentAt - b.sentAt))
        return GateStore.of({
          plansInFlight: Effect.map(all, (ps) => ps.filter(inFlight)),
          plans: all,
          planOf: (id) => Effect.map(Ref.get(plans), (m) => m.get(id) ?? null),
          savePlan: (p) => Ref.update(plans, (m) => (inFlight(m.get(p.id) ?? p) ? new Map(m).set(p.id, p) : m)),
          reopenPlan: (p) =>
            Ref.modify(plans, (m) => {
              const was = m.get(p.id)
              const other = [...m.values()].some(
                (o) => o.module === p.module && o.id !== p.id && inFlight(o) && o.dryRun !== true,
              )
              return was?.state === "failed" && !other ? [true, new Map(m).set(p.id, p)] : [false, m]
            }),
          verdictOf: (build) =>
            Effect.map(Ref.get(verdicts), (m) => {
              const v = m.get(build)
              return v === undefined ? null : { verdict: v, keptAt: 0 }
            }),
          latestVerdicts: Effect.map(Ref.get(verdicts), (m) => [
            ...new Map([...m.values()].map((v) => [v.module, v])).values(),
          ]),
          probeConditions: (source) =>
            Effect.map(Ref.get(conditions), (m) => [...m.values()].filter((c) => c.source === source)),
          builds: (names) => Effect.succeed(names.flatMap((n) => builds.filter((b) => b.build === n))),
          amongKept: (module, build, kept) =>
            Effect.succeed(
              builds
                .filter((b) => b.module === module)
                .slice(-kept)
                .some((b) => b.build === build),
            ),
          recordVerdict: (v) =>
            Ref.modify(verdicts, (m) => (m.has(v.build) ? [false, m] : [true, new Map(m).set(v.build, v)])),
          setRollback: (build, rollback, why) =>
            Ref.update(verdicts, (m) => {
              const v = m.get(build)
              return v === undefined
                ? m
                : new Map(m).set(build, { ...v, rollback, ...(why === undefined ? {} : { why }) })
            }),
          raiseCondition: (o, at) =>
            Ref.update(conditions, (m) =>
              new Map(m).set(o.key, {
                key: o.key,
                source: o.source,
                raised: m.get(o.key)?.raised ?? at,
                scope: o.scope,
                id: o.id,
                also: o.also,
                kind: o.kind,
                summary: o.summary,
                severity: o.severity,
                ...(o.machine === "" ? {} : { machine: o.machine }),
              }),
            ),
          clearCondition: (key) =>
            Ref.update(conditions, (m) => {
              const next = new Map(m)
              next.delete(key)
              return next
            }),
          openConditions: Effect.map(Ref.get(conditions), (m) => [...m.values()]),
          statements: Effect.map(Ref.get(statements), (m) =>
            Object.fromEntries([...m.values()].map((k) => [k.statement.machine, k.statement])),
          ),
          keptStatement: (machine) => Effect.map(Ref.get(statements), (m) => m.get(machine) ?? null),
          writeStatement: (st, streaks) =>
            Ref.update(statements, (m) => new Map(m).set(st.machine, { statement: st, streaks })),
          witnessVerdicts: Effect.map(Ref.get(witnesses), (m) =>
            byMachine([...m.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, w]) => w)),
          ),
          keptWitness: (machine, component) =>
            Effect.map(Ref.get(witnesses), (m) => m.get(`${machine}\u0000${component}`)?.verdict ?? null),
          writeWitness: (machine, verdict) =>
            Ref.update(witnesses, (m) => new Map(m).set(`${machine}\u0000${verdict.component}`, { machine, verdict })),
          recordBuild: () => Effect.void,
          engineBuilds: Effect.succeed({}),
        })
      }),
    )
}

const KeptVerdict = Schema.Struct({ verdict: VerdictSchema, kept_ms: Schema.Number })

const EngineBuildRow = Schema.Struct({ node: Schema.String, build: Schema.String })

/**
 * Each machine's node-engine build as it last reported it: the build of the declaration it reported
 * applying, when that is the one it was last sent (a failed or refused report says no build).
 */
const engineBuilds = async (sql: Sql): Promise<Record<string, string>> => {
  const rows =
    await sql`select r.node, s.builds ->> ${ComponentEngine} as build from reports r join sent s on s.node = r.node
    where r.digest = s.digest and r.outcome = 'applied' and s.builds ? ${ComponentEngine}`
  const read = readRows("reports", EngineBuildRow, rows, (r) => [r.node, r.build] as const)
  if (!read.ok) throw new Error(read.why)
  return Object.fromEntries(read.value)
}

/** What the gate knows of each module asked: the tools its record says it serves (`manifests`). */
export const manifestsOf = (
  records: MeshRecords | undefined,
  modules: ReadonlyArray<string>,
): Record<string, { tools: Array<string>; deliveredVersions: Array<string> }> =>
  Object.fromEntries(
    modules.flatMap((name) => {
      const m = records?.modules.find((x) => x.name === name)
      // What a send of it delivers now is its registered build: the new one while a release of it is
      // judged, so the node-engine check asks each engine to report that build (issue 9).
      return m === undefined ? [] : [[name, { tools: [...(m.tools ?? [])], deliveredVersions: [m.build] }]]
    }),
  )
