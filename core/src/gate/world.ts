// What a replay of the gate keeps of the day (issue 25: the gate's catalogue answers a what-if from
// it): the plans and verdicts the replayed programs themselves wrote, the builds the plans read so
// far name, the facts last read, and what the recorded controller itself last saved of each plan.
import { canonicalJson } from "../json.ts"
import { value } from "../outcome.ts"
import { done, type Inference } from "../program.ts"
import { inFlight } from "./plan/plan.ts"
import type { TickQuestions } from "./tick/questions.ts"
import type { ReleaseQuestions, VerbQuestions } from "./operator/questions.ts"
import type { StatementQuestions, WitnessQuestions } from "./messages/questions.ts"
import type { BuildRecord, PlanRecord } from "./plan/records.ts"
import type { ConditionRecord, GateFactsRecord, ObservationRecord, StatementRecord } from "./judging/facts.ts"

/**
 * Every question the gate's programs ask, joined (issue 39): each family's catalogue is its own (the
 * tick's, the verbs', the release's, the machines' messages'), and a kind two of them share is one entry.
 * The set-aside of a message unread is the standings' (standings/questions.ts).
 */
export type GateQuestions = TickQuestions &
  VerbQuestions &
  ReleaseQuestions &
  Omit<StatementQuestions & WitnessQuestions, "set-aside">

export interface GateWorld {
  /** What the replay itself kept of the plans and verdicts: the controller's own writes. */
  readonly plans: Map<string, PlanRecord>
  readonly verdicts: Set<string>
  /** The builds the plans read so far name, with their commits: what an inferred `builds` answer is made of. */
  readonly builds: Map<string, BuildRecord>
  lastFacts: GateFactsRecord | undefined
  /**
   * What the recorded controller itself last saved of each plan (canonical JSON of its save-plan), as
   * of the programs before this one.
   */
  readonly savedLive: Map<string, { readonly json: string; readonly open: boolean }>
}

/**
 * Plans as the replay keeps them: what it decided stands over what the recording read, unless the
 * recording read a plan someone else wrote since the recorded controller last saved it (two
 * controllers sharing a store: the other's newer judging is the plan). A plan the recording no
 * longer reads open is still judged when the recorded controller closed it itself (a what-if that
 * has not closed it yet), not when another controller did.
 */
export const ownPlans = (
  recorded: ReadonlyArray<PlanRecord>,
  own: ReadonlyMap<string, PlanRecord>,
  savedLive?: GateWorld["savedLive"],
): ReadonlyArray<PlanRecord> => {
  const out = new Map<string, PlanRecord>()
  for (const p of recorded) {
    const saved = savedLive?.get(p.id)
    out.set(p.id, saved === undefined || saved.json === canonicalJson(p) ? (own.get(p.id) ?? p) : p)
  }
  for (const [id, p] of own) {
    if (out.has(id)) continue
    const saved = savedLive?.get(id)
    if (savedLive === undefined || (saved !== undefined && !saved.open)) out.set(id, p)
  }
  return [...out.values()].filter(inFlight).sort((a, b) => a.sentAt - b.sentAt)
}

/** The builds a plan read names, with their commits. */
export const learnBuilds = (w: GateWorld, p: PlanRecord): void => {
  if (!w.builds.has(p.build)) w.builds.set(p.build, { build: p.build, module: p.module, commit: p.commit })
  if (p.previousBuild !== undefined && p.previous !== "" && !w.builds.has(p.previousBuild))
    w.builds.set(p.previousBuild, { build: p.previousBuild, module: p.module, commit: p.previous })
}

/** What the recorded controller saved of a plan. */
export const savedLiveOf = (w: GateWorld, plan: PlanRecord): void => {
  w.savedLive.set(plan.id, { json: canonicalJson(plan), open: inFlight(plan) })
}

// What the controller wrote since the facts were last read, as the store would give them back: a
// what-if that asks for facts the day never read (the recorded gate had closed its plan by then)
// sees the conditions and statements the replayed programs kept, not only those of the last read.

export const withRaised = (f: GateFactsRecord, o: ObservationRecord, at: number): GateFactsRecord => {
  if (f.open === undefined || !f.open.ok) return f
  const was = f.open.value.find((c) => c.key === o.key)
  const { machine, severity: _severity, resolver: _resolver, ...said } = o
  const c: ConditionRecord = { ...said, raised: was?.raised ?? at, ...(machine === "" ? {} : { machine }) }
  const open = [...f.open.value.filter((x) => x.key !== o.key), c].sort(
    (a, b) => a.raised - b.raised || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
  )
  return { ...f, open: { ok: true, value: open } }
}

export const withCleared = (f: GateFactsRecord, key: string): GateFactsRecord =>
  f.open === undefined || !f.open.ok
    ? f
    : { ...f, open: { ok: true, value: f.open.value.filter((c) => c.key !== key) } }

export const withStatement = (f: GateFactsRecord, s: StatementRecord): GateFactsRecord =>
  f.health.ok ? { ...f, health: { ok: true, value: { ...f.health.value, [s.machine]: s } } } : f

