// Replaying a controller's day (`simulate` on a log of area "controller"): each recorded input runs
// the same program `serve` ran, and each question the program asks is answered by the recorded
// answer to it. Under the recorded settings every question finds its answer, and the acts asked for
// are the ones recorded (`differed` counts any that are not). Under other settings (`--set passes=5`)
// a program may ask what the day never asked: what the controller itself keeps (its plans, its
// verdicts) is answered from the replay's own keeping, what the world said from the last it said, and
// an act is taken as done; each such answer is counted as inferred, so a what-if says how much of it
// is inference.
import { canonicalJson, sameJson } from "../json.ts"
import type { BadLine } from "../provisioner/log.ts"
import {
  type ControllerFact, type ControllerHeader, type ControllerReader, freshControllerReader, gateSettingsOf, type GateSettingsLine, type InputFact,
  readControllerNext,
} from "./log.ts"
import type { GateSettings } from "../gate/judge.ts"
import { keepReport, keepStatement, keepWords } from "./followers.ts"
import { gateTick } from "../gate/tick.ts"
import { type Exchange, type Program, runPure } from "./program.ts"
import type { Kind, Question } from "./questions.ts"
import type { BuildRecord, ConditionRecord, GateFactsRecord, PlanRecord } from "../gate/records.ts"
import { storeFailed } from "./outage.ts"
import { operatorVerb } from "../gate/operator.ts"
import { inFlight } from "../gate/plan.ts"
import { planSendAsk, planSendOutcome, replayPush } from "../delivery/push.ts"
import type { PushExchange } from "../delivery/questions.ts"

/** The questions that change something: what a replay shows as the controller's acts. */
export const actKinds: ReadonlySet<Kind> = new Set<Kind>([
  "record-verdict", "set-build", "send", "send-plan", "record-build", "set-rollback", "publish", "save-plan", "reopen-plan", "raise-condition", "clear-condition",
  "write-standings", "write-report", "write-statement",
])

/** Which program a decision was made in: the input fact that ran it. */
export type ProgramInput = Exclude<InputFact["fact"], "started">

export type ControllerDecision =
  | { readonly at: number; readonly input: ProgramInput; readonly kind: "said"; readonly line: string }
  | {
    readonly at: number
    readonly input: ProgramInput
    readonly kind: "act"
    readonly act: Question
    /** What the act came to: the recorded answer, or the one inferred. */
    readonly answer: unknown
    /** False when the answer was not in the recording and was inferred. */
    readonly recorded: boolean
  }
  /** `serve` started again on the recording: the settings it ran under from here. */
  | { readonly at: number; readonly kind: "started"; readonly settings: GateSettings }

export interface ReplayCounts {
  readonly facts: number
  readonly programs: number
  readonly starts: number
  readonly inferred: number
  /** Acts asked for that are not the ones recorded (0 under the recorded settings, or the core changed). */
  readonly differed: number
  /** Recorded answers no question asked for this time. */
  readonly unasked: number
}

export interface ControllerReplay {
  readonly settings: GateSettings
  readonly group: { readonly input: InputFact & { readonly atMs: number }; readonly answers: Array<ControllerFact & { fact: "answer" }> } | undefined
  /** What the replay itself kept of the plans and verdicts: the controller's own writes. */
  readonly plans: ReadonlyMap<string, PlanRecord>
  readonly verdicts: ReadonlySet<string>
  /** What the recorded controller itself last saved of each plan (canonical JSON of its save-plan). */
  readonly savedLive: ReadonlyMap<string, { readonly json: string; readonly open: boolean }>
  /** The builds the plans read so far name, with their commits: what an inferred `builds` answer is made of. */
  readonly builds: ReadonlyMap<string, BuildRecord>
  readonly lastFacts: GateFactsRecord | undefined
  readonly counts: ReplayCounts
  /** The first and the last fact's time. */
  readonly span: { readonly first: number | undefined; readonly last: number | undefined }
}

export const startControllerReplay = (settings: GateSettings): ControllerReplay => ({
  settings, group: undefined, plans: new Map(), verdicts: new Set(), savedLive: new Map(), builds: new Map(), lastFacts: undefined,
  counts: { facts: 0, programs: 0, starts: 0, inferred: 0, differed: 0, unasked: 0 }, span: { first: undefined, last: undefined },
})

