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
import type { AnswerFact, Announcement, Fact, Provider, Request, Settings } from "../provisioner/model.ts"
import { answers, drivePass, initialState, type ProvisionerState } from "../provisioner/pass.ts"
import type { LogFact } from "./log.ts"

export type Decision =
  | { readonly at: number; readonly kind: "said"; readonly text: string }
  | ({ readonly kind: "announced" } & Announcement)
  | {
    readonly at: number
    readonly kind: "called"
    readonly call: Request["call"]
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
  /** The last answer heard to each question, by call and consumer. */
  readonly heard: ReadonlyMap<string, AnswerFact>
  readonly passes: number
  readonly inferred: number
  /** Recorded answers to questions the core did not ask this time. */
  readonly unasked: number
  /** Passes ended early because the recording did (a kill, or the end of the log). */
  readonly cut: number
  /** Runs of the provider: the header's, and one for each `started`. */
  readonly runs: number
}

export const freshReplay: ReplayState = { core: initialState, heard: new Map(), passes: 0, inferred: 0, unasked: 0, cut: 0, runs: 0 }

/** A restarted provider: nothing of the last run's memory is left, not even what it heard. */
export const restarted = (state: ReplayState): ReplayState => ({ ...state, core: initialState, heard: new Map(), runs: state.runs + 1 })

const key = (call: string, as: string): string => `${call}\u0000${as}`

const inferredAnswer = (request: Request, at: number, heard: ReadonlyMap<string, AnswerFact>): AnswerFact => {
  const last = heard.get(key(request.call, request.as))
  if (last !== undefined) return { ...last, at }
  switch (request.call) {
    case "secret":
      return { fact: "secret", at, as: request.as, read: "ok", password: "fingerprint:(not in the recording)" }
    case "holds":
      return { fact: "holds", at, as: request.as, outcome: "held" }
    case "create":
      return { fact: "create", at, as: request.as, outcome: "ok" }
    case "remove":
      return { fact: "remove", at, as: request.as, outcome: "ok" }
  }
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

/** Drives the core through one recorded pass; answers the decisions it made, in order. */
export const replayPass = (
  state: ReplayState, group: PassGroup, settings: Settings, provider: Provider, cutShort = false,
): { readonly state: ReplayState; readonly decisions: ReadonlyArray<Decision> } => {
  const decisions: Array<Decision> = []
  const used = new Array<boolean>(group.answers.length).fill(false)
  const heard = new Map(state.heard)
  for (const a of group.answers) heard.set(key(a.fact, a.as), a)
  let inferred = state.inferred
  let now = group.pass.at
  const core = drivePass(state.core, group.pass, settings, provider, {
    said: (said) => void decisions.push({ kind: "said", ...said }),
    announced: (a) => void decisions.push({ kind: "announced", ...a }),
    answer: (asked) => {
      const found = group.answers.findIndex((a, i) => !used[i] && answers(a, asked))
      // The recording ended here: what the provider would have heard next is not known, and not guessed.
      if (found < 0 && cutShort) return undefined
      let answer: AnswerFact
      if (found >= 0) {
        used[found] = true
        answer = group.answers[found]!
        now = answer.at
      } else {
        answer = inferredAnswer(asked, now, heard)
        inferred += 1
      }
      decisions.push({ at: answer.at, kind: "called", call: asked.call, as: asked.as, ...outcomeOf(answer), recorded: found >= 0 })
      return answer
    },
  })
  return {
    state: {
      ...state,
      core: core ?? initialState,
      heard,
      passes: state.passes + 1,
      inferred,
      cut: state.cut + (core === undefined ? 1 : 0),
      unasked: state.unasked + used.filter((u) => !u).length,
    },
    decisions,
  }
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

export const dayReplay = (overrides: Partial<Settings> = {}): DayReplay =>
  ({ replay: freshReplay, group: undefined, settings: undefined, provider: undefined, overrides })

const flush = (day: DayReplay, cutShort: boolean): ReadonlyArray<Decision> => {
  const g = day.group
  if (g === undefined || day.settings === undefined || day.provider === undefined) return []
  day.group = undefined
  const r = replayPass(day.replay, g, day.settings, day.provider, cutShort)
  day.replay = r.state
  return r.decisions
}

/** Feeds one fact of the log; answers the decisions of the pass it completed, if any. */
export const replayFact = (day: DayReplay, fact: LogFact): ReadonlyArray<Decision> => {
  switch (fact.fact) {
    case "started": {
      const decisions = flush(day, true)
      day.replay = restarted(day.replay)
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
      return []
  }
}

/** The end of the log: the last pass, which the recording may have cut short. */
export const replayEnd = (day: DayReplay): ReadonlyArray<Decision> => flush(day, true)
