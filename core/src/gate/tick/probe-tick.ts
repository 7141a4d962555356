// The gate's probe as the tick runs it (seed 003's probeGates): each failed build's condition kept,
// each one no verdict or witness holds any more cleared, nothing cleared on what could not be read.
import { type AnswerOf, type Program, programsOf } from "../../program.ts"
import { gateProbe } from "../judging/facts.ts"
import { keepProbe, probeGates } from "../judging/probe.ts"
import { type TickQuestions, tickQuestions } from "./questions.ts"

const { ask, say } = programsOf(tickQuestions)

/** The gate's probe (seed 003's probeGates), on every tick: each failed build's condition kept. */
export type Witnesses = AnswerOf<TickQuestions, "witness-verdicts">

export function* probe(known: number | undefined, read: Witnesses | undefined): Program<TickQuestions, void> {
  const latest = yield* ask({ q: "latest-verdicts" })
  const witnesses = read ?? (yield* ask({ q: "witness-verdicts" }))
  const open = yield* ask({ q: "probe-conditions", source: gateProbe })
  const unread = [latest, witnesses, open].flatMap((r) => (r.ok ? [] : [r.why]))
  if (unread.length > 0)
    yield* say(
      `[gate] the gate's probe could not read everything, so it clears nothing this time: ${unread.join("; ")}`,
    )
  const found = probeGates(
    latest.ok ? latest.value : [],
    new Map(witnesses.ok ? Object.entries(witnesses.value).map(([m, list]) => [m, list.map((w) => ({ ...w }))]) : []),
  )
  const keep = keepProbe(found, open.ok ? open.value : [], unread.length === 0)
  if (keep.raise.length === 0 && keep.clear.length === 0) return
  const now = known ?? (yield* ask({ q: "now" }))
  for (const o of keep.raise) yield* ask({ q: "raise-condition", observation: o, at: now })
  for (const key of keep.clear) yield* ask({ q: "clear-condition", key, by: gateProbe })
}
