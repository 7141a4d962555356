// What a gate says: its conditions, the witnesses' verdicts as conditions, the `plans` line, and the
// `rolled-back` event (seed 003; the event body is a contract, like a condition's events).
import { rfc3339 } from "../../duration.ts"
import { gateProbe, type ObservationRecord, short, type WitnessVerdict } from "./facts.ts"
import type { Gate, GateSettings } from "./judge.ts"

/** A condition the gate raises, as the store keeps it (no `resolver` when nobody in particular resolves it). */
export type Observation = ObservationRecord

const orNone = (s: string) => (s === "" ? "(none)" : s)

/**
 * A failed gate as a condition: `core.<component>.<machine>.rolled-back` for the core (urgent),
 * `build.<module>.<machine>.rolled-back` for any other module (a warning: it runs what it ran
 * before); `rollback-failed`, urgent and for a person, when it could not be put back.
 */
export const gateObservation = (
  module: string,
  component: string,
  machines: ReadonlyArray<string>,
  rollback: string,
  why: string,
  notWhy: string,
  failed: string,
  previous: string,
): Observation => {
  const machine = machines.join(",")
  const rolledBack = rollback === "rolled-back" || rollback === "rolling-back"
  const scope = component !== "" ? "core" : "build"
  const id = component !== "" ? `${component}.${machine}` : `${module}.${machine}`
  const kind = rolledBack ? "rolled-back" : "rollback-failed"
  return {
    key: `${scope}.${id}.${kind}`,
    scope,
    id,
    kind,
    machine: machines[0] ?? "",
    also: machines.slice(1),
    severity: component !== "" || !rolledBack ? "urgent" : "warning",
    source: gateProbe,
    summary: rolledBack
      ? `${module}'s build ${short(failed)} failed its gate on ${machine} and was put back to ${short(previous)}: ${why}`
      : `${module}'s build ${short(failed)} failed its gate on ${machine} and was NOT put back: ${why} — ${orNone(notWhy)}`,
    // Who resolves it: a person, for a build left in place.
    ...(rolledBack ? {} : { resolver: "operator" as const }),
  }
}

const urgentOutcomes = new Set(["rolled-back", "not-reversible", "restore-failed", "halted"])
const outcomeWords: Readonly<Record<string, string>> = {
  "not-reversible": "and left it: it is not reversible",
  "nothing-to-restore": "and had nothing to put back",
  "restore-failed": "and could not put the previous build back",
  unwitnessed: "and could not judge it at all",
  halted: "and gave up: the build before it fails too",
}

/** A witness's verdict as a condition: `core.<component>.<node>.<outcome>`. */
export const witnessObservation = (node: string, r: WitnessVerdict): Observation => {
  const outcome = r.outcome === "" ? "rolled-back" : r.outcome
  const what =
    outcome === "rolled-back" ? `and put back ${short(orNone(r.to))}` : (outcomeWords[outcome] ?? `and ${outcome}`)
  return {
    key: `core.${r.component}.${node}.${outcome}`,
    scope: "core",
    id: `${r.component}.${node}`,
    kind: "rolled-back",
    machine: node,
    also: [],
    severity: urgentOutcomes.has(outcome) ? "urgent" : "warning",
    source: gateProbe,
    summary: `the witness on ${node} judged the ${r.component} ${short(r.from)} not healthy ${what} at ${rfc3339(r.at)}: ${r.why}`,
  }
}

/** One observation per key, the first. */
export const dedupe = (list: ReadonlyArray<Observation>): ReadonlyArray<Observation> => {
  const seen = new Set<string>()
  return list.filter((o) => (seen.has(o.key) ? false : (seen.add(o.key), true)))
}

/** A gate as `plans <id>` says it: the rollout's record. */
export const gateLine = (g: Gate, s: GateSettings): string => {
  const what = g.verdict === "passed" ? "passed" : g.verdict === "failed" ? "FAILED" : "judging"
  let line = `gate on ${g.machines.join(", ")}: ${what}`
  if (g.component !== "") line += ` (core: ${g.component})`
  if (g.from !== "" || g.to !== "") line += `, ${short(orNone(g.from))} → ${short(g.to)}`
  if (g.took !== "") line += `, after ${g.took}`
  if (g.why !== "") line += `: ${g.why}`
  else if (g.last !== "") line += ` (${g.passes} of ${s.passes} passes; wanting: ${g.last})`
  else if (g.verdict === "") line += ` (${g.passes} of ${s.passes} passes)`
  if (g.rollback !== "") line += `; ${g.rollback}`
  return line
}

/** The body of `rolled-back` (ADR 0236): `from` is the build that failed, `to` the one put back. */
export const rolledBackEvent = (
  at: number,
  module: string,
  g: Gate,
  rollback: string,
  notWhy: string,
  conditionKey: string,
): Record<string, unknown> => ({
  event: "rolled-back",
  at: new Date(at).toISOString(),
  module,
  ...(g.component !== "" ? { component: g.component } : {}),
  machines: g.machines,
  ...(g.to !== "" ? { from: g.to } : {}),
  ...(g.from !== "" ? { to: g.from } : {}),
  why: g.why,
  rollback,
  ...(notWhy !== "" ? { not_why: notWhy } : {}),
  show: `mesh-controller conditions ${conditionKey}`,
})
