// The gate's questions (issue 25): every read and act the gate's programs ask (the tick, the release,
// the operators' verbs, the machines' health statements). Each entry says everything about its
// question: its Schemas, whether it is an act, what a what-if replay answers when the day never asked
// it and what the replay keeps of its answer (world.ts), how the timeline shows it, what the summary
// and the metrics count. Kinds are unique across every area's catalogue: the controller's log is one
// namespace (controller/catalogue.ts).
import * as Schema from "effect/Schema"
import { entryFor } from "../program.ts"
import { isNumber, isObject, isString, no, numbers, outcome, readableEmpty } from "../by-hand.ts"
import { Names, Outcome, question, readable, value } from "../outcome.ts"
import type { Observed } from "../observed.ts"
import { MeshRecords } from "../mesh/records.ts"
import { gateProbe, short } from "./judging/facts.ts"
import { BuildRecord, CarriedRecord, PlanRecord, VerdictRecord } from "./plan/records.ts"
import {
  ConditionRecord,
  GateFactsRecord,
  ManifestRecord,
  ObservationRecord,
  StatementRecord,
  WitnessRecord,
} from "./judging/facts.ts"
import {
  type GateTally,
  type GateWorld,
  learnBuilds,
  ownPlans,
  savedLiveOf,
  withCleared,
  withRaised,
  withStatement,
} from "./world.ts"

const Streaks = Schema.Record(Schema.String, Schema.Number)
/**
 * A plan's send: the machines told; those told a declaration without the module (`without`); each
 * other module whose build it changed on a machine told (`carried`). Absent in logs from before.
 */
export const Sent = Schema.Struct({
  told: Names,
  error: Schema.optionalKey(Schema.String),
  without: Schema.optionalKey(Names),
  carried: Schema.optionalKey(Schema.Array(CarriedRecord)),
})

export const gateEntry = entryFor<GateWorld, GateTally>()

const failed = (answer: unknown): boolean =>
  typeof answer === "object" && answer !== null && "ok" in answer && answer.ok === false
const readFailed = (part: unknown): boolean => part !== undefined && failed(part)

/**
 * A send counts as sent when no error came back and every machine asked was told (issue 9: a send
 * that reached some machines is tried again, and counted failed until it reaches every one).
 */
export const sentEvery = (machines: ReadonlyArray<string>, a: unknown): boolean => {
  if (typeof a !== "object" || a === null || ("error" in a && a.error !== undefined)) return false
  const told = "told" in a && Array.isArray(a.told) ? a.told : undefined
  return told === undefined || machines.every((m) => told.includes(m))
}

/** The controller's own verdict, when the store kept it as this controller's (`mine`). */
const mine = (a: unknown): boolean | undefined =>
  typeof a === "object" && a !== null && "mine" in a && typeof a.mine === "boolean" ? a.mine : undefined

type HealthState = StatementRecord["resources"][number]["state"]
const healthStates: ReadonlySet<unknown> = new Set<HealthState>(["healthy", "starting", "unhealthy"])
const isHealthState = (v: unknown): v is HealthState => healthStates.has(v)

/** A StatementRecord read by hand (core/src/by-hand.ts). */
const statementByHand = (s: unknown): StatementRecord | undefined => {
  if (!isObject(s)) return no
  const { machine, at, resources } = s
  if (!isString(machine) || !isNumber(at) || !Array.isArray(resources)) return no
  const out: Array<StatementRecord["resources"][number]> = []
  for (const r of resources as Array<unknown>) {
    if (!isObject(r)) return no
    const { resource, module, state, reason } = r
    if (!isString(resource) || !isString(module) || !isHealthState(state)) return no
    if (reason === undefined) out.push({ resource, module, state })
    else if (isString(reason)) out.push({ resource, module, state, reason })
    else return no
  }
  return { machine, at, resources: out }
}

