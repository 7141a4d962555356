// Replaying a recorded day through the provisioner core. A pass of the log is its pass line and
// the answers recorded after it; the core is stepped through the pass, each of its questions
// answered by the first recorded answer to the same question. Under the recorded settings every
// question finds its answer, in order. Under other settings ("what if failingAfter were 2m") the
// core may ask what was never asked that day: it is answered with the last answer heard to that
// question (a success when none was), and counted, so a what-if says how much of it is inferred.
import type { AnswerFact, Announcement, Fact, Provider, Request, Settings } from "../provisioner/model.ts"
import { answers, initialState, type ProvisionerState, step } from "../provisioner/pass.ts"

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
}

export const freshReplay: ReplayState = { core: initialState, heard: new Map(), passes: 0, inferred: 0, unasked: 0 }

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

/** Steps the core through one recorded pass; answers the decisions it made, in order. */
export const replayPass = (
  state: ReplayState, group: PassGroup, settings: Settings, provider: Provider,
): { readonly state: ReplayState; readonly decisions: ReadonlyArray<Decision> } => {
  const decisions: Array<Decision> = []
  const used = new Array<boolean>(group.answers.length).fill(false)
  const heard = new Map(state.heard)
  for (const a of group.answers) heard.set(key(a.fact, a.as), a)
  let inferred = state.inferred
  let now = group.pass.at
  let s = step(state.core, group.pass, settings, provider)
  for (;;) {
    for (const said of s.said) decisions.push({ kind: "said", ...said })
    for (const a of s.announced) decisions.push({ kind: "announced", ...a })
    const asked = s.next
    if (asked === undefined) break
    const found = group.answers.findIndex((a, i) => !used[i] && answers(a, asked))
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
    s = step(s.state, answer, settings, provider)
  }
  return {
    state: {
      core: s.state,
      heard,
      passes: state.passes + 1,
      inferred,
      unasked: state.unasked + used.filter((u) => !u).length,
    },
    decisions,
  }
}
