// What the controller decided or observed, as its metrics read it (issue 10): each area's catalogue
// says what an exchange of its questions is observed as (issue 25), and controller/metrics.ts maps
// an observation to metric updates.
import * as Schema from "effect/Schema"

export const JudgingOutcome = Schema.Literals(["healthy", "not-yet", "broken", "could-not-ask"])
export type JudgingOutcome = typeof JudgingOutcome.Type
export type KeptOutcome = "kept" | "older-than-kept" | "set-aside"
export type OperatorAct = "pause" | "resume" | "promote" | "abort" | "retry"

/** What the controller decided or saw, as metrics read it. */
export type Observed =
  | { readonly kind: "words"; readonly outcome: KeptOutcome; readonly count: number }
  | {
      readonly kind: "machine-message"
      readonly what: "report" | "statement" | "witness"
      readonly outcome: KeptOutcome
    }
  | { readonly kind: "condition-raised"; readonly severity: string }
  | { readonly kind: "condition-cleared"; readonly by: string }
  | { readonly kind: "judged"; readonly outcome: JudgingOutcome }
  | { readonly kind: "verdict"; readonly verdict: "passed" | "failed" }
  | { readonly kind: "rollback"; readonly outcome: string }
  | { readonly kind: "send"; readonly why: "tier" | "rest" | "rollback" | "user-list"; readonly ok: boolean }
  | { readonly kind: "published"; readonly event: string; readonly ok: boolean }
  | { readonly kind: "operator-act"; readonly act: OperatorAct; readonly ok: boolean }
  | { readonly kind: "store-error"; readonly operation: string }
  | { readonly kind: "bus-error"; readonly operation: string }
  /** One pass of a loop ended at `at` (epoch ms) after `seconds`. */
  | { readonly kind: "loop"; readonly loop: string; readonly seconds: number; readonly at: number }
  | { readonly kind: "lease"; readonly held: boolean; readonly epoch: number | undefined }
  /** A count of what is kept now: the gauge becomes exactly these series (a state no longer seen drops out). */
  | { readonly kind: "plans-by-state"; readonly counts: Readonly<Record<string, number>> }
  | { readonly kind: "conditions-open"; readonly counts: Readonly<Record<string, number>> }
  | { readonly kind: "standings-failing"; readonly counts: Readonly<Record<string, number>> }
