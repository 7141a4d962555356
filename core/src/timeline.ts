// How a replayed day's acts read to a person, as each area's catalogue says it (issue 25): the lines
// an act is shown as, and what a said line is known by. The controller's timeline (controller/render.ts)
// reads these from the entries and has no rule of its own per question.

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
