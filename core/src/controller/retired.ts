// Questions no program asks any more, kept for reading the logs that recorded them (issue 25: any log
// recorded before replays to the same lines). A log of an earlier controller may hold answers to
// them; the reader decodes each with the Schemas it was recorded with, and a replay meets it as a
// recorded answer no program asks (counted `unasked`). The timeline, the summary and the metrics read
// a recorded `send` as they always did. No area's `programsOf` names this catalogue, so no program can
// ask one of them again.
import * as Schema from "effect/Schema"
import { entry } from "../program.ts"
import { no, readableEmpty } from "../by-hand.ts"
import { Names, question, readable, value } from "../outcome.ts"
import { gateEntry, Sent, sentEvery } from "../gate/questions.ts"
import { PlanRecord } from "../gate/plan/records.ts"
import { ownPlans } from "../gate/world.ts"
import { KeptRecord } from "../standings/questions.ts"

const KeyRecord = Schema.Struct({ provider: Schema.String, providerNode: Schema.String, consumer: Schema.String })

export const retiredQuestions = {
  /** The open plans, read before plans in flight were (now `plans-in-flight`). */
  "open-plans": gateEntry({
    question: question("open-plans", {}),
    answer: readable(Schema.Array(PlanRecord)),
    act: false,
    store: true,
    whatIf: (_q, w) => value(ownPlans([], w.plans)),
    byHand: (_q, a) => {
      const r = readableEmpty(a, "list")
      return r === undefined ? no : { q: { q: "open-plans" as const }, a: r }
    },
  }),
  /** The gate's own send of the rest or the rollback, before a plan sent its own (now `send-plan`). */
  send: gateEntry({
    question: question("send", { machines: Names, why: Schema.Literals(["rest", "rollback"]), module: Schema.String }),
    answer: Sent,
    act: true,
    whatIf: (q) => ({ told: q.machines }),
    show: (q, _a, { tail }) => [
      ["SEND", `${q.why === "rest" ? "the rest" : "the rollback"} of ${q.module} to ${q.machines.join(", ")}${tail}`],
    ],
    tally: (q, _a, t) => {
      t.sends[q.why] += 1
    },
    observe: (q, a) => [{ kind: "send", why: q.why, ok: sentEvery(q.machines, a) }],
  }),
  /** The standings kept for these keys, read apart before a word's keeping read them itself. */
  "kept-standings": entry({
    question: question("kept-standings", { keys: Schema.Array(KeyRecord) }),
    answer: Schema.Array(KeptRecord),
    act: false,
  }),
} as const
