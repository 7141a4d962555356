// What the machines' messages ask (ADR 0240, seed 003's witnessed; issue 39): a health statement
// kept (statements.ts), which raises and clears conditions with the tick's own entries, and a
// witness's verdict kept (witnesses.ts); each kept in the follower's transaction, and a message
// unread set aside with the standings' question.
import * as Schema from "effect/Schema"
import { entry } from "../../program.ts"
import { question } from "../../outcome.ts"
import { setAsideQuestions } from "../../standings/questions.ts"
import { MachineVerdict, WitnessRecord } from "../judging/facts.ts"
import { KeptHealth } from "../judging/health.ts"
import { act, moveQuestions } from "../tick/questions.ts"

/** A machine's health statement kept. */
export const statementQuestions = {
  ...setAsideQuestions,
  "raise-condition": moveQuestions["raise-condition"],
  "clear-condition": moveQuestions["clear-condition"],
  "kept-statement": entry({
    question: question("kept-statement", { machine: Schema.String }),
    answer: Schema.NullOr(KeptHealth),
    act: false,
  }),
  "write-statement": act("write-statement", KeptHealth.fields),
}
export type StatementQuestions = typeof statementQuestions

/** A machine's witness's verdict kept. */
export const witnessQuestions = {
  ...setAsideQuestions,
  /** The verdict kept for a machine's component, locked until the follower's transaction ends. */
  "kept-witness": entry({
    question: question("kept-witness", { machine: Schema.String, component: Schema.String }),
    answer: Schema.NullOr(WitnessRecord),
    act: false,
  }),
  "write-witness": act("write-witness", MachineVerdict.fields),
}
export type WitnessQuestions = typeof witnessQuestions