/** What a replayed day's summary counts of the gate, before the day. */
export const freshGateTally = () => ({
  passed: 0,
  failed: 0,
  rollbacks: new Map<string, number>(),
  sends: { tier: 0, rest: 0, rollback: 0, "user-list": 0 },
  events: 0,
  raised: 0,
  cleared: 0,
  statements: 0,
  plans: new Map<string, PlanRecord>(),
})
export type GateTally = ReturnType<typeof freshGateTally>

/** What an act changes of the facts last read, when some were read. */
const factsChanged =
  <Q>(change: (f: GateFactsRecord, q: Q) => GateFactsRecord) =>
  (q: Q, _a: unknown, w: GateWorld): void => {
    if (w.lastFacts !== undefined) w.lastFacts = change(w.lastFacts, q)
  }

/** The controller's own verdict, when the store kept it as this controller's (`mine`). */
export const mine = (a: unknown): boolean | undefined =>
  typeof a === "object" && a !== null && "mine" in a && typeof a.mine === "boolean" ? a.mine : undefined

/** A plan written: kept as the replay's own, and as what the recorded controller saved of it. */
const planWritten = {
  whatIf: done,
  keep: (q: { readonly plan: PlanRecord }, _a: unknown, w: GateWorld) => {
    w.plans.set(q.plan.id, q.plan)
  },
  keepRecorded: (q: { readonly plan: PlanRecord }, w: GateWorld) => savedLiveOf(w, q.plan),
}

/**
 * What a replay of the gate infers of each question the day never asked, and keeps of each answer
 * (controller/replay.ts): the plans, verdicts and builds from the replay's own keeping, the world's
 * facts from the last read, an act as done.
 */
export const gateInference: Inference<GateQuestions, GateWorld> = {
  "plans-in-flight": {
    whatIf: (_q, w) => value(ownPlans([], w.plans)),
    replayed: (_q, r, w) => (r.ok && r.value !== undefined ? value(ownPlans(r.value, w.plans, w.savedLive)) : r),
    keep: (_q, a, w) => {
      if (a.ok && a.value !== undefined) for (const p of a.value) learnBuilds(w, p)
    },
  },
  "gate-facts": {
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
  },
  now: { whatIf: (_q, _w, now) => now },
  manifests: { whatIf: () => value({}) },
  "engine-builds": { whatIf: () => value({}) },
  "witness-verdicts": { whatIf: () => value({}) },
  builds: {
    whatIf: (q, w) => value(q.builds.flatMap((b) => w.builds.get(b) ?? [])),
    keep: (_q, a, w) => {
      if (a.ok && a.value !== undefined) for (const b of a.value) w.builds.set(b.build, b)
    },
  },
  "among-kept": { whatIf: () => value(true) },
  // Asked only before putting a controller's build back: a what-if without it reads it as reaching the
  // store, so only what was recorded refuses a rollback (issue 352).
  "store-reach": { whatIf: () => value({ storeAt: 0, reach: 0 }) },
  "record-verdict": {
    whatIf: (q, w) => ({ ok: true as const, mine: !w.verdicts.has(q.verdict.build) }),
    keep: (q, a, w) => {
      if (mine(a) === true) w.verdicts.add(q.verdict.build)
    },
  },
  "verdict-of": { whatIf: () => value(null) },
  "set-build": { whatIf: done },
  "set-rollback": { whatIf: done },
  "send-plan": { whatIf: (q) => ({ told: q.machines }) },
  "holder-list": { whatIf: () => value({ holder: null, behind: false }) },
  publish: { whatIf: done },
  "save-plan": planWritten,
  "latest-verdicts": { whatIf: () => value([]) },
  "probe-conditions": { whatIf: () => value([]) },
  "raise-condition": { whatIf: done, keep: factsChanged((f, q) => withRaised(f, q.observation, q.at)) },
  "clear-condition": { whatIf: done, keep: factsChanged((f, q) => withCleared(f, q.key)) },
  // A verb recorded was received by the controller that recorded it.
  "lease-holder": { whatIf: () => value({ mine: true, holder: null }) },
  "plan-of": {
    whatIf: (q, w) => value(w.plans.get(q.id) ?? null),
    // A plan read by id: what the replay decided of it stands over what was recorded, but a read that
    // failed live failed: the replay cannot know the store was away, and a verb refused for it is
    // replayed refused (issue 27: it was replayed done, and "0 acts differ" said so).
    replayed: (q, r, w) => {
      const own = w.plans.get(q.id)
      return !r.ok || own === undefined ? r : value(own)
    },
  },
  "reopen-plan": planWritten,
  // A release is never replayed: a what-if knows no records.
  "mesh-records-read": { whatIf: () => value(null) },
  "record-build": { whatIf: done },
  "kept-statement": { whatIf: () => null },
  "write-statement": { whatIf: done, keep: factsChanged((f, q) => withStatement(f, q.statement)) },
  "kept-witness": { whatIf: () => null },
  "write-witness": { whatIf: done },
}