/** A plan's send as the timeline says it. */
const sendWords = { tier: "a tier", rest: "the rest", rollback: "the rollback", "user-list": "the user list" } as const

export const gateQuestions = {
  // ---- what one judging reads ----
  /** Every plan not ended: `open`, `sending` or `rolling-back`. */
  "plans-in-flight": gateEntry({
    question: question("plans-in-flight", {}),
    answer: readable(Schema.Array(PlanRecord)),
    act: false,
    store: true,
    whatIf: (_q, w) => value(ownPlans([], w.plans)),
    replayed: (_q, r, w) => (r.ok && r.value !== undefined ? value(ownPlans(r.value, w.plans, w.savedLive)) : r),
    keep: (_q, a, w) => {
      if (a.ok && a.value !== undefined) for (const p of a.value) learnBuilds(w, p)
    },
    byHand: (_q, a) => {
      const r = readableEmpty(a, "list")
      return r === undefined ? no : { q: { q: "plans-in-flight" as const }, a: r }
    },
  }),
  "gate-facts": gateEntry({
    question: question("gate-facts", {}),
    answer: GateFactsRecord,
    act: false,
    whatIf: (_q, w, now) =>
      w.lastFacts === undefined
        ? {
            now,
            reports: {},
            reportsUnread: "not in the recording",
            engines: {},
            served: { ok: false as const, why: "not in the recording" },
            rolledBack: {},
            holder: value(null),
            health: value({}),
          }
        : { ...w.lastFacts, now },
    keep: (_q, a, w) => {
      w.lastFacts = a
    },
    observe: (_q, a: unknown) => {
      const out: Array<Observed> = []
      if (typeof a !== "object" || a === null) return out
      const parts: Record<string, unknown> = { ...a }
      // The machines' services are discovered on the bus; the rest of a judging's facts are the store's.
      if (readFailed(parts["served"])) out.push({ kind: "bus-error", operation: "discovery" })
      if (["open", "holder", "health"].some((k) => readFailed(parts[k])) || typeof parts["reportsUnread"] === "string")
        out.push({ kind: "store-error", operation: "gate-facts" })
      return out
    },
  }),
  /** The clock, for a tick that gathers no gate facts. */
  now: gateEntry({
    question: question("now", {}),
    answer: Schema.Number,
    act: false,
    whatIf: (_q, _w, now) => now,
    byHand: (_q, a) => (isNumber(a) ? { q: { q: "now" as const }, a } : no),
  }),
  /** What the gate knows of each module asked: its tools, and for the engine the builds a send delivers. */
  manifests: gateEntry({
    question: question("manifests", { modules: Names }),
    answer: readable(Schema.Record(Schema.String, ManifestRecord)),
    act: false,
    store: true,
    whatIf: () => value({}),
  }),
  /** Each machine's node-engine build, as it last reported it. */
  "engine-builds": gateEntry({
    question: question("engine-builds", {}),
    answer: readable(Schema.Record(Schema.String, Schema.String)),
    act: false,
    store: true,
    whatIf: () => value({}),
  }),
  /** What each machine's witnesses say they decided: the newest verdict per machine and component kept. */
  "witness-verdicts": gateEntry({
    question: question("witness-verdicts", {}),
    answer: readable(Schema.Record(Schema.String, Schema.Array(WitnessRecord))),
    act: false,
    store: true,
    whatIf: () => value({}),
    byHand: (_q, a) => {
      const r = readableEmpty(a, "map")
      return r === undefined ? no : { q: { q: "witness-verdicts" as const }, a: r }
    },
  }),
  // ---- a verdict and its rollback ----
  builds: gateEntry({
    question: question("builds", { builds: Names }),
    answer: readable(Schema.Array(BuildRecord)),
    act: false,
    store: true,
    whatIf: (q, w) =>
      value(
        q.builds.flatMap((b) => {
          const r = w.builds.get(b)
          return r === undefined ? [] : [r]
        }),
      ),
    keep: (_q, a, w) => {
      if (a.ok && a.value !== undefined) for (const b of a.value) w.builds.set(b.build, b)
    },
  }),
  "among-kept": gateEntry({
    question: question("among-kept", { module: Schema.String, build: Schema.String, kept: Schema.Number }),
    answer: readable(Schema.Boolean),
    act: false,
    store: true,
    whatIf: () => value(true),
  }),
  /**
   * What a controller's build reads of the store's schema, against the migration the store is at now
   * (issue 352): asked only before putting a controller's build back. A what-if without it reads it as
   * reaching the store, so only what was recorded refuses a rollback.
   */
  "store-reach": gateEntry({
    question: question("store-reach", { build: Schema.String }),
    answer: readable(Schema.Struct({ storeAt: Schema.Number, reach: Schema.optional(Schema.Number) })),
    act: false,
    store: true,
    whatIf: () => value({ storeAt: 0, reach: 0 }),
  }),
  "record-verdict": gateEntry({
    question: question("record-verdict", { verdict: VerdictRecord }),
    answer: Schema.Union([
      Schema.Struct({ ok: Schema.Literal(true), mine: Schema.Boolean }),
      Schema.Struct({ ok: Schema.Literal(false), why: Schema.String }),
    ]),
    act: true,
    store: true,
    whatIf: (q, w) => ({ ok: true as const, mine: !w.verdicts.has(q.verdict.build) }),
    keep: (q, a, w) => {
      if (mine(a) === true) w.verdicts.add(q.verdict.build)
    },
    show: (q, a, { tail }) => [
      [
        "verdict",
        `${q.verdict.build} ${q.verdict.verdict} kept${mine(a) === false ? " already, by another controller: it acts on it" : ""}${tail}`,
      ],
    ],
    marks: (q) => [
      { judged: { plan: q.verdict.plan, module: q.verdict.module, verdict: q.verdict.verdict, first: true } },
    ],
    tally: (q, _a, t) => {
      if (q.verdict.verdict === "passed") t.passed += 1
      else t.failed += 1
    },
    // Counted once, by the controller whose verdict the store kept: the one that acts on it.
    observe: (q, a: unknown) =>
      typeof a === "object" && a !== null && "ok" in a && a.ok === true && mine(a) === true
        ? [{ kind: "verdict", verdict: q.verdict.verdict }]
        : [],
  }),
  /**
   * The verdict kept for a build, when one was: a plan still open whose verdict is kept was left by a
   * controller that stopped between keeping it and moving the plan on, and is resumed.
   */
  "verdict-of": gateEntry({
    question: question("verdict-of", { build: Schema.String }),
    answer: readable(Schema.NullOr(Schema.Struct({ verdict: VerdictRecord, keptAt: Schema.Number }))),
    act: false,
    store: true,
    whatIf: () => value(null),
  }),
  "set-build": gateEntry({
    question: question("set-build", { module: Schema.String, build: Schema.String, commit: Schema.String }),
    answer: Outcome,
    act: true,
    store: true,
    show: (q, _a, { tail }) => [
      ["build", `${q.module}'s registered build set to ${q.build} (${short(q.commit)})${tail}`],
    ],
  }),
  "set-rollback": gateEntry({
    // `why`: the verdict's reason with why it was not put back, kept with the verdict (seed 003's
    // notBack: SetRollback(build, NotRolledBack, why)); absent, the reason kept is left as it was.
    question: question("set-rollback", {
      build: Schema.String,
      rollback: Schema.String,
      why: Schema.optionalKey(Schema.String),
    }),
    answer: Outcome,
    act: true,
    store: true,
    show: (q, _a, { tail }) => [["rollback", `${q.build} marked ${q.rollback}${tail}`]],
    tally: (q, _a, t) => {
      t.rollbacks.set(q.rollback, (t.rollbacks.get(q.rollback) ?? 0) + 1)
    },
    observe: (q) => [{ kind: "rollback", outcome: q.rollback }],
  }),
  /**
   * A plan's own send: a push of exactly these machines, composed with what every plan holds
   * (core/src/delivery/held.ts, request `{kind: "plan"}`). `told`: the machines sent.
   */
  "send-plan": gateEntry({
    question: question("send-plan", {
      plan: Schema.String,
      module: Schema.String,
      why: Schema.Literals(["tier", "rest", "rollback", "user-list"]),
      machines: Names,
      /**
       * A dry run's send (issue 10): these machines are composed with this build of the module, which
       * is not registered (so nothing holds for it and no other push sends it).
       */
      build: Schema.optionalKey(Schema.String),
    }),
    answer: Sent,
    act: true,
    whatIf: (q) => ({ told: q.machines }),
    show: (q, _a, { tail }) => [
      [
        "SEND",
        `${sendWords[q.why]} of ${q.module} to ${q.machines.join(", ")}${q.build === undefined ? "" : ` (a dry run's ${q.build})`}${tail}`,
      ],
    ],
    tally: (q, _a, t) => {
      t.sends[q.why] += 1
    },
    observe: (q, a) => [{ kind: "send", why: q.why, ok: sentEvery(q.machines, a) }],
  }),
  /**
   * The machine holding the bus, and whether what it reports running lacks the user list composed
   * now (core/src/delivery/order.ts holderBehindRunning, composed with what the plans hold).
   */
  "holder-list": gateEntry({
    question: question("holder-list", {}),
    answer: readable(Schema.Struct({ holder: Schema.NullOr(Schema.String), behind: Schema.Boolean })),
    act: false,
    whatIf: () => value({ holder: null, behind: false }),
  }),
  publish: gateEntry({
    question: question("publish", { event: Schema.String, body: Schema.Record(Schema.String, Schema.Unknown) }),
    answer: Outcome,
    act: true,
    show: (q, _a, { tail }) => [["event", `${q.event} ${JSON.stringify(q.body)}${tail}`]],
    tally: (_q, _a, t) => {
      t.events += 1
    },
    observe: (q, a) =>
      failed(a)
        ? [
            { kind: "published", event: q.event, ok: false },
            { kind: "bus-error", operation: "publish" },
          ]
        : [{ kind: "published", event: q.event, ok: true }],
  }),
  "save-plan": gateEntry({
    question: question("save-plan", { plan: PlanRecord }),
    answer: Outcome,
    act: true,
    store: true,
    keep: (q, _a, w) => {
      w.plans.set(q.plan.id, q.plan)
    },
    keepRecorded: (q, w) => savedLiveOf(w, q.plan),
    // An open plan saved is not worth a line of its own.
    show: (q, _a, { tail, failed }) =>
      q.plan.state === "open" && failed === undefined ? [] : [["plan", `${q.plan.id} kept ${q.plan.state}${tail}`]],
    marks: (q) => [
      { judged: { plan: q.plan.id, module: q.plan.module, verdict: q.plan.gate?.verdict ?? "", first: false } },
    ],
    tally: (q, _a, t) => {
      t.plans.set(q.plan.id, q.plan)
    },
  }),
  // ---- the gate's probe ----
  /** The newest verdict of each module (the gate's probe keeps a failed one's condition). */
  "latest-verdicts": gateEntry({
    question: question("latest-verdicts", {}),
    answer: readable(Schema.Array(VerdictRecord)),
    act: false,
    store: true,
    whatIf: () => value([]),
    byHand: (_q, a) => {
      const r = readableEmpty(a, "list")
      return r === undefined ? no : { q: { q: "latest-verdicts" as const }, a: r }
    },
  }),
  /** The open conditions a probe keeps, by its source (the gate's: `DG`). */
  "probe-conditions": gateEntry({
    question: question("probe-conditions", { source: Schema.String }),
    answer: readable(Schema.Array(ConditionRecord)),
    act: false,
    store: true,
    whatIf: () => value([]),
    byHand: (q, a) => {
      const r = readableEmpty(a, "list")
      return r === undefined || !isString(q["source"])
        ? no
        : { q: { q: "probe-conditions" as const, source: q["source"] }, a: r }
    },
  }),
  // ---- conditions ----
  "raise-condition": gateEntry({
    question: question("raise-condition", { observation: ObservationRecord, at: Schema.Number }),
    answer: Outcome,
    act: true,
    store: true,
    keep: (q, _a, w) => {
      if (w.lastFacts !== undefined) w.lastFacts = withRaised(w.lastFacts, q.observation, q.at)
    },
    show: (q, _a, { tail, said }) => {
      const o = q.observation
      // A condition a follower raised is named by the line it says.
      if (o.source !== gateProbe && said.includes(o.key)) return []
      return [
        ["CONDITION", `raised ${o.key} (${o.severity})${said.includes(o.summary) ? "" : `: ${o.summary}`}${tail}`],
      ]
    },
    marks: (q) => [
      q.observation.source === gateProbe ? { rollback: q.observation.summary } : { raised: q.observation.key },
    ],
    tally: (_q, _a, t) => {
      t.raised += 1
    },
    observe: (q, a) => (failed(a) ? [] : [{ kind: "condition-raised", severity: q.observation.severity }]),
  }),
  "clear-condition": gateEntry({
    question: question("clear-condition", { key: Schema.String, by: Schema.String }),
    answer: Outcome,
    act: true,
    store: true,
    keep: (q, _a, w) => {
      if (w.lastFacts !== undefined) w.lastFacts = withCleared(w.lastFacts, q.key)
    },
    // A condition a follower cleared is named by the line it says.
    show: (q, _a, { tail, said, input }) =>
      input !== "tick" && said.includes(q.key) ? [] : [["condition", `cleared ${q.key}${tail}`]],
    marks: (q) => [{ cleared: q.key }],
    tally: (_q, _a, t) => {
      t.cleared += 1
    },
    observe: (q, a) => (failed(a) ? [] : [{ kind: "condition-cleared", by: q.by }]),
    byHand: (q, a) => {
      const o = outcome(a)
      return !isString(q["key"]) || !isString(q["by"]) || o === undefined
        ? no
        : { q: { q: "clear-condition" as const, key: q["key"], by: q["by"] }, a: o }
    },
  }),
  // ---- operators steer a plan (issue 10, core/src/gate/operator/operator.ts) ----
  /**
   * Whether this controller holds the controller lease, and who does: a verb is carried out only by
   * the holder, and refused elsewhere naming it.
   */
  "lease-holder": gateEntry({
    question: question("lease-holder", {}),
    answer: readable(
      Schema.Struct({
        mine: Schema.Boolean,
        holder: Schema.NullOr(Schema.String),
        /** This controller is stopping its acts and has not given the lease back yet (issue 289). */
        handingOver: Schema.optionalKey(Schema.Boolean),
        /** This controller's own name, so the holder a handover names is never itself. */
        self: Schema.optionalKey(Schema.String),
      }),
    ),
    act: false,
    // A verb recorded was received by the controller that recorded it.
    whatIf: () => value({ mine: true, holder: null }),
  }),
  /** One plan by its id, whatever its state; null when there is none. */
  "plan-of": gateEntry({
    question: question("plan-of", { id: Schema.String }),
    answer: readable(Schema.NullOr(PlanRecord)),
    act: false,
    store: true,
    whatIf: (q, w) => value(w.plans.get(q.id) ?? null),
    // A plan read by id: what the replay decided of it stands over what was recorded, but a read that
    // failed live failed: the replay cannot know the store was away, and a verb refused for it is
    // replayed refused (issue 27: it was replayed done, and "0 acts differ" said so).
    replayed: (q, r, w) => {
      const own = w.plans.get(q.id)
      return !r.ok || own === undefined ? r : value(own)
    },
  }),
  /**
   * A failed plan opened again by `plans retry`: written over the row only while it is `failed` and no
   * other plan of its module is in flight (save-plan never writes over an ended row).
   */
  "reopen-plan": gateEntry({
    question: question("reopen-plan", { plan: PlanRecord }),
    answer: Outcome,
    act: true,
    store: true,
    keep: (q, _a, w) => {
      w.plans.set(q.plan.id, q.plan)
    },
    keepRecorded: (q, w) => savedLiveOf(w, q.plan),
  }),
  // ---- release (core/src/gate/operator/release.ts) ----
  "mesh-records": gateEntry({
    question: question("mesh-records", {}),
    answer: readable(Schema.NullOr(MeshRecords)),
    act: false,
    store: true,
  }),
  "record-build": gateEntry({
    question: question("record-build", { build: BuildRecord }),
    answer: Outcome,
    act: true,
    store: true,
  }),
  // ---- what machines state of their health (ADR 0240), each inside one transaction of the store ----
  "kept-statement": gateEntry({
    question: question("kept-statement", { machine: Schema.String }),
    answer: Schema.NullOr(Schema.Struct({ statement: StatementRecord, streaks: Streaks })),
    act: false,
    whatIf: () => null,
    byHand: (q, a) => {
      const machine = q["machine"]
      if (!isString(machine)) return no
      if (a === null) return { q: { q: "kept-statement" as const, machine }, a: null }
      if (!isObject(a)) return no
      const statement = statementByHand(a["statement"])
      const streaks = numbers(a["streaks"])
      return statement === undefined || streaks === undefined
        ? no
        : { q: { q: "kept-statement" as const, machine }, a: { statement, streaks } }
    },
  }),
  "write-statement": gateEntry({
    question: question("write-statement", { statement: StatementRecord, streaks: Streaks }),
    answer: Outcome,
    act: true,
    store: true,
    keep: (q, _a, w) => {
      if (w.lastFacts !== undefined) w.lastFacts = withStatement(w.lastFacts, q.statement)
    },
    // A healthy statement is not worth a line.
    show: (q, _a, { tail }) =>
      q.statement.resources
        .filter((r) => r.state !== "healthy")
        .map(
          (r) =>
            [
              "statement",
              `${q.statement.machine}: ${r.resource} of ${r.module} ${r.state}${r.reason === undefined ? "" : `: ${r.reason}`}${tail}`,
            ] as const,
        ),
    tally: (_q, _a, t) => {
      t.statements += 1
    },
    byHand: (q, a) => {
      const statement = statementByHand(q["statement"])
      const streaks = numbers(q["streaks"])
      const o = outcome(a)
      return statement === undefined || streaks === undefined || o === undefined
        ? no
        : { q: { q: "write-statement" as const, statement, streaks }, a: o }
    },
  }),
  // ---- what machines' witnesses say they decided (seed 003's witnessed; core/src/gate/messages/witnesses.ts) ----
  /** The verdict kept for a machine's component, locked until the follower's transaction ends. */
  "kept-witness": gateEntry({
    question: question("kept-witness", { machine: Schema.String, component: Schema.String }),
    answer: Schema.NullOr(WitnessRecord),
    act: false,
    whatIf: () => null,
  }),
  "write-witness": gateEntry({
    question: question("write-witness", { machine: Schema.String, verdict: WitnessRecord }),
    answer: Outcome,
    act: true,
    store: true,
    show: (q, _a, { tail }) => [
      ["witness", `${q.machine}: the ${q.verdict.component} ${short(q.verdict.from)} ${q.verdict.outcome}${tail}`],
    ],
  }),
}

export type GateQuestions = typeof gateQuestions
