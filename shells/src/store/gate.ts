// The gate's records in the store. What to raise, judge and put back is the core's; this moves rows.
import type { Condition, Statement } from "@mesh-core/core/gate/facts"
import { type HealthMemory, hearStatement, type HealthWords } from "@mesh-core/core/gate/health"
import type { Gate } from "@mesh-core/core/gate/judge"
import type { Observation } from "@mesh-core/core/gate/observations"
import { lockKeys, type Sql } from "./postgres.ts"

/** Hears one statement in a transaction: the machine's kept statement and streaks, the core's words, written back. */
export const keepStatement = (sql: Sql, s: Statement) =>
  sql.begin(async (tx) => {
    await lockKeys(tx, "health", [s.machine])
    const [row] = await tx`select stated_at, resources, streaks from health_statements where machine = ${s.machine} for update`
    const memory: HealthMemory = row === undefined
      ? { statements: new Map(), streaks: new Map() }
      : {
        statements: new Map([[s.machine, { machine: s.machine, at: (row["stated_at"] as Date).getTime(), resources: row["resources"] as Statement["resources"] }]]),
        streaks: new Map([[s.machine, new Map(Object.entries(row["streaks"] as Record<string, number>))]]),
      }
    const words: HealthWords = hearStatement(memory, s)
    if (!words.kept) return words
    const streaks = Object.fromEntries(words.memory.streaks.get(s.machine) ?? new Map())
    await tx`insert into health_statements (machine, stated_at, resources, streaks) values (${s.machine}, ${new Date(s.at)}, ${tx.json(s.resources as never)}, ${tx.json(streaks)})
      on conflict (machine) do update set stated_at = excluded.stated_at, resources = excluded.resources, streaks = excluded.streaks, heard_at = now()`
    for (const r of words.raise) {
      await raiseIn(tx as unknown as Sql, {
        key: r.key, source: "DH", scope: "module", id: `${r.module}.${r.machine}`, machine: r.machine, also: [], kind: "unhealthy",
        severity: "warning", summary: r.summary, resolver: undefined,
      }, r.at)
    }
    for (const key of words.clear) await clearIn(tx as unknown as Sql, key, "DH")
    return words
  })

export const statements = async (sql: Sql): Promise<Map<string, Statement>> =>
  new Map((await sql`select machine, stated_at, resources from health_statements`).map((r) => [r["machine"] as string, {
    machine: r["machine"] as string, at: (r["stated_at"] as Date).getTime(), resources: r["resources"] as Statement["resources"],
  }]))

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

export const openConditions = async (sql: Sql): Promise<Array<Condition & { severity: string; resolver: string | undefined }>> =>
  (await sql`select * from conditions where cleared_at is null order by raised_at, key`).map((r) => ({
    key: r["key"] as string, source: r["source"] as string, raised: (r["raised_at"] as Date).getTime(), scope: r["scope"] as string,
    id: r["subject_id"] as string, machine: (r["machine"] as string | null) ?? undefined, also: r["also"] as Array<string>,
    kind: r["kind"] as string, summary: r["summary"] as string, severity: r["severity"] as string, resolver: (r["resolver"] as string | null) ?? undefined,
  }))

export const recordBuild = async (sql: Sql, b: { build: string; module: string; commit: string; source?: string | undefined }) => {
  await sql`insert into builds (build, module, commit, source) values (${b.build}, ${b.module}, ${b.commit}, ${b.source ?? null}) on conflict (build) do nothing`
}

export const buildOf = async (sql: Sql, build: string) => {
  const [r] = await sql`select build, module, commit, source from builds where build = ${build}`
  return r === undefined ? undefined : { build: r["build"] as string, module: r["module"] as string, commit: r["commit"] as string, source: (r["source"] as string | null) ?? undefined }
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

const planOf = (r: Record<string, unknown>): PlanRow => ({
  id: r["id"] as string, module: r["module"] as string, build: r["build"] as string, commit: r["commit"] as string,
  previous: r["previous"] as string, previousBuild: (r["previous_build"] as string | null) ?? undefined,
  machines: r["machines"] as Array<string>, rest: r["rest"] as Array<string>, sentAt: (r["sent_at"] as Date).getTime(),
  state: r["state"] as PlanRow["state"], gate: (r["gate"] as Gate | null) ?? undefined, note: r["note"] as string,
})

/** Keeps a plan; one already decided (by this controller or another) is not written over. */
export const savePlan = async (sql: Sql, p: PlanRow) => {
  await sql`insert into plans (id, module, build, commit, previous, previous_build, machines, rest, sent_at, state, gate, note)
    values (${p.id}, ${p.module}, ${p.build}, ${p.commit}, ${p.previous}, ${p.previousBuild ?? null}, ${sql.json([...p.machines])}, ${sql.json([...p.rest])},
      ${new Date(p.sentAt)}, ${p.state}, ${p.gate === undefined ? null : sql.json(p.gate as never)}, ${p.note})
    on conflict (id) do update set state = excluded.state, gate = excluded.gate, note = excluded.note
    where plans.state = 'open'`
}

export const plans = async (sql: Sql, state?: PlanRow["state"]): Promise<Array<PlanRow>> =>
  (state === undefined ? await sql`select * from plans order by sent_at` : await sql`select * from plans where state = ${state} order by sent_at`).map(planOf)

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
