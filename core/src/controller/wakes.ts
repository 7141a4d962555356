// What each input the controller keeps wakes in the gate (core/src/gate/plan/wake.ts): a machine's report,
// health statement or witness's verdict wakes the plans it is a machine of; providers' words may raise or clear
// conditions, which are evidence on any machine; nothing else wakes it. A statement older than the one
// kept wakes nothing, and one saying what the one before it said is heard as such (wake.ts decides
// whether it is worth a pass): routine statements every second are most of what a mesh says.
import * as Schema from "effect/Schema"
import { readReport } from "../delivery/messages.ts"
import { canonicalJson } from "../json.ts"
import { readStatement } from "../gate/messages/messages.ts"
import { statementQuestions } from "../gate/messages/questions.ts"
import { readWitness } from "../gate/messages/witnesses.ts"
import type { Heard } from "../gate/plan/wake.ts"
import type { InputFact } from "./log-lines.ts"

/** An input as the recorder is handed it, before it is dated. */
type Undated = InputFact extends infer F ? (F extends { readonly at: string } ? Omit<F, "at"> : never) : never

const isKept = Schema.is(statementQuestions["kept-statement"].answer)

/** What an input wakes, given the answers its program got (the statement kept before it). */
export const wakeOf = (
  input: Undated,
  answers: ReadonlyArray<{ readonly q: { readonly q: string }; readonly a: unknown }> = [],
): Heard | undefined => {
  switch (input.fact) {
    case "report": {
      const r = readReport(input.message.body)
      return r.ok ? { kind: "machine", machine: r.value.node } : undefined
    }
    case "statement": {
      const r = readStatement(input.message.body)
      if (!r.ok) return undefined
      const kept = answers.find((a) => a.q.q === "kept-statement")?.a
      const was = isKept(kept) ? kept?.statement : undefined
      if (was !== undefined && was.at >= r.value.at) return undefined
      const same = was !== undefined && canonicalJson(was.resources) === canonicalJson(r.value.resources)
      return { kind: "machine", machine: r.value.machine, by: "statement", ...(same ? { same: was.at } : {}) }
    }
    case "witness": {
      // A witness's verdict is evidence on its machine's plans, and what its condition says.
      const r = readWitness(input.message.subject, input.message.body)
      return r.ok ? { kind: "machine", machine: r.value.machine } : undefined
    }
    case "words":
      return { kind: "conditions" }
    case "verb":
      return { kind: "plan", plan: input.command.plan }
    default:
      return undefined
  }
}
