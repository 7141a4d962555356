// Replaying a recorded day through the provisioner core. A pass of the log is its pass line and
// the answers recorded after it; the core is driven through the pass (drivePass), each of its questions
// answered by the first recorded answer to the same question. Under the recorded settings every
// question finds its answer, in order. Under other settings ("what if failingAfter were 2m") the
// core may ask what was never asked that day: it is answered with the last answer heard to that
// question (a success when none was), and counted, so a what-if says how much of it is inferred.
//
// A `started` line is a provider restarted on the same log: memory is empty from there, as the new
// process's was, under that run's settings. The pass before it, and the last pass of the log, may
// have been cut short by the kill or by the end of the recording: a question such a pass finds no
// answer to ends it there, never filled in with an inferred answer (issue 8).
import type { AnswerFact, Announcement, Fact, Provider, Settings } from "./model.ts"
import { drivePass, initialState, type ProvisionerState } from "./pass.ts"
import { answers, type Call, inferredAnswer, type Request } from "./questions.ts"
import type { LogFact } from "./log.ts"

export type Decision =
  | { readonly at: number; readonly kind: "said"; readonly text: string }
  | ({ readonly kind: "announced" } & Announcement)
  | {
      readonly at: number
      readonly kind: "called"
      readonly call: Call
      readonly as: string
      readonly outcome: string
      readonly class: string | undefined
      /** False when the answer was not in the recording and was inferred. */
      readonly recorded: boolean
    }

export interface PassGroup {
  readonly pass: Extract<Fact, { fact: "pass" }>
  readonly answers: ReadonlyArray<AnswerFact>
}

export interface ReplayState {
  readonly core: ProvisionerState
  /** The last answer heard to each question, by call and then consumer: changed in place by the replay (issue 11). */
  readonly heard: Map<Call, Map<string, AnswerFact>>
  readonly passes: number
  readonly inferred: number
  /** Recorded answers to questions the core did not ask this time. */
  readonly unasked: number
  /** Passes ended early because the recording did (a kill, or the end of the log). */
  readonly cut: number
  /** Runs of the provider: the header's, and one for each `started`. */
  readonly runs: number
}

export const freshReplay: ReplayState = {
  core: initialState,
  heard: new Map(),
  passes: 0,
  inferred: 0,
  unasked: 0,
  cut: 0,
  runs: 0,
}

const hear = (heard: Map<Call, Map<string, AnswerFact>>, a: AnswerFact): void => {
  let byAs = heard.get(a.fact)
  if (byAs === undefined) heard.set(a.fact, (byAs = new Map()))
  byAs.set(a.as, a)
}

/** The outcome of an answer in one word, and its class when the adapter gave one. */
export const outcomeOf = (fact: AnswerFact): { outcome: string; class: string | undefined } => {
  if (fact.fact === "secret") return { outcome: fact.read === "ok" ? "read" : "unreadable", class: undefined }
  if (fact.outcome === "error") {
    const timedOut = fact.fact === "holds" && fact.timedOut
    return { outcome: timedOut ? "timed-out" : "error", class: "class" in fact ? fact.class : undefined }
  }
  return { outcome: fact.outcome, class: undefined }
}

const calledOf = (asked: Request, answer: AnswerFact, recorded: boolean): Decision => {
  const o = outcomeOf(answer)
  return { at: answer.at, kind: "called", call: asked.q, as: asked.as, outcome: o.outcome, class: o.class, recorded }
}

/**
 * One recorded pass driven through the core, `state.heard` changed in place (the caller owns it): the
 * day's replay keeps one map for the whole log rather than copying it each pass (issue 11).
 */
export const replayPassInPlace = (
  state: ReplayState,
  group: PassGroup,
  settings: Settings,
  provider: Provider,
  cutShort: boolean,
): { readonly state: ReplayState; readonly decisions: ReadonlyArray<Decision> } => {
  const decisions: Array<Decision> = []
  const { heard } = state
  const given = group.answers
  const used = new Array<boolean>(given.length).fill(false)
  for (const a of given) hear(heard, a)
  let inferred = state.inferred
  let taken = 0
  // Under the recorded settings the core asks in the order the answers were recorded: the first
  // answer not yet used is nearly always the one, so a pass is matched in one walk, not a search per question.
  let first = 0
  let now = group.pass.at
  const core = drivePass(state.core, group.pass, settings, provider, {
    said: (said) => void decisions.push({ kind: "said", at: said.at, text: said.text }),
    announced: (a) => void decisions.push({ kind: "announced", ...a }),
    answer: (asked) => {
      let found = first < given.length && answers(given[first]!, asked) ? first : -1
      for (let i = first + 1; found < 0 && i < given.length; i++) if (!used[i] && answers(given[i]!, asked)) found = i
      // The recording ended here: what the provider would have heard next is not known, and not guessed.
      if (found < 0 && cutShort) return undefined
      const answer = found < 0 ? inferredAnswer(asked, { at: now, heard }) : given[found]!
      if (found < 0) inferred += 1
      else {
        used[found] = true
        taken += 1
        while (first < given.length && used[first]) first += 1
        now = answer.at
      }
      decisions.push(calledOf(asked, answer, found >= 0))
      return answer
    },
  })
  const next = {
    ...state,
    core: core ?? initialState,
    passes: state.passes + 1,
    inferred,
    cut: state.cut + (core === undefined ? 1 : 0),
    unasked: state.unasked + given.length - taken,
  }
  return { state: next, decisions }
}

/**
 * A whole log replayed a fact at a time: passes gathered with their answers, each run under its own
 * settings with `overrides` on top. Mutable and private to one replay, so a day of facts does not
 * copy a record per line.
 */
export interface DayReplay {
  replay: ReplayState
  group: { readonly pass: PassGroup["pass"]; readonly answers: Array<AnswerFact> } | undefined
  settings: Settings | undefined
  provider: Provider | undefined
  readonly overrides: Partial<Settings>
}

export const dayReplay = (overrides: Partial<Settings> = {}): DayReplay => ({
  replay: { ...freshReplay, heard: new Map() },
  group: undefined,
  settings: undefined,
  provider: undefined,
  overrides,
})

const none: ReadonlyArray<Decision> = []

const flush = (day: DayReplay, cutShort: boolean): ReadonlyArray<Decision> => {
  const g = day.group
  if (g === undefined || day.settings === undefined || day.provider === undefined) return none
  day.group = undefined
  const { state, decisions } = replayPassInPlace(day.replay, g, day.settings, day.provider, cutShort)
  day.replay = state
  return decisions
}

/** Feeds one fact of the log; answers the decisions of the pass it completed, if any. */
export const replayFact = (day: DayReplay, fact: LogFact): ReadonlyArray<Decision> => {
  switch (fact.fact) {
    case "started": {
      const decisions = flush(day, true)
      // A restarted provider: nothing of the last run's memory is left, not even what it heard.
      day.replay = { ...day.replay, core: initialState, heard: new Map(), runs: day.replay.runs + 1 }
      day.settings = { ...fact.settings, ...day.overrides }
      day.provider = fact.provider
      return decisions
    }
    case "pass": {
      const decisions = flush(day, false)
      day.group = { pass: fact, answers: [] }
      return decisions
    }
    default:
      day.group?.answers.push(fact)
      return none
  }
}

/** The end of the log: the last pass, which the recording may have cut short. */
export const replayEnd = (day: DayReplay): ReadonlyArray<Decision> => flush(day, true)