const programOf = (input: InputFact, settings: GateSettings): Program<unknown> => {
  switch (input.fact) {
    case "tick":
      return gateTick(settings)
    case "words":
      return keepWords(input.messages)
    case "report":
      return keepReport(input.message)
    case "statement":
      return keepStatement(input.message)
    case "store-failed":
      return storeFailed(input.during, input.messages, input.why)
    case "verb":
      return operatorVerb(input.command, settings)
    case "started":
      throw new Error("a start runs no program")
  }
}

/**
 * Plans as the replay keeps them: what it decided stands over what the recording read, unless the
 * recording read a plan someone else wrote since the recorded controller last saved it (two
 * controllers sharing a store: the other's newer judging is the plan). A plan the recording no
 * longer reads open is still judged when the recorded controller closed it itself (a what-if that
 * has not closed it yet), not when another controller did.
 */
const ownPlans = (
  recorded: ReadonlyArray<PlanRecord>, own: ReadonlyMap<string, PlanRecord>, savedLive?: ControllerReplay["savedLive"],
): ReadonlyArray<PlanRecord> => {
  const out = new Map<string, PlanRecord>()
  for (const p of recorded) {
    const saved = savedLive?.get(p.id)
    out.set(p.id, saved === undefined || saved.json === canonicalJson(p) ? own.get(p.id) ?? p : p)
  }
  for (const [id, p] of own) {
    if (out.has(id)) continue
    const saved = savedLive?.get(id)
    if (savedLive === undefined || (saved !== undefined && !saved.open)) out.set(id, p)
  }
  return [...out.values()].filter(inFlight).sort((a, b) => a.sentAt - b.sentAt)
}

const inferredAnswer = (q: Question, s: ControllerReplay, now: number): unknown => {
  switch (q.q) {
    case "open-plans":
    case "plans-in-flight":
      return { ok: true, value: ownPlans([], s.plans) }
    case "now":
      return now
    case "send-plan":
      return { told: q.machines }
    case "engine-builds":
    case "manifests":
    case "witness-verdicts":
      return { ok: true, value: {} }
    case "latest-verdicts":
    case "probe-conditions":
      return { ok: true, value: [] }
    case "verdict-of":
      return { ok: true, value: null }
    case "plan-of":
      return { ok: true, value: s.plans.get(q.id) ?? null }
    case "lease-holder":
      // A verb recorded was received by the controller that recorded it.
      return { ok: true, value: { mine: true, holder: null } }
    case "holder-list":
      return { ok: true, value: { holder: null, behind: false } }
    case "gate-facts":
      return s.lastFacts === undefined
        ? { now, reports: {}, engines: {}, served: { ok: false, why: "not in the recording" }, rolledBack: {}, holder: { ok: true, value: null }, health: { ok: true, value: {} } }
        : { ...s.lastFacts, now }
    case "record-verdict":
      return { ok: true, mine: !s.verdicts.has(q.verdict.build) }
    case "send":
      return { told: q.machines }
    case "builds":
      return { ok: true, value: q.builds.flatMap((b) => { const r = s.builds.get(b); return r === undefined ? [] : [r] }) }
    case "among-kept":
      return { ok: true, value: true }
    case "kept-standings":
      return []
    case "kept-report":
    case "kept-statement":
      return null
    default:
      return { ok: true }
  }
}

/**
 * What the controller wrote since the facts were last read, as the store would give them back: a
 * what-if that asks for facts the day never read (the recorded gate had closed its plan by then)
 * sees the conditions and statements the replayed programs kept, not only those of the last read.
 */
