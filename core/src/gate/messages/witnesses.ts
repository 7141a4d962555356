// What a machine's witness says it decided (seed 003's witnessed, rules 003-4, 003-29, 003-33; ADR
// 0236, the host's contract). A witness is an agent on each machine that judges the core components
// running there — the controller, the node-engine, the node tools — and may put one back that it
// judges unhealthy. It says each verdict on `<prefix>.mesh.witness.<machine>` (stream WITNESSES); the
// controller keeps the newest per machine and component, the gate judges with them (a verdict made
// since a send of that component fails its gate there: judgeHealth), and the gate's probe says each
// as the condition `core.<component>.<machine>.<outcome>` while it holds.
import * as Schema from "effect/Schema"
import { programsOf, type Program } from "../../program.ts"
import { type Heard, type KeptOrNot, letterOf, setAside } from "../../standings/followers.ts"
import { parseRfc3339 } from "../../standings/word.ts"
import { ComponentController, ComponentEngine, ComponentNodeTools, short } from "../judging/facts.ts"
import { decodeJson, messageLimits, Time } from "./messages.ts"
import { Name, text } from "../../standings/word.ts"
import { type Readable, value } from "../../outcome.ts"
import { type WitnessQuestions, witnessQuestions } from "./questions.ts"
import type { MachineVerdict, WitnessRecord } from "../judging/facts.ts"

/** What a witness did, as the seed's witnessObservation lists them. */
const WitnessOutcome = Schema.Literals([
  "rolled-back",
  "not-reversible",
  "nothing-to-restore",
  "restore-failed",
  "unwitnessed",
  "halted",
])

/** The core components a witness judges. */
const WitnessComponent = Schema.Literals([ComponentController, ComponentEngine, ComponentNodeTools])

/** A witness's verdict as it says it on the bus. `from` is the build it judged, `to` the one it put back. */
const WitnessMessage = Schema.Struct({
  machine: Name,
  component: WitnessComponent,
  outcome: WitnessOutcome,
  from: text(messageLimits.nameChars),
  to: Schema.optionalKey(text(messageLimits.nameChars)),
  at: Time,
  why: text(messageLimits.textChars),
})

/**
 * A witness's message read by its Schema: the machine it is about, and the verdict as the store keeps it. One said on another machine's subject is refused: a
 * witness speaks only for the machine it runs on.
 */
export const readWitness = (subject: string, body: string): Readable<MachineVerdict> => {
  const r = decodeJson(WitnessMessage, body)
  if (!r.ok) return r
  const m = r.value
  if (!subject.endsWith(`.witness.${m.machine}`))
    return { ok: false, why: `machine: ${m.machine} said on ${subject}, which is not its own subject` }
  const at = parseRfc3339(m.at)!
  return value({
    machine: m.machine,
    verdict: { component: m.component, outcome: m.outcome, from: m.from, to: m.to ?? "", why: m.why, at },
  })
}

const Gate = programsOf(witnessQuestions)

/** What a witness's verdict says, as the controller's journal says it. */
const witnessWords = (machine: string, v: WitnessRecord): string =>
  `the witness on ${machine} says the ${v.component} ${short(v.from) || "(build not named)"} was not healthy, and it ${v.outcome}: ${v.why}`

/**
 * A witness's verdict kept (run inside one transaction of the store, which the shell opens around
 * it): the newest per machine and component; an older one arriving late changes nothing. The gate's
 * probe says it as a condition on its next run.
 */
export function* keepWitness(m: Heard): Program<WitnessQuestions, KeptOrNot> {
  const read = readWitness(m.subject, m.body)
  if (!read.ok) {
    yield* setAside("witness's verdict", [letterOf("witness", m, read.why)])
    return "set-aside"
  }
  const { machine, verdict } = read.value
  const kept = yield* Gate.ask({ q: "kept-witness", machine, component: verdict.component })
  if (kept !== null && kept.at > verdict.at) return "older-than-kept"
  yield* Gate.ask({ q: "write-witness", machine, verdict })
  yield* Gate.say(`[controller] ${witnessWords(machine, verdict)}`)
  return "kept"
}
