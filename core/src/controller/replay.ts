// Replaying a controller's day (`simulate` on a log of area "controller"): each recorded input runs
// the same program `serve` ran, and each question the program asks is answered by the recorded
// answer to it. Under the recorded settings every question finds its answer, and the acts asked for
// are the ones recorded (`differed` counts any that are not). Under other settings (`--set passes=5`)
// a program may ask what the day never asked: what the controller itself keeps (its plans, its
// verdicts) is answered from the replay's own keeping, what the world said from the last it said, and
// an act is taken as done; each such answer is counted as inferred, so a what-if says how much of it
// is inference.
import { canonicalJson, sameJson } from "../json.ts"
import { type ControllerFact, gateSettingsOf, type GateSettingsLine, type InputFact } from "./log.ts"
import type { GateSettings } from "../gate/judging/judge.ts"
import { keepWords } from "../standings/followers.ts"
import { keepReport } from "../delivery/reports.ts"
import { keepStatement } from "../gate/messages/statements.ts"
import { keepWitness } from "../gate/messages/witnesses.ts"
import { gateTick } from "../gate/tick/tick.ts"
import { type Program, runPure } from "../program.ts"
import { actKinds, type ControllerQuestions, type ControllerWorld, inferredOf, type Question } from "./catalogue.ts"
import type { GateWorld } from "../gate/world.ts"
import { storeFailed } from "./outage.ts"
import { operatorVerb } from "../gate/operator/operator.ts"

export { actKinds } from "./catalogue.ts"

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

/**
 * A replay's counts before its first fact. `differed`: acts asked for that are not the ones recorded
 * (0 under the recorded settings, or the core changed); `unasked`: recorded answers no question asked
 * for this time.
 */
const noCounts = { facts: 0, programs: 0, starts: 0, inferred: 0, differed: 0, unasked: 0 }
export type ReplayCounts = Readonly<typeof noCounts>

export interface ControllerReplay extends Readonly<GateWorld> {
  readonly settings: GateSettings
  readonly group:
    | {
        readonly input: InputOf<ProgramInput> & { readonly atMs: number }
        readonly answers: Array<ControllerFact & { fact: "answer" }>
      }
    | undefined
  readonly counts: ReplayCounts
  /** The first and the last fact's time. */
  readonly span: { readonly first: number | undefined; readonly last: number | undefined }
}

/** A replay of `world` and `rest`, made field by field: every replay one shape, copied a fact at a time (issue 45). */
const replayOf = (world: GateWorld, rest: Omit<ControllerReplay, keyof GateWorld>): ControllerReplay => ({
  settings: rest.settings,
  group: rest.group,
  plans: world.plans,
  verdicts: world.verdicts,
  savedLive: world.savedLive,
  builds: world.builds,
  lastFacts: world.lastFacts,
  counts: rest.counts,
  span: rest.span,
})

export const startControllerReplay = (settings: GateSettings): ControllerReplay =>
  replayOf(
    { plans: new Map(), verdicts: new Set(), savedLive: new Map(), builds: new Map(), lastFacts: undefined },
    { settings, group: undefined, counts: noCounts, span: { first: undefined, last: undefined } },
  )

type InputOf<K extends ProgramInput> = Extract<InputFact, { readonly fact: K }>

/** The program each input runs, as `serve` ran it. */
const programs: {
  readonly [K in ProgramInput]: (input: InputOf<K>, settings: GateSettings) => Program<ControllerQuestions, unknown>
} = {
  tick: (i, settings) => gateTick(settings, i.wakes),
  words: (i) => keepWords(i.messages),
  report: (i) => keepReport(i.message),
  statement: (i) => keepStatement(i.message),
  witness: (i) => keepWitness(i.message),
  "store-failed": (i) => storeFailed(i.during, i.messages, i.why),
  verb: (i, settings) => operatorVerb(i.command, settings),
}

type Run = (input: InputOf<ProgramInput>, settings: GateSettings) => Program<ControllerQuestions, unknown>
const programOf: Run = (input, settings) => (programs[input.fact] as Run)(input, settings)

/** A replay after a fact, and what the programs it ended decided. */
type Fed = { readonly state: ControllerReplay; readonly decisions: ReadonlyArray<ControllerDecision> }
/** What a fact that ends no program decided: one array for all of them (two facts in three are answers). */
const none: ReadonlyArray<ControllerDecision> = []

