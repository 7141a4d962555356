// A small world for the gate program and the operators' verbs: one store of plans and verdicts,
// sends that reach some machines, machines that apply or refuse, facts that can or cannot be read.
// What a program saves is what the next one reads.
import { gateTick, type TickResult } from "@mesh-core/core/gate/tick/tick"
import { runPure } from "@mesh-core/core/program"
import type { Question } from "@mesh-core/core/controller/catalogue"
import type { OperatorCommand, PlanRecord, VerbName, VerdictRecord } from "@mesh-core/core/gate/plan/records"
import type { GateFactsRecord } from "@mesh-core/core/gate/judging/facts"
import { operatorVerb, type VerbOutcome } from "@mesh-core/core/gate/operator/operator"
import type { GateSettings } from "@mesh-core/core/gate/judging/judge"
import { gateFacts } from "../support/gate-facts.ts"

export const settings: GateSettings = { settle: 2_000, bound: 10_000, passes: 2, every: 1_000, errorLimit: 3 }
export const machines = ["hq-1", "hq-2", "hq-3", "hq-4", "hq-5"]
const tiers = [["hq-1"], ["hq-2", "hq-3"], ["hq-4"]]
export const basePlan: PlanRecord = {
  id: "letta-205",
  module: "letta",
  build: "letta-205",
  commit: "5e1f0c2a9b",
  previous: "a71c3d09e4",
  previousBuild: "letta-204",
  machines: ["hq-1"],
  rest: ["hq-5"],
  sentAt: 0,
  state: "open",
  note: "",
  tiers,
  tier: 0,
  sent: [],
}

/**
 * What every drive of the gate answers alike: nothing gathered beyond the facts, the two builds
 * kept, and a verdict kept once per build (the first to ask keeps it).
 */
export const keptAnswer = (q: Question, verdicts: Array<VerdictRecord>): unknown => {
  switch (q.q) {
    case "engine-builds":
    case "manifests":
    case "witness-verdicts":
      return { ok: true, value: {} }
    case "latest-verdicts":
      return { ok: true, value: verdicts.slice(-1) }
    case "probe-conditions":
      return { ok: true, value: [] }
    case "builds":
      return {
        ok: true,
        value: [
          { build: "letta-204", module: "letta", commit: "a71c3d09e4" },
          { build: "letta-205", module: "letta", commit: "5e1f0c2a9b" },
        ],
      }
    case "among-kept":
      return { ok: true, value: true }
    case "record-verdict": {
      const mine = !verdicts.some((v) => v.build === q.verdict.build)
      if (mine) verdicts.push(q.verdict)
      return { ok: true, mine }
    }
    default:
      return undefined
  }
}

/** What the gate reads at `now`: every machine reported on what it was sent, `refuse` refusing it. */
export const worldFacts = (now: number, refuse: ReadonlyArray<string> = [], unreadable = false): GateFactsRecord =>
  gateFacts(
    now,
    Object.fromEntries(
      machines.map((m) => [m, { at: now - 10, current: true, outcome: refuse.includes(m) ? "refused" : "applied" }]),
    ),
    unreadable ? { open: { ok: false, why: "connect ECONNREFUSED 127.0.0.1:5432" } } : {},
  )

export type Step =
  | {
      readonly kind: "tick"
      /** Machines a send reaches, of those it asks. */
      readonly reaches: ReadonlyArray<string>
      /** Machines that refuse what they were sent, this tick. */
      readonly refuse: ReadonlyArray<string>
      /** The store is away: what is wrong cannot be read. */
      readonly unreadable?: boolean
    }
  | { readonly kind: "verb"; readonly verb: VerbName; readonly by: string; readonly why: string }

export const ok: Step = { kind: "tick", reaches: machines, refuse: [] }
export const verb = (v: VerbName, by = "alice", why = ""): Step => ({ kind: "verb", verb: v, by, why })

