// A plan as a person reads it. `mesh-controller plans`: its state, each tier and whether it was sent,
// its gate as `gateLine` writes it, and its note — the rollout's record. `plans show ID` (issue 10):
// that, then its history as a timeline, one line per judging (its verdict when it gave one) and per
// verb given, and the `--json` shape for scripts.
import { rfc3339 } from "../../duration.ts"
import type { HistoryEntry, PlanRecord } from "./records.ts"
import { emptyHistory, entriesOf, historyFirst, historyNewest } from "./history.ts"
import type { GateSettings } from "../judging/judge.ts"
import { gateLine } from "../judging/observations.ts"
import { putBackLeft, sentOf, tierOf, tiersOf } from "./plan.ts"

const reached = (machines: ReadonlyArray<string>, sent: ReadonlyArray<string>): string => {
  const have = machines.filter((m) => sent.includes(m))
  return have.length === machines.length ? "sent" : have.length === 0 ? "not sent" : `sent to ${have.join(", ")} only`
}

export const planLines = (p: PlanRecord, s: GateSettings): ReadonlyArray<string> => {
  const tiers = tiersOf(p)
  const sent = sentOf(p)
  const at = tierOf(p)
  const steps = [
    ...tiers.map(
      (t, i) =>
        `tier ${i + 1} (${t.join(", ")}) ${reached(t, sent)}${i === at && p.state === "open" ? ", judging" : ""}`,
    ),
    ...(p.rest.length > 0 ? [`the rest (${p.rest.join(", ")}) ${reached(p.rest, sent)}`] : []),
  ]
  return [
    `${p.id}: ${p.module} ${p.build}, ${p.state}${p.dryRun === true ? " (a dry run)" : ""}`,
    ...(p.paused === undefined
      ? []
      : [
          `  PAUSED by ${p.paused.by} at ${rfc3339(p.paused.at)}: ${p.paused.why || "no reason given"} — \`plans resume ${p.id}\` goes on`,
        ]),
    `  ${steps.join("; ")}`,
    `  ${p.gate === undefined ? `gate on ${tiers[at]!.join(", ")}: not judged yet` : gateLine(p.gate, s)}`,
    ...(p.state === "rolling-back" && p.putBack !== undefined
      ? [
          `  putting back ${p.putBack.build} on ${p.putBack.machines.join(", ")}: ${putBackLeft(p).join(", ") || "every one has it"}${putBackLeft(p).length > 0 ? " not sent yet" : ""}`,
        ]
      : []),
    ...(p.note === "" ? [] : [`  ${p.note}`]),
  ]
}

/** One line of the timeline: when, which tier (or who), what was found (or done), and why. */
const entryLine = (e: HistoryEntry): string => {
  if (e.kind === "verb") {
    const what = e.verb === "paused-by-errors" ? "PAUSED" : e.verb.toUpperCase()
    return `  ${rfc3339(e.at)}  ${`by ${e.by}`.padEnd(12)}  ${what.padEnd(22)}  ${e.why === "" ? "-" : e.why}`
  }
  // A judging's word as a person says it: not-yet is "not yet".
  const word = e.word.replaceAll("-", " ")
  const what = e.decided === undefined ? word : `${word} → ${e.decided === "passed" ? "PASSED" : "FAILED"}`
  const why = e.why !== "" ? e.why : e.word === "healthy" ? `pass ${e.passes}` : "-"
  return `  ${rfc3339(e.at)}  ${`tier ${e.tier + 1}`.padEnd(12)}  ${what.padEnd(22)}  ${why}`
}

const dropWords = (n: number) =>
  `  … ${n} entr${n === 1 ? "y" : "ies"} between these not kept (a plan keeps its first ${historyFirst} and its newest ${historyNewest})`

/** A plan as `plans show` says it: its lines, and the `--json` shape. */
export const planShow = (
  p: PlanRecord,
  s: GateSettings,
): { readonly lines: ReadonlyArray<string>; readonly json: Record<string, unknown> } => {
  const { first, newest, dropped } = p.history ?? emptyHistory
  const all = entriesOf(p.history)
  const judgings = all.filter((e) => e.kind === "judging")
  const errors = judgings.filter((e) => e.word === "could-not-ask").length
  const head = [
    ...planLines(p, s),
    ...(p.dryRun === true
      ? [
          "  a dry run: it judges its first tier and says what it would have decided; nothing else is registered, held, sent or put back",
        ]
      : []),
  ]
  const counted =
    `${all.length + dropped} entr${all.length + dropped === 1 ? "y" : "ies"}` +
    `${errors > 0 ? `, ${errors} judging${errors === 1 ? "" : "s"} that could not ask (measurement errors, not failures)` : ""}` +
    `${(p.errors ?? 0) > 0 ? `, ${p.errors} in a row now` : ""}`
  const timeline =
    all.length === 0
      ? ["  history: not judged yet"]
      : [
          `  history (${counted}):`,
          ...first.map(entryLine),
          ...(dropped > 0 ? [dropWords(dropped)] : []),
          ...newest.map(entryLine),
        ]
  return {
    lines: [...head, ...timeline],
    json: {
      id: p.id,
      module: p.module,
      build: p.build,
      commit: p.commit,
      previous: p.previous,
      previousBuild: p.previousBuild ?? null,
      state: p.state,
      dryRun: p.dryRun === true,
      paused: p.paused === undefined ? null : { ...p.paused, at: rfc3339(p.paused.at) },
      tiers: tiersOf(p),
      tier: tierOf(p),
      rest: p.rest,
      sent: sentOf(p),
      note: p.note,
      gate: p.gate ?? null,
      putBack: p.putBack ?? null,
      errorsInARow: p.errors ?? 0,
      history: {
        entries: all.map((e) => ({ ...e, at: rfc3339(e.at) })),
        dropped,
        droppedAfter: first.length,
        keptFirst: historyFirst,
        keptNewest: historyNewest,
      },
    },
  }
}
