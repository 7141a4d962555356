// What each exchange of the controller's programs moves in the metrics (issues 10, 25): a table per
// area, a row for every kind of its catalogue, so a question added to a catalogue is a type error here
// until it says what it counts (or that it counts nothing). A question the store answers counts an
// answer `{ ok: false }` as a store error; controller/metrics.ts maps what is observed to updates.
import type { DeliveryQuestions } from "../delivery/questions.ts"
import { sentEvery } from "../gate/tick/questions.ts"
import { type GateQuestions, mine } from "../gate/world.ts"
import type { Observed } from "../observed.ts"
import type { AnswerOf, Asked, Catalogue, KindOf, QuestionOf } from "../program.ts"
import type { StandingsQuestions } from "../standings/questions.ts"

/** What one kind of exchange moves. */
interface Metered<Q, A> {
  observe(question: Q, answer: A): ReadonlyArray<Observed>
}
type MeteringOf<C extends Catalogue> = { readonly [K in KindOf<C>]: Metered<QuestionOf<C, K>, AnswerOf<C, K>> }

const failed = (answer: unknown): boolean =>
  typeof answer === "object" && answer !== null && "ok" in answer && answer.ok === false
const readFailed = (part: unknown): boolean => part !== undefined && failed(part)

/** An exchange that moves no metric. */
const nothing: Metered<unknown, unknown> = { observe: () => [] }

/** A question the store answers: `{ ok: false }` is a store error, counted before what else it moves. */
const store = <Q extends Asked, A>(also: (question: Q, answer: A) => ReadonlyArray<Observed> = () => []) => ({
  observe: (q: Q, a: A): ReadonlyArray<Observed> =>
    failed(a) ? [{ kind: "store-error", operation: q.q }, ...also(q, a)] : also(q, a),
})

const gateMetering: MeteringOf<GateQuestions> = {
  "plans-in-flight": store(),
  "gate-facts": {
    observe: (_q, a: unknown) => {
      const out: Array<Observed> = []
      if (typeof a !== "object" || a === null) return out
      const parts: Record<string, unknown> = { ...a }
      // The machines' services are discovered on the bus; the rest of a judging's facts are the store's.
      if (readFailed(parts["served"])) out.push({ kind: "bus-error", operation: "discovery" })
      if (["open", "holder", "health"].some((k) => readFailed(parts[k])) || typeof parts["reportsUnread"] === "string")
        out.push({ kind: "store-error", operation: "gate-facts" })
      return out
    },
  },
  now: nothing,
  manifests: store(),
  "engine-builds": store(),
  "witness-verdicts": store(),
  builds: store(),
  "among-kept": store(),
  "store-reach": store(),
  // Counted once, by the controller whose verdict the store kept: the one that acts on it.
  "record-verdict": store((q, a: unknown) =>
    typeof a === "object" && a !== null && "ok" in a && a.ok === true && mine(a) === true
      ? [{ kind: "verdict", verdict: q.verdict.verdict }]
      : [],
  ),
  "verdict-of": store(),
  "set-build": store(),
  "set-rollback": store((q) => [{ kind: "rollback", outcome: q.rollback }]),
  "send-plan": { observe: (q, a) => [{ kind: "send", why: q.why, ok: sentEvery(q.machines, a) }] },
  "holder-list": nothing,
  publish: {
    observe: (q, a) => [
      { kind: "published", event: q.event, ok: !failed(a) },
      ...(failed(a) ? [{ kind: "bus-error", operation: "publish" } as const] : []),
    ],
  },
  "save-plan": store(),
  "latest-verdicts": store(),
  "probe-conditions": store(),
  "raise-condition": store((q, a) =>
    failed(a) ? [] : [{ kind: "condition-raised", severity: q.observation.severity }],
  ),
  "clear-condition": store((q, a) => (failed(a) ? [] : [{ kind: "condition-cleared", by: q.by }])),
  "lease-holder": nothing,
  "plan-of": store(),
  "reopen-plan": store(),
  "mesh-records-read": store(),
  "record-build": store(),
  "kept-statement": nothing,
  "write-statement": store(),
  "kept-witness": nothing,
  "write-witness": store(),
}

const standingsMetering: MeteringOf<StandingsQuestions> = { "set-aside": nothing, "write-standings": store() }
const deliveryMetering: MeteringOf<DeliveryQuestions> = { "kept-report": nothing, "write-report": store() }
const metering: Readonly<Record<string, Metered<Asked, unknown>>> = {
  ...gateMetering,
  ...standingsMetering,
  ...deliveryMetering,
}

/** A question and the answer it got, of any area. */
export interface Exchanged<Q extends Asked = Asked> {
  readonly question: Q
  readonly answer: unknown
}

/**
 * What one exchange of a program tells the metrics, as its kind's row says (nothing for a kind the
 * controller does not know). The answer is what the driver handed back (live) or the recorded one
 * (replayed), so both move the same metrics.
 */
export const observedOfExchange = <Q extends Asked>({ question, answer }: Exchanged<Q>): ReadonlyArray<Observed> =>
  Object.hasOwn(metering, question.q) ? metering[question.q]!.observe(question, answer) : []
