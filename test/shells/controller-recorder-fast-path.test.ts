// The controller log's common lines are read by hand (core/src/controller/log-fast.ts, issue 11):
// a line the hand reading declines still reads right, through the Schemas, but a day of them read
// that way misses issue 11's replay rate. So of every common line `serve --record` writes (a tick,
// words, a report, a statement, and the answers a tick and a statement get: the statements kept and
// written, a condition cleared, empty plans, verdicts and conditions, the clock), the hand reading
// takes it, and gives what the Schemas alone decode, key order and absent keys included.
import fc from "fast-check"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { fastControllerFact } from "@mesh-core/core/controller/log-fast"
import { readControllerLine } from "@mesh-core/core/controller/log"
import type { Question } from "@mesh-core/core/controller/catalogue"
import { type Answered, ControllerRecorder, type RecordedInput } from "../../shells/src/program/recorder.ts"

const text = fc.oneof(
  fc.constantFrom("", "a", "mesh.health.hq-4", "\u0000", "\uD83D\uDE00"),
  fc.string({ maxLength: 6 }),
)
const number = fc.oneof(
  fc.constantFrom(0, 1, -1, 1_791_197_350_000, 0.5),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
)

/** A message as the followers hear it: each of its optional fields there or not, on its own. */
const heard = fc.record(
  {
    subject: text,
    event: text,
    body: text,
    saidAt: text,
    seq: number,
    stream: text,
    receivedAt: number,
  },
  { requiredKeys: ["subject", "event", "body", "seq"] },
)

const statement = fc.record({
  machine: text,
  at: number,
  resources: fc.array(
    fc.record(
      {
        resource: text,
        module: text,
        state: fc.constantFrom("healthy" as const, "starting" as const, "unhealthy" as const),
        reason: text,
      },
      { requiredKeys: ["resource", "module", "state"] },
    ),
    { maxLength: 3 },
  ),
})
// A module named `__proto__` is the Schemas' to read (the hand reading leaves it to them by design).
const streaks = fc.dictionary(
  text.filter((k) => k !== "__proto__"),
  number,
  { maxKeys: 3 },
)
const outcome = fc.oneof(
  fc.constant({ ok: true as const }),
  text.map((why) => ({ ok: false as const, why })),
)
const emptyOr = <V>(value: V) =>
  fc.oneof(
    fc.constant({ ok: true as const, value }),
    text.map((why) => ({ ok: false as const, why })),
  )

const input: fc.Arbitrary<RecordedInput> = fc.oneof(
  fc.constant({ fact: "tick" as const }),
  heard.map((message) => ({ fact: "statement" as const, message })),
  heard.map((message) => ({ fact: "report" as const, message })),
  heard.map((message) => ({ fact: "witness" as const, message })),
  fc.array(heard, { maxLength: 3 }).map((messages) => ({ fact: "words" as const, messages })),
)

const answered: fc.Arbitrary<Answered> = fc.oneof(
  fc
    .tuple(text, fc.option(fc.record({ statement, streaks }), { nil: null }))
    .map(([machine, a]) => ({ q: { q: "kept-statement", machine } as Question, a })),
  fc
    .tuple(statement, streaks, outcome)
    .map(([s, k, a]) => ({ q: { q: "write-statement", statement: s, streaks: k } as Question, a })),
  fc.tuple(text, text, outcome).map(([key, by, a]) => ({ q: { q: "clear-condition", key, by } as Question, a })),
  fc
    .tuple(fc.constantFrom("plans-in-flight" as const, "latest-verdicts" as const), emptyOr([]))
    .map(([q, a]) => ({ q: { q } as Question, a })),
  fc.tuple(text, emptyOr([])).map(([source, a]) => ({ q: { q: "probe-conditions", source } as Question, a })),
  emptyOr({}).map((a) => ({ q: { q: "witness-verdicts" } as Question, a })),
  number.map((a) => ({ q: { q: "now" } as Question, a })),
)

/** The lines `serve --record` writes for one program: its input, then each answer it got. */
const recorded = (program: RecordedInput, answers: ReadonlyArray<Answered>): Array<string> => {
  const lines: Array<string> = []
  Effect.runSync(
    Effect.provide(
      Effect.gen(function* () {
        const recorder = yield* ControllerRecorder
        yield* recorder.record(program as Parameters<typeof recorder.record>[0], answers)
      }),
      ControllerRecorder.layerMemory(lines),
    ),
  )
  return lines
}

describe("the controller log's common lines, as serve records them", () => {
  it("are each read by hand, to what the Schemas alone decode", () => {
    fc.assert(
      fc.property(input, fc.array(answered, { maxLength: 4 }), (program, answers) => {
        const lines = recorded(program, answers)
        expect(lines).toHaveLength(1 + answers.length)
        for (const line of lines) {
          const json = JSON.parse(line) as Record<string, unknown>
          const byHand = fastControllerFact(json["fact"] as string, json)
          const bySchema = readControllerLine(2, line, false, 0, false)
          expect(bySchema.ok, line).toBe(true)
          if (!bySchema.ok || bySchema.fact === undefined) return
          const { atMs: _atMs, ...decoded } = bySchema.fact
          expect(byHand, line).toStrictEqual(decoded)
          expect(JSON.stringify(byHand)).toBe(JSON.stringify(decoded))
        }
      }),
      { numRuns: 2_000 },
    )
  })
})
