// How a replayed day's acts read to a person, as each area's timeline table says it (issue 25): the lines
// an act is shown as, and what a said line is known by. The controller's timeline (controller/render.ts)
// reads these from the tables and has no rule of its own per question.

import type { ActKindOf, AnswerOf, Catalogue, QuestionOf } from "./program.ts"

/** A timeline line: its label and its text. */
export type TimelineLine = readonly [label: string, text: string]

/** What an act's lines are made with, beside its question and answer. */
export interface Shown {
  /** What follows every line of it: why it was not done, and whether it was inferred. */
  readonly tail: string
  /** Why its answer says it was not done, if it does. */
  readonly failed: string | undefined
  /** Everything the program said, one line after another. */
  readonly said: string
  /** The input that ran the program (`tick`, `words`, …). */
  readonly input: string
}

/** What an act tells the timeline of the lines said beside it. */
export type SaidMark =
  /** A plan judged and what it came to (`""` not decided); `first` only when no other act named the plan before. */
  | {
      readonly judged: {
        readonly plan: string
        readonly module: string
        readonly verdict: string
        readonly first: boolean
      }
    }
  /** The gate's own condition raised: its summary is said as a rollback. */
  | { readonly rollback: string }
  | { readonly raised: string }
  | { readonly cleared: string }

/** Why an act's answer says it was not done, if it does. */
export const failure = (answer: unknown): string | undefined => {
  if (typeof answer !== "object" || answer === null) return undefined
  if ("ok" in answer && answer.ok === false && "why" in answer) return String(answer.why)
  if ("error" in answer && typeof answer.error === "string") return answer.error
  return undefined
}

/** How the timeline shows one kind of act, what it tells of the lines said beside it, and what it adds to the summary. */
export interface ShownAct<Q, A, Tally> {
  /** None when it is not worth a line of its own. */
  show(question: Q, answer: A, shown: Shown): ReadonlyArray<TimelineLine>
  marks?(question: Q): ReadonlyArray<SaidMark>
  tally?(question: Q, answer: A, tally: Tally): void
}

/** An area's timeline: a row for every act of its catalogue (reads are never on it). */
export type TimelineOf<C extends Catalogue, Tally> = {
  readonly [K in ActKindOf<C>]: ShownAct<QuestionOf<C, K>, AnswerOf<C, K>, Tally>
}

/** An act the timeline shows no line of. */
export const unshown = (): ReadonlyArray<TimelineLine> => []

/** A tally that counts each act of its kind once, under `field`. */
export const counted =
  <K extends string>(field: K) =>
  (_question: unknown, _answer: unknown, tally: Record<K, number>): void => {
    tally[field] += 1
  }
