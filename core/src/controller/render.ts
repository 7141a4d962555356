// How a replayed controller's day reads to a person: a timeline of what it decided, one line each,
// then what the day comes to. The words the programs said are printed as they were said (the live
// journal's `[gate] …` and `[controller] …` lines), so a live run and its replay can be set side by
// side; each act is printed beside them unless a said line already names it. `--json` prints the
// decisions themselves.
import { formatDuration, rfc3339, roundToSecond } from "../duration.ts"
import { gateProbe, short } from "../gate/facts.ts"
import type { GateSettings } from "../gate/judge.ts"
import { gateLine } from "../gate/observations.ts"
import type { Question } from "./questions.ts"
import { gateOf, type PlanRecord } from "../gate/records.ts"
import type { ControllerDecision, ControllerReplay } from "./replay.ts"

/** A plan's send as the timeline says it. */
const sendWords = { tier: "a tier", rest: "the rest", rollback: "the rollback", "user-list": "the user list" } as const

type Act = Extract<ControllerDecision, { kind: "act" }>
type ActOf<K extends Question["q"]> = Act & { readonly act: Extract<Question, { q: K }> }
const isAct = <K extends Question["q"]>(d: ControllerDecision, k: K): d is ActOf<K> => d.kind === "act" && d.act.q === k

const line = (at: number, label: string, text: string): string => `${rfc3339(at)}  ${label.padEnd(10)} ${text}`

/** Why an act's answer says it was not done, if it does. */
const failure = (answer: unknown): string | undefined => {
  if (typeof answer !== "object" || answer === null) return undefined
  if ("ok" in answer && answer.ok === false && "why" in answer) return String(answer.why)
  if ("error" in answer && typeof answer.error === "string") return answer.error
  return undefined
}

/** What a said line is, from the acts of the program that said it, never from its wording alone. */
export type SaidKind = "judging" | "verdict" | "rollback" | "raised" | "cleared" | "said"

/** The plans a tick judged, with the verdict each came to: from the plans it saved and the verdicts it kept. */
const judgedPlans = (program: ReadonlyArray<ControllerDecision>): ReadonlyMap<string, { module: string; verdict: string }> => {
  const out = new Map<string, { module: string; verdict: string }>()
  for (const d of program) {
    if (isAct(d, "record-verdict") && !out.has(d.act.verdict.plan)) out.set(d.act.verdict.plan, { module: d.act.verdict.module, verdict: d.act.verdict.verdict })
    if (isAct(d, "save-plan")) out.set(d.act.plan.id, { module: d.act.plan.module, verdict: d.act.plan.gate?.verdict ?? "" })
  }
  return out
}

