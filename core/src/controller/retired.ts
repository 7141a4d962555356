// Questions no program asks any more, kept for reading the logs that recorded them (issue 25: any log
// recorded before replays to the same lines). A log of an earlier controller may hold answers to
// them; the reader decodes each with the Schemas it was recorded with, and a replay meets it as a
// recorded answer no program asks (counted `unasked`). The timeline, the summary and the metrics read
// a recorded `send` as they always did. No area's `programsOf` names this catalogue, so no program can
// ask one of them again.
import * as Schema from "effect/Schema"
import { entry, type Inference } from "../program.ts"
import { Names, question, readable } from "../outcome.ts"
import { Sent } from "../gate/questions.ts"
import { PlanRecord } from "../gate/plan/records.ts"
import { KeptRecord } from "../standings/questions.ts"

const KeyRecord = Schema.Struct({ provider: Schema.String, providerNode: Schema.String, consumer: Schema.String })

export const retiredQuestions = {
  /** The open plans, read before plans in flight were (now `plans-in-flight`). */
  "open-plans": entry({ question: question("open-plans", {}), answer: readable(Schema.Array(PlanRecord)), act: false }),
  /** The gate's own send of the rest or the rollback, before a plan sent its own (now `send-plan`). */
  send: entry({
    question: question("send", { machines: Names, why: Schema.Literals(["rest", "rollback"]), module: Schema.String }),
    answer: Sent,
    act: true,
  }),
  /** The standings kept for these keys, read apart before a word's keeping read them itself. */
  "kept-standings": entry({
    question: question("kept-standings", { keys: Schema.Array(KeyRecord) }),
    answer: Schema.Array(KeptRecord),
    act: false,
  }),
} as const
export type RetiredQuestions = typeof retiredQuestions

/** No program asks a retired question, so a replay never infers one. */
const unasked = (): never => {
  throw new Error("no program asks a retired question")
}
export const retiredInference: Inference<RetiredQuestions, unknown> = {
  "open-plans": { whatIf: unasked },
  send: { whatIf: unasked },
  "kept-standings": { whatIf: unasked },
}
