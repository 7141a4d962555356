// A machine's health statement, as the controller keeps it (ADR 0240): the newest per machine, and
// `module.<m>.<machine>.unhealthy` raised on the second unhealthy in a row, cleared when healthy. A
// statement naming a state nobody knows is set aside (dead_letters), never read as "unhealthy". Run
// inside one transaction of the store, which the shell opens around it.
import { programsOf, type Program } from "../../program.ts"
import { type Heard, type KeptOrNot, letterOf, setAside } from "../../standings/followers.ts"
import { healthSource, hearStatement } from "../judging/health.ts"
import { readStatement } from "./messages.ts"
import { type StatementQuestions, statementQuestions } from "./questions.ts"

const Gate = programsOf(statementQuestions)

/** A machine's health statement: kept when newest, and the conditions it raises or clears. */
export function* keepStatement(m: Heard): Program<StatementQuestions, KeptOrNot> {
  const read = readStatement(m.body)
  if (!read.ok) {
    yield* setAside("statement", [letterOf("statement", m, read.why)])
    return "set-aside"
  }
  const s = read.value
  const kept = yield* Gate.ask({ q: "kept-statement", machine: s.machine })
  const words = hearStatement(kept, s)
  if (words.keep === undefined) return "older-than-kept"
  yield* Gate.ask({ q: "write-statement", statement: s, streaks: words.keep.streaks })
  for (const { at, observation: o } of words.raise) {
    yield* Gate.ask({ q: "raise-condition", at, observation: o })
    yield* Gate.say(`[controller] raised ${o.key}: ${o.summary}`)
  }
  for (const key of words.clear) {
    yield* Gate.ask({ q: "clear-condition", key, by: healthSource })
    yield* Gate.say(`[controller] cleared ${key}`)
  }
  return "kept"
}
