// What each input the controller keeps wakes in the gate (core/src/gate/plan/wake.ts): a machine's report,
// health statement or witness's verdict wakes the plans it is a machine of; providers' words may raise or clear
// conditions, which are evidence on any machine; nothing else wakes it.
import { readReport } from "../delivery/messages.ts"
import { readStatement } from "../gate/messages/messages.ts"
import { readWitness } from "../gate/messages/witnesses.ts"
import type { GateWake } from "../gate/plan/wake.ts"
import type { InputFact } from "./log-lines.ts"

/** An input as the recorder is handed it, before it is dated. */
type Undated = InputFact extends infer F ? (F extends { readonly at: string } ? Omit<F, "at"> : never) : never

export const wakeOf = (input: Undated): GateWake | undefined => {
  switch (input.fact) {
    case "report": {
      const r = readReport(input.message.body)
      return r.ok ? { kind: "machine", machine: r.value.node } : undefined
    }
    case "statement": {
      const r = readStatement(input.message.body)
      return r.ok ? { kind: "machine", machine: r.value.machine } : undefined
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
