// What a person's programs ask (issues 10, 39): the operators' verbs (operator.ts), which carry a plan
// on as the tick does and so ask what its moves ask, and the release (release.ts). Each asks only its
// own questions; those it shares with the tick are the tick's entries (tick/questions.ts).
import * as Schema from "effect/Schema"
import { now } from "../../outcome.ts"
import { MeshRecords } from "../../mesh/records.ts"
import { BuildRecord, PlanRecord } from "../plan/records.ts"
import { act, moveQuestions, read, tickQuestions } from "../tick/questions.ts"

/** What an operator's verb asks: a plan by its id, the lease, a plan reopened, and what a plan carried on asks. */
export const verbQuestions = {
  ...moveQuestions,
  "plans-in-flight": tickQuestions["plans-in-flight"],
  /**
   * Whether this controller holds the controller lease, and who does: a verb is carried out only by
   * the holder, and refused elsewhere naming it.
   */
  "lease-holder": read(
    "lease-holder",
    {},
    Schema.Struct({
      mine: Schema.Boolean,
      holder: Schema.NullOr(Schema.String),
      /** This controller is stopping its acts and has not given the lease back yet (issue 289). */
      handingOver: Schema.optionalKey(Schema.Boolean),
      /** This controller's own name, so the holder a handover names is never itself. */
      self: Schema.optionalKey(Schema.String),
    }),
  ),
  /** One plan by its id, whatever its state; null when there is none. */
  "plan-of": read("plan-of", { id: Schema.String }, Schema.NullOr(PlanRecord)),
  /**
   * A failed plan opened again by `plans retry`: written over the row only while it is `failed` and no
   * other plan of its module is in flight (save-plan never writes over an ended row).
   */
  "reopen-plan": act("reopen-plan", { plan: PlanRecord }),
}
export type VerbQuestions = typeof verbQuestions

/** What `release` asks (core/src/gate/operator/release.ts). */
export const releaseQuestions = {
  now,
  "plans-in-flight": tickQuestions["plans-in-flight"],
  "verdict-of": moveQuestions["verdict-of"],
  "save-plan": moveQuestions["save-plan"],
  "set-build": moveQuestions["set-build"],
  "send-plan": moveQuestions["send-plan"],
  /**
   * The mesh's records, or why they cannot be read; null when none were given yet. Not the push's
   * `mesh-records` (delivery/questions.ts), which a store that cannot be read ends instead.
   */
  "mesh-records-read": read("mesh-records-read", {}, Schema.NullOr(MeshRecords)),
  "record-build": act("record-build", { build: BuildRecord }),
}
export type ReleaseQuestions = typeof releaseQuestions