/**
 * Runs the program under way, if any, to its end: the replay after it, with `next` over it (the
 * fact that ended it, counted: one copy of the replay a fact, issue 45). The program's world holds
 * the replay's own collections, changed in place as each answer is kept: a replay is fed one fact at
 * a time and the state before a fact is not read again, so the day's plans and verdicts are not
 * copied for every program (issue 45: a copy of the world per statement heard).
 */
const runGroup = (
  s: ControllerReplay,
  next: Omit<ControllerReplay, keyof GateWorld> = { ...s, group: undefined },
): Fed => {
  const g = s.group
  if (g === undefined) return { state: replayOf(s, next), decisions: none }
  const answers = g.answers
  // The recorded answers not yet handed to a question, in order, and whether each act was recorded.
  const unused: Array<(typeof answers)[number] | undefined> = answers.slice()
  const recordedActs: Array<boolean> = []
  let inferred = 0
  let differed = 0
  // What the replay keeps of the day, each kind's inference row saying what it keeps of its answer.
  const { plans, verdicts, builds, lastFacts, savedLive } = s
  const world: ControllerWorld = { plans, verdicts, builds, lastFacts, savedLive }
  const answer = (q: Question): unknown => {
    const row = inferredOf(q.q)
    const i = unused.findIndex((a) => a !== undefined && a.q.q === q.q)
    const act = actKinds.has(q.q)
    let a: unknown
    if (i < 0) {
      inferred += 1
      // Every kind the controller knows has its what-if answer; only an unknown kind is answered so.
      a = row === undefined ? { ok: true } : row.whatIf(q, world, g.input.atMs)
    } else {
      const recorded = unused[i]!
      unused[i] = undefined
      // The same value is the same act: the recorder wrote the question as the program asked it, so
      // the sorted spelling (a third of a controller log's replay) is seldom needed.
      if (act && !sameJson(recorded.q, q) && canonicalJson(recorded.q) !== canonicalJson(q)) differed += 1
      a = row?.replayed === undefined ? recorded.a : row.replayed(q, recorded.a, world)
      if (row?.differs?.(q, recorded.q, recorded.a) === true) differed += 1
    }
    if (act) recordedActs.push(i >= 0)
    row?.keep?.(q, a, world)
    return a
  }
  const at = g.input.atMs
  const input = g.input.fact
  const decisions: Array<ControllerDecision> = []
  let acts = 0
  runPure(programOf(g.input, s.settings), answer, (e) => {
    if ("said" in e) decisions.push({ at, input, kind: "said", line: e.said })
    else if (actKinds.has(e.exchange.question.q)) {
      const { question: act, answer } = e.exchange
      decisions.push({ at, input, kind: "act", act, answer, recorded: recordedActs[acts++]! })
    }
  })
  for (const r of answers) inferredOf(r.q.q)?.keepRecorded?.(r.q, world)
  const { settings, group, span, counts: c } = next
  const counts = {
    ...c,
    programs: c.programs + 1,
    inferred: c.inferred + inferred,
    differed: c.differed + differed,
    unasked: c.unasked + unused.filter((u) => u !== undefined).length,
  }
  return { state: replayOf(world, { settings, group, span, counts }), decisions }
}

/** Feeds one fact: an input ends the program before it and begins its own; an answer joins it. */
export const feedController = (
  s: ControllerReplay,
  f: ControllerFact,
  settingsAt: (started: InputFact & { fact: "started" }) => GateSettings,
): Fed => {
  const c = { ...s.counts, facts: s.counts.facts + 1 }
  const span = { first: s.span.first ?? f.atMs, last: f.atMs }
  if (f.fact === "answer") {
    // An answer with no program under way is one no question asked for.
    s.group?.answers.push(f)
    const counts = s.group === undefined ? { ...c, unasked: c.unasked + 1 } : c
    return { state: replayOf(s, { settings: s.settings, group: s.group, span, counts }), decisions: none }
  }
  if (f.fact !== "started")
    return runGroup(s, { settings: s.settings, span, counts: c, group: { input: f, answers: [] } })
  const settings = settingsAt(f)
  const ended = runGroup(s, { span, settings, group: undefined, counts: { ...c, starts: c.starts + 1 } })
  return { state: ended.state, decisions: [...ended.decisions, { at: f.atMs, kind: "started", settings }] }
}

/** The end of the log: the last program run. */
export const finishController = (s: ControllerReplay) => runGroup(s)

/** A `started` line's settings, with `--set`'s over them: the same rule as the header's. */
export const settingsWith =
  (overrides: GateSettingsLine) =>
  (started: InputFact & { fact: "started" }): GateSettings =>
    gateSettingsOf({ ...started.settings.gate, ...overrides })
