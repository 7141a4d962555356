// How the controller's timeline shows each area's acts and what its summary counts of them (issue
// 25): a table per area, a row for every act of its catalogue, so an act added to a catalogue is a
// type error here until it says how it reads (controller/render.ts reads these, and has no rule of
// its own per act).
import { gateProbe, short } from "../gate/judging/facts.ts"
import { type GateQuestions, type GateTally, mine } from "../gate/world.ts"
import type { DeliveryQuestions, ReportsTally } from "../delivery/questions.ts"
import type { StandingsQuestions, StandingsTally } from "../standings/questions.ts"
import { counted, type ShownAct, type TimelineLine, type TimelineOf, unshown } from "../timeline.ts"
import type { Asked } from "../program.ts"
import type { AreasTally } from "./catalogue.ts"

/** An act shown as one line. */
const one = (label: string, text: string): ReadonlyArray<TimelineLine> => [[label, text]]

/** A plan's send as the timeline says it. */
const sendWords = { tier: "a tier", rest: "the rest", rollback: "the rollback", "user-list": "the user list" } as const

const gateTimeline: TimelineOf<GateQuestions, GateTally> = {
  "record-verdict": {
    show: (q, a, { tail }) =>
      one(
        "verdict",
        `${q.verdict.build} ${q.verdict.verdict} kept${mine(a) === false ? " already, by another controller: it acts on it" : ""}${tail}`,
      ),
    marks: (q) => [
      { judged: { plan: q.verdict.plan, module: q.verdict.module, verdict: q.verdict.verdict, first: true } },
    ],
    tally: (q, a, t) => counted(q.verdict.verdict === "passed" ? "passed" : "failed")(q, a, t),
  },
  "set-build": {
    show: (q, _a, { tail }) =>
      one("build", `${q.module}'s registered build set to ${q.build} (${short(q.commit)})${tail}`),
  },
  "set-rollback": {
    show: (q, _a, { tail }) => one("rollback", `${q.build} marked ${q.rollback}${tail}`),
    tally: (q, _a, t) => {
      t.rollbacks.set(q.rollback, (t.rollbacks.get(q.rollback) ?? 0) + 1)
    },
  },
  "send-plan": {
    show: (q, _a, { tail }) =>
      one(
        "SEND",
        `${sendWords[q.why]} of ${q.module} to ${q.machines.join(", ")}${q.build === undefined ? "" : ` (a dry run's ${q.build})`}${tail}`,
      ),
    tally: (q, _a, t) => {
      t.sends[q.why] += 1
    },
  },
  publish: {
    show: (q, _a, { tail }) => one("event", `${q.event} ${JSON.stringify(q.body)}${tail}`),
    tally: counted("events"),
  },
  "save-plan": {
    // An open plan saved is not worth a line of its own.
    show: (q, _a, { tail, failed }) =>
      q.plan.state === "open" && failed === undefined ? [] : one("plan", `${q.plan.id} kept ${q.plan.state}${tail}`),
    marks: (q) => [
      { judged: { plan: q.plan.id, module: q.plan.module, verdict: q.plan.gate?.verdict ?? "", first: false } },
    ],
    tally: (q, _a, t) => {
      t.plans.set(q.plan.id, q.plan)
    },
  },
  "raise-condition": {
    show: (q, _a, { tail, said }) => {
      const o = q.observation
      // A condition a follower raised is named by the line it says.
      if (o.source !== gateProbe && said.includes(o.key)) return []
      return one(
        "CONDITION",
        `raised ${o.key} (${o.severity})${said.includes(o.summary) ? "" : `: ${o.summary}`}${tail}`,
      )
    },
    marks: (q) => [
      q.observation.source === gateProbe ? { rollback: q.observation.summary } : { raised: q.observation.key },
    ],
    tally: counted("raised"),
  },
  "clear-condition": {
    // A condition a follower cleared is named by the line it says.
    show: (q, _a, { tail, said, input }) =>
      input !== "tick" && said.includes(q.key) ? [] : one("condition", `cleared ${q.key}${tail}`),
    marks: (q) => [{ cleared: q.key }],
    tally: counted("cleared"),
  },
  "reopen-plan": { show: unshown },
  "record-build": { show: unshown },
  "write-statement": {
    // A healthy statement is not worth a line.
    show: (q, _a, { tail }) =>
      q.statement.resources
        .filter((r) => r.state !== "healthy")
        .map(
          (r) =>
            [
              "statement",
              `${q.statement.machine}: ${r.resource} of ${r.module} ${r.state}${r.reason === undefined ? "" : `: ${r.reason}`}${tail}`,
            ] as const,
        ),
    tally: counted("statements"),
  },
  "write-witness": {
    show: (q, _a, { tail }) =>
      one("witness", `${q.machine}: the ${q.verdict.component} ${short(q.verdict.from)} ${q.verdict.outcome}${tail}`),
  },
}

const standingsTimeline: TimelineOf<StandingsQuestions, StandingsTally> = {
  "set-aside": { show: unshown },
  "write-standings": {
    show: (q, _a, { tail }) =>
      q.writes.map(
        (w) =>
          [
            "standings",
            `${w.provider} on ${w.providerNode}: ${w.consumer}${w.consumerNode === undefined ? "" : ` on ${w.consumerNode}`} ${w.state}` +
              `${w.class === undefined ? "" : ` (${w.class}${w.since === undefined ? "" : ` since ${w.since}`})`}${w.why === undefined ? "" : ` (${w.why})`}${tail}`,
          ] as const,
      ),
    tally: (q, _a, t) => {
      t.standings += q.writes.length
    },
  },
}

const deliveryTimeline: TimelineOf<DeliveryQuestions, ReportsTally> = {
  "write-report": {
    show: (q, _a, { tail }) =>
      one(
        "report",
        `${q.report.node} ${q.report.outcome} declaration ${q.report.digest.slice(0, 12)} (sequence ${q.report.sequence})${tail}`,
      ),
    tally: counted("reports"),
  },
}

const timeline: Readonly<Record<string, ShownAct<Asked, unknown, AreasTally>>> = {
  ...gateTimeline,
  ...standingsTimeline,
  ...deliveryTimeline,
}

/** How the timeline shows an act of the controller's, by its kind (none for a kind it does not know). */
export const shownOf = (kind: string): ShownAct<Asked, unknown, AreasTally> | undefined =>
  Object.hasOwn(timeline, kind) ? timeline[kind] : undefined