/** Each said line of one program, and what it is. */
export const saidKinds = (program: ReadonlyArray<ControllerDecision>): ReadonlyArray<SaidKind> => {
  const plans = judgedPlans(program)
  const gateSummaries = new Set<string>()
  const raised: Array<string> = []
  const cleared: Array<string> = []
  for (const d of program) {
    if (isAct(d, "raise-condition")) {
      if (d.act.observation.source === gateProbe) gateSummaries.add(d.act.observation.summary)
      else raised.push(d.act.observation.key)
    }
    if (isAct(d, "clear-condition")) cleared.push(d.act.key)
  }
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

const saidLabel: Readonly<Record<SaidKind, string>> = {
  judging: "judging", verdict: "VERDICT", rollback: "ROLLBACK", raised: "CONDITION", cleared: "condition", said: "said",
}

/** An act as the timeline says it; none when it is not worth a line of its own (an open plan saved, a healthy statement). */
const actLines = (d: Act, saidText: string): ReadonlyArray<readonly [string, string]> => {
  const q = d.act
  const failed = failure(d.answer)
  const tail = `${failed === undefined ? "" : ` — not done: ${failed}`}${d.recorded ? "" : " (inferred)"}`
  const one = (label: string, text: string): ReadonlyArray<readonly [string, string]> => [[label, `${text}${tail}`]]
  switch (q.q) {
    case "write-standings":
      return q.writes.map((w) => [
        "standings",
        `${w.provider} on ${w.providerNode}: ${w.consumer}${w.consumerNode === undefined ? "" : ` on ${w.consumerNode}`} ${w.state}` +
        `${w.class === undefined ? "" : ` (${w.class}${w.since === undefined ? "" : ` since ${w.since}`})`}${w.why === undefined ? "" : ` (${w.why})`}${tail}`,
      ] as const)
    case "write-report":
      return one("report", `${q.report.node} ${q.report.outcome} declaration ${q.report.digest.slice(0, 12)} (sequence ${q.report.sequence})`)
    case "write-statement": {
      const wanting = q.statement.resources.filter((r) => r.state !== "healthy")
      return wanting.map((r) => ["statement", `${q.statement.machine}: ${r.resource} of ${r.module} ${r.state}${r.reason === undefined ? "" : `: ${r.reason}`}${tail}`] as const)
    }
    case "raise-condition": {
      const o = q.observation
      return one("CONDITION", `raised ${o.key} (${o.severity})${saidText.includes(o.summary) ? "" : `: ${o.summary}`}`)
    }
    case "clear-condition":
      return one("condition", `cleared ${q.key}`)
    case "record-verdict": {
      const mine = typeof d.answer === "object" && d.answer !== null && "mine" in d.answer ? d.answer.mine : undefined
      return one("verdict", `${q.verdict.build} ${q.verdict.verdict} kept${mine === false ? " already, by another controller: it acts on it" : ""}`)
    }
    case "set-build":
      return one("build", `${q.module}'s registered build set to ${q.build} (${short(q.commit)})`)
    case "send":
      return one("SEND", `${q.why === "rest" ? "the rest" : "the rollback"} of ${q.module} to ${q.machines.join(", ")}`)
    case "send-plan":
      return one("SEND", `${sendWords[q.why]} of ${q.module} to ${q.machines.join(", ")}${q.build === undefined ? "" : ` (a dry run's ${q.build})`}`)
    case "set-rollback":
      return one("rollback", `${q.build} marked ${q.rollback}`)
    case "publish":
      return one("event", `${q.event} ${JSON.stringify(q.body)}`)
    case "save-plan":
      return q.plan.state === "open" && failed === undefined ? [] : one("plan", `${q.plan.id} kept ${q.plan.state}`)
    default:
      return []
  }
}

/**
 * One program's decisions as timeline lines: each said line as it was said, labelled by what it is,
 * and each act a said line does not already name.
 */
export const timelineLines = (program: ReadonlyArray<ControllerDecision>): ReadonlyArray<string> => {
  const kinds = saidKinds(program)
  const saidText = program.flatMap((d) => (d.kind === "said" ? [d.line] : [])).join("\n")
  const out: Array<string> = []
  let n = 0
  for (const d of program) {
    if (d.kind === "said") {
      out.push(line(d.at, saidLabel[kinds[n++]!], d.line))
      continue
    }
    if (d.kind === "started") {
      out.push(line(d.at, "started", `serve started again on this recording, its memory empty; ${settingsText(d.settings)}`))
      continue
    }
    // A condition a follower raised or cleared is named by the line it says.
    if ((isAct(d, "raise-condition") && d.act.observation.source !== gateProbe && saidText.includes(d.act.observation.key)) ||
      (isAct(d, "clear-condition") && d.input !== "tick" && saidText.includes(d.act.key))) continue
    for (const [label, text] of actLines(d, saidText)) out.push(line(d.at, label, text))
  }
  return out
}

/** A decision as a JSON line: times in RFC 3339, every act with its question and its answer. */
export const decisionJson = (d: ControllerDecision): string => JSON.stringify({ ...d, at: new Date(d.at).toISOString() })

/** What a replayed day comes to, gathered decision by decision (memory: one entry per plan). */
export interface ControllerTally {
  said: number
  judgings: number
  passed: number
  failed: number
  rollbacks: Map<string, number>
  sends: { tier: number; rest: number; rollback: number; "user-list": number }
  events: number
  raised: number
  cleared: number
  standings: number
  reports: number
  statements: number
  inferredActs: number
  plans: Map<string, PlanRecord>
}

export const freshTally = (): ControllerTally => ({
  said: 0, judgings: 0, passed: 0, failed: 0, rollbacks: new Map(), sends: { tier: 0, rest: 0, rollback: 0, "user-list": 0 },
  events: 0, raised: 0, cleared: 0, standings: 0, reports: 0, statements: 0, inferredActs: 0, plans: new Map(),
})

/** Adds one program's decisions to the tally. */
export const tallyProgram = (t: ControllerTally, program: ReadonlyArray<ControllerDecision>): void => {
  const kinds = saidKinds(program)
  for (const k of kinds) {
    t.said += 1
    if (k === "judging" || k === "verdict") t.judgings += 1
  }
  for (const d of program) {
    if (d.kind !== "act") continue
    if (!d.recorded) t.inferredActs += 1
    const q = d.act
    switch (q.q) {
      case "record-verdict":
        if (q.verdict.verdict === "passed") t.passed += 1
        else t.failed += 1
        break
      case "set-rollback":
        t.rollbacks.set(q.rollback, (t.rollbacks.get(q.rollback) ?? 0) + 1)
        break
      case "send":
      case "send-plan":
        t.sends[q.why] += 1
        break
      case "publish":
        t.events += 1
        break
      case "raise-condition":
        t.raised += 1
        break
      case "clear-condition":
        t.cleared += 1
        break
      case "write-standings":
        t.standings += q.writes.length
        break
      case "write-report":
        t.reports += 1
        break
      case "write-statement":
        t.statements += 1
        break
      case "save-plan":
        t.plans.set(q.plan.id, q.plan)
        break
    }
  }
}

const settingsText = (s: GateSettings): string =>
  `the gate: settle ${formatDuration(s.settle)}, bound ${formatDuration(s.bound)}, ${s.passes} passes ${formatDuration(s.every)} apart`

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`

const planLine = (p: PlanRecord, settings: GateSettings): string =>
  `${p.id} (${p.module} ${p.build}): ${p.state}${p.gate === undefined ? "" : `; ${gateLine(gateOf(p.gate), settings)}`}`

export const summaryLines = (t: ControllerTally, r: ControllerReplay): ReadonlyArray<string> => {
  const { counts, settings } = r
  const { first, last } = r.span
  const span = first === undefined || last === undefined
    ? "no facts"
    : `${rfc3339(first)} to ${rfc3339(last)} (${formatDuration(roundToSecond(last - first))})`
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
  if (counts.inferred === 0 && counts.differed === 0 && counts.unasked === 0) {
    out.push(`  replay: every question found its recorded answer and every act is the one recorded (0 inferred, 0 differed, 0 unasked)`)
  } else {
    out.push(
      `  what-if: ${counts.inferred} answers were not in the recording and were inferred (${t.inferredActs} of them to acts); ` +
      `${counts.differed === 1 ? "1 act differs" : `${counts.differed} acts differ`} from the one recorded; ` +
      `${counts.unasked} recorded answers were to questions not asked this time`,
    )
  }
  return out
}

export const summaryJson = (t: ControllerTally, r: ControllerReplay): string => {
  const { settings } = r
  return JSON.stringify({
    summary: {
      ...r.counts,
      from: r.span.first === undefined ? null : new Date(r.span.first).toISOString(),
      to: r.span.last === undefined ? null : new Date(r.span.last).toISOString(),
      said: t.said, judgings: t.judgings, verdicts: { passed: t.passed, failed: t.failed }, rollbacks: Object.fromEntries(t.rollbacks),
      sends: t.sends, events: t.events, conditions: { raised: t.raised, cleared: t.cleared }, standings: t.standings, reports: t.reports,
      statements: t.statements, settings,
      plans: Object.fromEntries([...t.plans].map(([id, p]) => [id, { state: p.state, line: planLine(p, settings), note: p.note }])),
    },
  })
}