export interface Ran {
  readonly plan: PlanRecord
  readonly saves: ReadonlyArray<{ readonly step: number; readonly plan: PlanRecord }>
  readonly acts: ReadonlyArray<{ readonly step: number; readonly q: Question }>
  readonly asked: ReadonlyArray<{ readonly step: number; readonly q: Question }>
  readonly verdicts: ReadonlyArray<VerdictRecord>
  readonly outcomes: ReadonlyArray<{ readonly step: number; readonly outcome: VerbOutcome }>
  readonly said: ReadonlyArray<string>
  /** The clock at each step. */
  readonly at: ReadonlyArray<number>
  /** What each tick returned, by step. */
  readonly ticks: ReadonlyArray<{ readonly step: number; readonly result: TickResult }>
}

const actKinds = new Set([
  "record-verdict",
  "set-build",
  "send-plan",
  "set-rollback",
  "publish",
  "save-plan",
  "reopen-plan",
  "raise-condition",
  "clear-condition",
])

export const run = (
  steps: ReadonlyArray<Step>,
  start: PlanRecord = basePlan,
  options: {
    readonly lease?: { readonly mine: boolean; readonly holder: string | null }
    readonly settings?: GateSettings
    /** An answer of the world's own for this step, over the one above (undefined: the usual). */
    readonly answer?: (q: Question, step: number, now: number) => unknown
  } = {},
): Ran => {
  const s = options.settings ?? settings
  let plan = start
  const saves: Array<Ran["saves"][number]> = []
  const acts: Array<Ran["acts"][number]> = []
  const asked: Array<Ran["asked"][number]> = []
  const verdicts: Array<VerdictRecord> = []
  const outcomes: Array<Ran["outcomes"][number]> = []
  const said: Array<string> = []
  const at: Array<number> = []
  const ticks: Array<Ran["ticks"][number]> = []
  let now = 0
  steps.forEach((step, i) => {
    now += 1_100
    at.push(now)
    const t = step.kind === "tick" ? step : (ok as Extract<Step, { kind: "tick" }>)
    const facts = worldFacts(now, t.refuse, t.unreadable === true)
    const answer = (q: Question): unknown => {
      asked.push({ step: i, q })
      if (actKinds.has(q.q)) acts.push({ step: i, q })
      const own = options.answer?.(q, i, now)
      if (own !== undefined) {
        if (q.q === "save-plan" || q.q === "reopen-plan") saves.push({ step: i, plan: q.plan })
        return own
      }
      switch (q.q) {
        case "plans-in-flight":
          return { ok: true, value: ["open", "sending", "rolling-back"].includes(plan.state) ? [plan] : [] }
        case "plan-of":
          return { ok: true, value: q.id === plan.id ? plan : null }
        case "lease-holder":
          return { ok: true, value: options.lease ?? { mine: true, holder: "ctl-a" } }
        case "gate-facts":
          return facts
        case "now":
          return now
        case "verdict-of": {
          const v = verdicts.find((x) => x.build === q.build)
          return { ok: true, value: v === undefined ? null : { verdict: v, keptAt: 0 } }
        }
        case "send-plan": {
          const told = q.machines.filter((m) => t.reaches.includes(m))
          return told.length === q.machines.length ? { told } : { told, error: "the memberships could not be issued" }
        }
        case "save-plan":
        case "reopen-plan":
          plan = q.plan
          saves.push({ step: i, plan: q.plan })
          return { ok: true }
        default:
          return keptAnswer(q, verdicts) ?? { ok: true }
      }
    }
    if (step.kind === "tick") {
      const r = runPure(gateTick(s), answer)
      said.push(...r.said)
      ticks.push({ step: i, result: r.result })
    } else {
      const c: OperatorCommand = { verb: step.verb, plan: plan.id, by: step.by, at: now, why: step.why }
      const r = runPure(operatorVerb(c, s), answer)
      said.push(...r.said)
      outcomes.push({ step: i, outcome: r.result })
    }
  })
  return { plan, saves, acts, asked, verdicts, outcomes, said, at, ticks }
}

/** Every machine the plan decides for. */
export const everyOf = (p: PlanRecord) => [...new Set([...(p.tiers ?? [p.machines]).flat(), ...p.rest])]