const withOwnWrite = (f: GateFactsRecord, q: Question): GateFactsRecord => {
  switch (q.q) {
    case "raise-condition": {
      if (f.open === undefined || !f.open.ok) return f
      const o = q.observation
      const was = f.open.value.find((c) => c.key === o.key)
      const c: ConditionRecord = {
        key: o.key, source: o.source, raised: was?.raised ?? q.at, scope: o.scope, id: o.id, also: o.also, kind: o.kind, summary: o.summary,
        ...(o.machine === "" ? {} : { machine: o.machine }),
      }
      const open = [...f.open.value.filter((x) => x.key !== o.key), c].sort((a, b) => a.raised - b.raised || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      return { ...f, open: { ok: true, value: open } }
    }
    case "clear-condition":
      return f.open === undefined || !f.open.ok ? f : { ...f, open: { ok: true, value: f.open.value.filter((c) => c.key !== q.key) } }
    case "write-statement":
      return f.health.ok ? { ...f, health: { ok: true, value: { ...f.health.value, [q.statement.machine]: q.statement } } } : f
    default:
      return f
  }
}

/**
 * A plan's send as recorded, replayed (issue 25): when the recording kept the push's own exchanges,
 * the push runs again over them, and a composition, order or send that is not the recorded one, or
 * an outcome that is not, differs (1). The program is answered what a log without them would answer
 * it, so a log with them replays to the same lines.
 */
const planSendReplayed = (q: Question & { q: "send-plan" }, recordedQ: Question & { q: "send-plan" }, recordedA: unknown): { readonly answer: unknown; readonly differed: number } => {
  const r = recordedA as { readonly told: ReadonlyArray<string>; readonly error?: string; readonly exchanges?: ReadonlyArray<PushExchange> }
  if (r.exchanges === undefined) return { answer: recordedA, differed: 0 }
  const { exchanges, ...answer } = r
  // The send asked otherwise is counted as that act differing already.
  if (!sameJson(recordedQ, q) && canonicalJson(recordedQ) !== canonicalJson(q)) return { answer, differed: 0 }
  const replayed = replayPush(planSendAsk(q), exchanges)
  const outcome = replayed.end === undefined ? undefined : planSendOutcome(q, replayed.end)
  return { answer, differed: replayed.differed > 0 || outcome === undefined || !sameJson(outcome, answer) ? 1 : 0 }
}

const runGroup = (s: ControllerReplay): { readonly state: ControllerReplay; readonly decisions: ReadonlyArray<ControllerDecision> } => {
  const g = s.group
  if (g === undefined) return { state: s, decisions: [] }
  const used = new Array<boolean>(g.answers.length).fill(false)
  let inferred = 0
  let differed = 0
  const plans = new Map(s.plans)
  const builds = new Map(s.builds)
  const learn = (p: PlanRecord) => {
    if (!builds.has(p.build)) builds.set(p.build, { build: p.build, module: p.module, commit: p.commit })
    if (p.previousBuild !== undefined && p.previous !== "" && !builds.has(p.previousBuild)) {
      builds.set(p.previousBuild, { build: p.previousBuild, module: p.module, commit: p.previous })
    }
  }
  const verdicts = new Set(s.verdicts)
  let lastFacts = s.lastFacts
  const recordedFor = new Set<Question>()
  const answer = (q: Question, _so: ReadonlyArray<Exchange>): unknown => {
    const i = g.answers.findIndex((a, n) => !used[n] && a.q.q === q.q)
    let a: unknown
    if (i < 0) {
      inferred += 1
      a = inferredAnswer(q, { ...s, plans, verdicts, builds, lastFacts }, g.input.atMs)
    } else {
      used[i] = true
      recordedFor.add(q)
      const recorded = g.answers[i]!
      // The same value is the same act: the recorder wrote the question as the program asked it, so
      // the sorted spelling (a third of a controller log's replay) is seldom needed.
      if (actKinds.has(q.q) && !sameJson(recorded.q, q) && canonicalJson(recorded.q) !== canonicalJson(q)) differed += 1
      a = recorded.a
      if (q.q === "send-plan" && recorded.q.q === "send-plan") {
        const sent = planSendReplayed(q, recorded.q, recorded.a)
        a = sent.answer
        differed += sent.differed
      }
      if ((q.q === "open-plans" || q.q === "plans-in-flight") && recorded.q.q === q.q) {
        const r = recorded.a as { ok: boolean; value?: ReadonlyArray<PlanRecord> }
        if (r.ok && r.value !== undefined) a = { ok: true, value: ownPlans(r.value, plans, s.savedLive) }
      }
      // A plan read by id: what the replay decided of it stands over what was recorded.
      if (q.q === "plan-of" && plans.has(q.id)) a = { ok: true, value: plans.get(q.id)! }
    }
    if (q.q === "gate-facts") lastFacts = a as GateFactsRecord
    else if (lastFacts !== undefined) lastFacts = withOwnWrite(lastFacts, q)
    if (q.q === "save-plan" || q.q === "reopen-plan") plans.set(q.plan.id, q.plan)
    if (q.q === "open-plans" || q.q === "plans-in-flight") {
      const r = a as { ok: boolean; value?: ReadonlyArray<PlanRecord> }
      if (r.ok && r.value !== undefined) r.value.forEach(learn)
    }
    if (q.q === "builds") {
      const r = a as { ok: boolean; value?: ReadonlyArray<BuildRecord> }
      if (r.ok && r.value !== undefined) for (const b of r.value) builds.set(b.build, b)
    }
    if (q.q === "record-verdict" && (a as { ok: boolean; mine?: boolean }).mine === true) verdicts.add(q.verdict.build)
    return a
  }
  const ran = runPure(programOf(g.input, s.settings), answer)
  const savedLive = new Map(s.savedLive)
  for (const r of g.answers) if (r.q.q === "save-plan" || r.q.q === "reopen-plan") savedLive.set(r.q.plan.id, { json: canonicalJson(r.q.plan), open: inFlight(r.q.plan) })
  const at = g.input.atMs
  const input = g.input.fact as ProgramInput
  const decisions: Array<ControllerDecision> = []
  for (const e of ran.events) {
    if ("said" in e) decisions.push({ at, input, kind: "said", line: e.said })
    else if (actKinds.has(e.exchange.question.q)) {
      decisions.push({ at, input, kind: "act", act: e.exchange.question, answer: e.exchange.answer, recorded: recordedFor.has(e.exchange.question) })
    }
  }
  const c = s.counts
  return {
    state: {
      ...s, group: undefined, plans, verdicts, savedLive, builds, lastFacts,
      counts: { ...c, programs: c.programs + 1, inferred: c.inferred + inferred, differed: c.differed + differed, unasked: c.unasked + used.filter((u) => !u).length },
    },
    decisions,
  }
}

/** Feeds one fact: an input ends the program before it and begins its own; an answer joins it. */
export const feedController = (
  s: ControllerReplay, f: ControllerFact, settingsAt: (started: InputFact & { fact: "started" }) => GateSettings,
): { readonly state: ControllerReplay; readonly decisions: ReadonlyArray<ControllerDecision> } => {
  const counted = { ...s, counts: { ...s.counts, facts: s.counts.facts + 1 }, span: { first: s.span.first ?? f.atMs, last: f.atMs } }
  if (f.fact === "answer") {
    if (counted.group === undefined) return { state: { ...counted, counts: { ...counted.counts, unasked: counted.counts.unasked + 1 } }, decisions: [] }
    counted.group.answers.push(f)
    return { state: counted, decisions: [] }
  }
  const ended = runGroup(counted)
  if (f.fact === "started") {
    const settings = settingsAt(f)
    return {
      state: { ...ended.state, settings, counts: { ...ended.state.counts, starts: ended.state.counts.starts + 1 } },
      decisions: [...ended.decisions, { at: f.atMs, kind: "started", settings }],
    }
  }
  return { state: { ...ended.state, group: { input: f, answers: [] } }, decisions: ended.decisions }
}

/** The end of the log: the last program run. */
export const finishController = (s: ControllerReplay) => runGroup(s)

/** A `started` line's settings, with `--set`'s over them: the same rule as the header's. */
export const settingsWith = (overrides: GateSettingsLine) => (started: InputFact & { fact: "started" }): GateSettings =>
  gateSettingsOf({ ...started.settings.gate, ...overrides })

export interface ReplayedDay {
  readonly header: ControllerHeader
  readonly state: ControllerReplay
  readonly decisions: ReadonlyArray<ControllerDecision>
  /** The same decisions, one entry for each program run that decided anything. */
  readonly programs: ReadonlyArray<ReadonlyArray<ControllerDecision>>
}

/**
 * A whole log replayed at once, from its lines: what tests and generators check a day with. `simulate`
 * reads a file a chunk at a time through the same steps (readControllerNext, feedController).
 */
export const replayControllerLog = (
  lines: Iterable<string>, overrides: GateSettingsLine = {},
): { readonly ok: true; readonly day: ReplayedDay } | { readonly ok: false; readonly bad: BadLine } => {
  let reader: ControllerReader = freshControllerReader
  let state: ControllerReplay | undefined
  const programs: Array<ReadonlyArray<ControllerDecision>> = []
  for (const text of lines) {
    const r = readControllerNext(reader, text)
    if (!r.ok) return r
    reader = r.state
    if (state === undefined && reader.header !== undefined) state = startControllerReplay(gateSettingsOf({ ...reader.header.settings.gate, ...overrides }))
    if (r.fact === undefined || state === undefined) continue
    const fed = feedController(state, r.fact, settingsWith(overrides))
    state = fed.state
    if (fed.decisions.length > 0) programs.push(fed.decisions)
  }
  if (state === undefined || reader.header === undefined) {
    return { ok: false, bad: { line: 1, field: "format", problem: "the log is empty: its first line must name the format" } }
  }
  const end = finishController(state)
  if (end.decisions.length > 0) programs.push(end.decisions)
  return { ok: true, day: { header: reader.header, state: end.state, decisions: programs.flat(), programs } }
}
