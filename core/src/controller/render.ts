// How a replayed controller's day reads to a person: a timeline of what it decided, one line each,
// then what the day comes to. The words the programs said are printed as they were said (the live
// journal's `[gate] …` and `[controller] …` lines), so a live run and its replay can be set side by
// side; each act is printed beside them unless a said line already names it. `--json` prints the
// decisions themselves.
import { formatDuration, rfc3339, spanText } from "../duration.ts"
import type { GateSettings } from "../gate/judging/judge.ts"
import { gateLine } from "../gate/judging/observations.ts"
import type { PlanRecord } from "../gate/plan/records.ts"
import { freshGateTally } from "../gate/world.ts"
import { failure, type TimelineLine } from "../timeline.ts"
import { shownOf } from "./shown.ts"
import { plural } from "../standings/render.ts"
import type { ControllerDecision, ControllerReplay } from "./replay.ts"

type Act = Extract<ControllerDecision, { kind: "act" }>

const line = (at: number, label: string, text: string): string => `${rfc3339(at)}  ${label.padEnd(10)} ${text}`

// biome-ignore format: a table, read as one
/** Each kind of said line, as the timeline labels it. */
const saidLabel = { judging: "judging", verdict: "VERDICT", rollback: "ROLLBACK", raised: "CONDITION", cleared: "condition", said: "said" } as const

/** What a said line is, from the acts of the program that said it, never from its wording alone. */
export type SaidKind = keyof typeof saidLabel

/**
 * What the acts of one program tell of the lines it said (each act's timeline row says it): the plans a tick
 * judged with the verdict each came to, the gate's own conditions, and what a follower raised or cleared.
 */
const marksOf = (program: ReadonlyArray<ControllerDecision>) => {
  const plans = new Map<string, { module: string; verdict: string }>()
  const gateSummaries = new Set<string>()
  const raised: Array<string> = []
  const cleared: Array<string> = []
  for (const d of program) {
    if (d.kind !== "act") continue
    for (const m of shownOf(d.act.q)?.marks?.(d.act) ?? []) {
      if ("judged" in m) {
        if (!m.judged.first || !plans.has(m.judged.plan))
          plans.set(m.judged.plan, { module: m.judged.module, verdict: m.judged.verdict })
      } else if ("rollback" in m) gateSummaries.add(m.rollback)
      else if ("raised" in m) raised.push(m.raised)
      else cleared.push(m.cleared)
    }
  }
  return { plans, gateSummaries, raised, cleared }
}

/** Each said line of one program, and what it is. */
export const saidKinds = (program: ReadonlyArray<ControllerDecision>): ReadonlyArray<SaidKind> => {
  // Most programs say nothing (a statement kept): their acts' marks are not read (issue 45).
  if (!program.some((d) => d.kind === "said")) return []
  const { plans, gateSummaries, raised, cleared } = marksOf(program)
  return program.flatMap((d): Array<SaidKind> => {
    if (d.kind !== "said") return []
    for (const [id, p] of plans) {
      if (d.line.startsWith(`[gate] ${id}: ${p.module}: `)) return [p.verdict === "" ? "judging" : "verdict"]
    }
    if (d.line.startsWith("[gate] ") && gateSummaries.has(d.line.slice("[gate] ".length))) return ["rollback"]
    if (raised.some((k) => d.line.includes(k))) return ["raised"]
    if (cleared.some((k) => d.line.includes(k))) return ["cleared"]
    return ["said"]
  })
}

/** An act as the timeline says it, as its timeline row shows it; none when it is not worth a line of its own. */
const actLines = (d: Act, said: string): ReadonlyArray<TimelineLine> => {
  const failed = failure(d.answer)
  const tail = `${failed === undefined ? "" : ` — not done: ${failed}`}${d.recorded ? "" : " (inferred)"}`
  return shownOf(d.act.q)?.show(d.act, d.answer, { tail, failed, said, input: d.input }) ?? []
}

/**
 * One program's decisions as timeline lines: each said line as it was said, labelled by what it is,
 * and each act a said line does not already name.
 */
export const timelineLines = (program: ReadonlyArray<ControllerDecision>): ReadonlyArray<string> => {
  const kinds = saidKinds(program)
  const saidText = kinds.length === 0 ? "" : program.flatMap((d) => (d.kind === "said" ? [d.line] : [])).join("\n")
  const out: Array<string> = []
  let n = 0
  for (const d of program) {
    if (d.kind === "said") out.push(line(d.at, saidLabel[kinds[n++]!], d.line))
    else if (d.kind === "started")
      out.push(
        line(d.at, "started", `serve started again on this recording, its memory empty; ${settingsText(d.settings)}`),
      )
    else for (const [label, text] of actLines(d, saidText)) out.push(line(d.at, label, text))
  }
  return out
}

