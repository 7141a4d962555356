// A plan as `mesh-controller plans` says it: its state, each tier and whether it was sent, its gate as
// `gateLine` writes it, and its note. The rollout's record, read by a person.
import { rfc3339 } from "../../duration.ts"
import type { PlanRecord } from "./records.ts"
import { gateOf } from "./records.ts"
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
    `  ${p.gate === undefined ? `gate on ${tiers[at]!.join(", ")}: not judged yet` : gateLine(gateOf(p.gate), s)}`,
    ...(p.state === "rolling-back" && p.putBack !== undefined
      ? [
          `  putting back ${p.putBack.build} on ${p.putBack.machines.join(", ")}: ${putBackLeft(p).join(", ") || "every one has it"}${putBackLeft(p).length > 0 ? " not sent yet" : ""}`,
        ]
      : []),
    ...(p.note === "" ? [] : [`  ${p.note}`]),
  ]
}
