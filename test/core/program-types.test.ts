// The one program type (core/src/program.ts, issue 25): `ask` hands back the question's own answer
// type with no cast, and a program cannot ask another area's question. The type-level half is held
// by `npm run typecheck` (each `@ts-expect-error` fails the type-check if the compiler accepts the
// line below it); the run-time half by vitest.
import * as Schema from "effect/Schema"
import { describe, expect, it } from "vitest"
import { entry, type Program, programsOf, runPure } from "@mesh-core/core/program"
import { type StatementQuestions, statementQuestions } from "@mesh-core/core/gate/messages/questions"
import { type ReleaseQuestions, releaseQuestions } from "@mesh-core/core/gate/operator/questions"
import type { TickQuestions } from "@mesh-core/core/gate/tick/questions"

const plans = {
  "open-plans": entry({
    question: Schema.Struct({ q: Schema.Literal("open-plans") }),
    answer: Schema.Array(Schema.String),
    act: false,
  }),
  "save-plan": entry({
    question: Schema.Struct({ q: Schema.Literal("save-plan"), id: Schema.String }),
    answer: Schema.Boolean,
    act: true,
  }),
} as const
const words = {
  "kept-words": entry({
    question: Schema.Struct({ q: Schema.Literal("kept-words"), n: Schema.Number }),
    answer: Schema.Number,
    act: false,
  }),
} as const

const Plans = programsOf(plans)
const Words = programsOf(words)

function* saveEvery(): Program<typeof plans, number> {
  const open = yield* Plans.ask({ q: "open-plans" })
  // The answer is the question's own type: a string array, so `.length` and `id: string` type-check.
  let saved = 0
  for (const id of open) if (yield* Plans.ask({ q: "save-plan", id })) saved += 1
  yield* Plans.say(`saved ${saved} of ${open.length}`)
  return saved
}

function* _asksAnotherArea(): Program<typeof plans, number> {
  // @ts-expect-error a plans program cannot ask the words area's question
  const n = yield* Words.ask({ q: "kept-words", n: 1 })
  return n
}

function* _wrongAnswerType(): Program<typeof plans, void> {
  const open = yield* Plans.ask({ q: "open-plans" })
  // @ts-expect-error open-plans answers string[], not a number
  const n: number = open
  void n
}

function* _unknownKind(): Program<typeof plans, void> {
  // @ts-expect-error no such question in the plans catalogue
  yield* Plans.ask({ q: "drop-plans" })
}

// A program joining two areas (the controller's) may ask both: its catalogue is their union.
function* _joins(): Program<typeof plans & typeof words, number> {
  const n = yield* Words.ask({ q: "kept-words", n: 2 })
  return n + (yield* saveEvery())
}

// The gate's program families each ask only their own catalogue (issue 39): the statements follower
// may not ask for a send, the release not for a judging's facts; a tick's program is no release's.
function* _statementSends(): Program<StatementQuestions, void> {
  // @ts-expect-error the health statements' catalogue has no send
  yield* programsOf(statementQuestions).ask({ q: "send-plan", plan: "p", module: "m", why: "tier", machines: [] })
}
function* _releaseJudges(): Program<ReleaseQuestions, void> {
  // @ts-expect-error the release's catalogue has no judging's facts
  yield* programsOf(releaseQuestions).ask({ q: "gate-facts" })
}
function* _tickInARelease(tick: Program<TickQuestions, void>): Program<ReleaseQuestions, void> {
  // @ts-expect-error a tick asks what a release may not (its facts, its verdicts)
  yield* tick
}

describe("one program type", () => {
  it("sends each question its answer and keeps what was said and asked, in order", () => {
    const order: Array<string> = []
    const ran = runPure(
      saveEvery(),
      (q) => (q.q === "open-plans" ? ["a", "b", "c"] : q.id !== "b"),
      (e) => order.push("said" in e ? "said" : e.exchange.question.q),
    )
    expect(ran.result).toBe(2)
    expect(ran.said).toEqual(["saved 2 of 3"])
    expect(ran.exchanges.map((e) => e.question)).toEqual([
      { q: "open-plans" },
      { q: "save-plan", id: "a" },
      { q: "save-plan", id: "b" },
      { q: "save-plan", id: "c" },
    ])
    expect(order).toEqual(["open-plans", "save-plan", "save-plan", "save-plan", "said"])
  })
})

// Named so the type-checker reads them; never run.
void [_asksAnotherArea, _wrongAnswerType, _unknownKind, _joins, _statementSends, _releaseJudges, _tickInARelease]
