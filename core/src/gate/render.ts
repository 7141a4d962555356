// How a replayed gate reads: each send, condition and judging on a line, the verdict and the
// rollback decided, then the gate as `plans` would say it.
import { rfc3339 } from "../duration.ts"
import type { GateDecision, GateReplay } from "./replay.ts"
import { gateLine } from "./observations.ts"

export const gateTimelineLines = (d: GateDecision): ReadonlyArray<string> => {
  const when = rfc3339(d.at)
  switch (d.kind) {
    case "sent":
      return [`${when}  sent       ${d.module} ${d.commit.slice(0, 7)} to ${d.machines.join(", ")}; the gate judges from here`]
    case "condition":
      return [d.action === "raised" ? `${when}  CONDITION  raised ${d.key} — ${d.summary}` : `${when}  condition  cleared ${d.key}`]
    case "judging":
      if (d.verdict !== "") return [`${when}  VERDICT    ${d.verdict} after ${d.took}: ${d.why}`]
      return [d.wanting === ""
        ? `${when}  judging    healthy: pass ${d.passes} of ${d.of}`
        : `${when}  judging    not yet (0 of ${d.of} passes): ${d.wanting}`]
    case "rollback": {
      const sends = d.sends.map((s) => `${s.machine} (${s.modules.map((m) => `${m.module} ${m.build}`).join(", ")})`)
      return [
        `${when}  ROLLBACK   ${d.rollback}: ${d.said}`,
        ...(sends.length > 0 ? [`                      ${sends.length} send${sends.length === 1 ? "" : "s"}, one per machine: ${sends.join("; ")}`] : []),
        `                      condition ${d.observation.key} (${d.observation.severity}): ${d.observation.summary}`,
        `                      event ${JSON.stringify(d.event)}`,
      ]
    }
  }
}

export const gateSummaryLines = (s: GateReplay, facts: number): ReadonlyArray<string> => [
  "",
  `summary: ${facts} facts, ${s.judgings} judgings of ${s.header.gate.module} (plan ${s.header.gate.plan})`,
  `  ${s.gate === undefined ? "no send was recorded, so nothing was judged" : gateLine(s.gate, s.settings)}`,
]
