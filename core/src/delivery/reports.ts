// A machine's report of what a declaration came to, as the controller keeps it: the newest said wins,
// whatever order they arrive in; one that cannot be read or kept within the store's limits is set aside
// (dead_letters, issue 14). Run inside one transaction of the store, which the shell opens around it.
import { programsOf, type Program } from "../program.ts"
import { type Heard, type KeptOrNot, letterOf, setAside } from "../standings/followers.ts"
import type { setAsideQuestions } from "../standings/questions.ts"
import { newerReport } from "./behind.ts"
import { readReport } from "./messages.ts"
import { deliveryQuestions } from "./questions.ts"

const Delivery = programsOf(deliveryQuestions)

/** A machine's report of what a declaration came to: kept when it is newer than the one kept. */
export function* keepReport(m: Heard): Program<typeof deliveryQuestions & typeof setAsideQuestions, KeptOrNot> {
  const read = readReport(m.body)
  if (!read.ok) {
    yield* setAside("report", [letterOf("report", m, read.why)])
    return "set-aside"
  }
  const kept = yield* Delivery.ask({ q: "kept-report", node: read.value.node })
  if (!newerReport(kept ?? undefined, read.value)) return "older-than-kept"
  yield* Delivery.ask({ q: "write-report", report: read.value })
  return "kept"
}