/** A decision as a JSON line: times in RFC 3339, every act with its question and its answer. */
export const decisionJson = (d: ControllerDecision): string =>
  JSON.stringify({ ...d, at: new Date(d.at).toISOString() })

/** What a replayed day comes to, gathered decision by decision (memory: one entry per plan): each area's counts, and the timeline's own. */
export const freshTally = () => ({
  said: 0,
  judgings: 0,
  inferredActs: 0,
  ...freshGateTally(),
  standings: 0,
  reports: 0,
})
export type ControllerTally = ReturnType<typeof freshTally>

/** Adds one program's decisions to the tally: each act as its timeline row counts it. */
export const tallyProgram = (t: ControllerTally, program: ReadonlyArray<ControllerDecision>): void => {
  const kinds = saidKinds(program)
  t.said += kinds.length
  t.judgings += kinds.filter((k) => k === "judging" || k === "verdict").length
  for (const d of program) {
    if (d.kind !== "act") continue
    if (!d.recorded) t.inferredActs += 1
    shownOf(d.act.q)?.tally?.(d.act, d.answer, t)
  }
}

const settingsText = (s: GateSettings): string =>
  `the gate: settle ${formatDuration(s.settle)}, bound ${formatDuration(s.bound)}, ${s.passes} passes ${formatDuration(s.every)} apart`

const planLine = (p: PlanRecord, settings: GateSettings): string =>
  `${p.id} (${p.module} ${p.build}): ${p.state}${p.gate === undefined ? "" : `; ${gateLine(p.gate, settings)}`}`

export const summaryLines = (t: ControllerTally, r: ControllerReplay): ReadonlyArray<string> => {
  const { counts, settings } = r
  const span = spanText(r.span.first, r.span.last)
  const rollbacks = [...t.rollbacks].map(([r, n]) => `${n} ${r}`).join(", ") || "none"
  const out = [
    "",
    `summary: ${plural(counts.facts, "fact")}, ${plural(counts.programs, "program")} run, ${span}` +
      `${counts.starts > 0 ? `; ${plural(counts.starts, "restart")} (started lines)` : ""}`,
    `  gate: ${plural(t.judgings, "judging")}; verdicts: ${t.passed} passed, ${t.failed} failed; rollbacks: ${rollbacks}; ` +
      `sends: ${t.sends.tier > 0 ? `${t.sends.tier} tier, ` : ""}${t.sends.rest} rest, ${t.sends.rollback} rollback; ${plural(t.events, "event")} said`,
    `  conditions: ${t.raised} raised, ${t.cleared} cleared; standings: ${t.standings} written; reports: ${t.reports} kept; ` +
      `statements: ${t.statements} kept; ${plural(t.said, "line")} said`,
  ]
  const plans = [...t.plans.values()]
  if (plans.length > 0) out.push(`  plans:`, ...plans.map((p) => `    ${planLine(p, settings)}`))
  out.push(`  settings at the end: ${settingsText(settings)}`)
  out.push(
    counts.inferred === 0 && counts.differed === 0 && counts.unasked === 0
      ? `  replay: every question found its recorded answer and every act is the one recorded (0 inferred, 0 differed, 0 unasked)`
      : `  what-if: ${counts.inferred} answers were not in the recording and were inferred (${t.inferredActs} of them to acts); ` +
          `${counts.differed === 1 ? "1 act differs" : `${counts.differed} acts differ`} from the one recorded; ` +
          `${counts.unasked} recorded answers were to questions not asked this time`,
  )
  return out
}

export const summaryJson = (t: ControllerTally, r: ControllerReplay): string => {
  const { settings } = r
  return JSON.stringify({
    summary: {
      ...r.counts,
      from: r.span.first === undefined ? null : new Date(r.span.first).toISOString(),
      to: r.span.last === undefined ? null : new Date(r.span.last).toISOString(),
      said: t.said,
      judgings: t.judgings,
      verdicts: { passed: t.passed, failed: t.failed },
      rollbacks: Object.fromEntries(t.rollbacks),
      sends: t.sends,
      events: t.events,
      conditions: { raised: t.raised, cleared: t.cleared },
      standings: t.standings,
      reports: t.reports,
      statements: t.statements,
      settings,
      plans: Object.fromEntries(
        [...t.plans].map(([id, p]) => [id, { state: p.state, line: planLine(p, settings), note: p.note }]),
      ),
    },
  })
}
