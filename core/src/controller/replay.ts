// Replaying a controller's day (`simulate` on a log of area "controller"): each recorded input runs
// the same program `serve` ran, and each question the program asks is answered by the recorded
// answer to it. Under the recorded settings every question finds its answer, and the acts asked for
// are the ones recorded (`differed` counts any that are not). Under other settings (`--set passes=5`)
// a program may ask what the day never asked: what the controller itself keeps (its plans, its
// verdicts) is answered from the replay's own keeping, what the world said from the last it said, and
// an act is taken as done; each such answer is counted as inferred, so a what-if says how much of it
// is inference.
import { canonicalJson } from "../json.ts"
import type { ControllerFact, InputFact } from "../facts/controller-log.ts"
import { type GateSettings } from "../gate/judge.ts"
import { keepReport, keepStatement, keepWords } from "./followers.ts"
import { gateTick } from "./gate.ts"
import { type Exchange, type Program, runPure } from "./program.ts"
import type { Kind, Question } from "./questions.ts"
import type { GateFactsRecord, PlanRecord } from "./records.ts"
import { storeFailed } from "./outage.ts"
import { operatorVerb } from "./verbs.ts"

/** The questions that change something: what a replay shows as the controller's acts. */
export const actKinds: ReadonlySet<Kind> = new Set<Kind>([
  "record-verdict", "set-build", "send", "send-plan", "record-build", "set-rollback", "publish", "save-plan", "reopen-plan", "raise-condition", "clear-condition",
  "write-standings", "write-report", "write-statement",
])

export type ControllerDecision =
  | { readonly at: number; readonly kind: "said"; readonly line: string }
  | { readonly at: number; readonly kind: "act"; readonly act: Question; readonly recorded: boolean }

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
  readonly lastFacts: GateFactsRecord | undefined
  readonly counts: ReplayCounts
}

export const startControllerReplay = (settings: GateSettings): ControllerReplay => ({
  settings, group: undefined, plans: new Map(), verdicts: new Set(), lastFacts: undefined,
  counts: { facts: 0, programs: 0, starts: 0, inferred: 0, differed: 0, unasked: 0 },
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

/** Plans as the replay keeps them: what it decided stands over what the recording read. */
const ownPlans = (recorded: ReadonlyArray<PlanRecord>, own: ReadonlyMap<string, PlanRecord>): ReadonlyArray<PlanRecord> => {
  const out = new Map<string, PlanRecord>()
  for (const p of recorded) out.set(p.id, own.get(p.id) ?? p)
  for (const [id, p] of own) if (!out.has(id)) out.set(id, p)
  return [...out.values()].filter((p) => p.state === "open" || p.state === "sending" || p.state === "rolling-back").sort((a, b) => a.sentAt - b.sentAt)
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
      return { ok: true, value: [] }
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

const runGroup = (s: ControllerReplay): { readonly state: ControllerReplay; readonly decisions: ReadonlyArray<ControllerDecision> } => {
  const g = s.group
  if (g === undefined) return { state: s, decisions: [] }
  const used = new Array<boolean>(g.answers.length).fill(false)
  let inferred = 0
  let differed = 0
  const plans = new Map(s.plans)
  const verdicts = new Set(s.verdicts)
  let lastFacts = s.lastFacts
  const recordedFor = new Set<Question>()
  const answer = (q: Question, _so: ReadonlyArray<Exchange>): unknown => {
    const i = g.answers.findIndex((a, n) => !used[n] && a.q.q === q.q)
    let a: unknown
    if (i < 0) {
      inferred += 1
      a = inferredAnswer(q, { ...s, plans, verdicts, lastFacts }, g.input.atMs)
    } else {
      used[i] = true
      recordedFor.add(q)
      const recorded = g.answers[i]!
      if (actKinds.has(q.q) && canonicalJson(recorded.q) !== canonicalJson(q)) differed += 1
      a = recorded.a
      if ((q.q === "open-plans" || q.q === "plans-in-flight") && recorded.q.q === q.q) {
        const r = recorded.a as { ok: boolean; value?: ReadonlyArray<PlanRecord> }
        if (r.ok && r.value !== undefined) a = { ok: true, value: ownPlans(r.value, plans) }
      }
      // A plan read by id: what the replay decided of it stands over what was recorded.
      if (q.q === "plan-of" && plans.has(q.id)) a = { ok: true, value: plans.get(q.id)! }
    }
    if (q.q === "gate-facts") lastFacts = a as GateFactsRecord
    if (q.q === "save-plan" || q.q === "reopen-plan") plans.set(q.plan.id, q.plan)
    if (q.q === "record-verdict" && (a as { ok: boolean; mine?: boolean }).mine === true) verdicts.add(q.verdict.build)
    return a
  }
  const ran = runPure(programOf(g.input, s.settings), answer)
  const at = g.input.atMs
  const decisions: Array<ControllerDecision> = []
  for (const e of ran.events) {
    if ("said" in e) decisions.push({ at, kind: "said", line: e.said })
    else if (actKinds.has(e.exchange.question.q)) decisions.push({ at, kind: "act", act: e.exchange.question, recorded: recordedFor.has(e.exchange.question) })
  }
  const c = s.counts
  return {
    state: {
      ...s, group: undefined, plans, verdicts, lastFacts,
      counts: { ...c, programs: c.programs + 1, inferred: c.inferred + inferred, differed: c.differed + differed, unasked: c.unasked + used.filter((u) => !u).length },
    },
    decisions,
  }
}

/** Feeds one fact: an input ends the program before it and begins its own; an answer joins it. */
export const feedController = (
  s: ControllerReplay, f: ControllerFact, settingsAt: (started: InputFact & { fact: "started" }) => GateSettings,
): { readonly state: ControllerReplay; readonly decisions: ReadonlyArray<ControllerDecision> } => {
  const counted = { ...s, counts: { ...s.counts, facts: s.counts.facts + 1 } }
  if (f.fact === "answer") {
    if (counted.group === undefined) return { state: { ...counted, counts: { ...counted.counts, unasked: counted.counts.unasked + 1 } }, decisions: [] }
    counted.group.answers.push(f)
    return { state: counted, decisions: [] }
  }
  const ended = runGroup(counted)
  if (f.fact === "started") {
    return { state: { ...ended.state, settings: settingsAt(f), counts: { ...ended.state.counts, starts: ended.state.counts.starts + 1 } }, decisions: ended.decisions }
  }
  return { state: { ...ended.state, group: { input: f, answers: [] } }, decisions: ended.decisions }
}

/** The end of the log: the last program run. */
export const finishController = (s: ControllerReplay) => runGroup(s)
