// What the controller says on the bus about releases, for whoever follows (issue 10: a chat bridge,
// a pager): each verdict, each rollback and each act of an operator on a plan is an event on
// `<prefix>.mesh.event.<event>`, its body one JSON object, a contract like a condition's events
// (docs/events.md). `rolled-back` is the seed's (ADR 0236, core/src/gate/judging/observations.ts); its Schema
// is here with the others so a follower decodes every body by one catalogue.
import * as Schema from "effect/Schema"
import { Names } from "../../outcome.ts"
import { entriesOf } from "./history.ts"
import type { PlanRecord, VerbName } from "./records.ts"
import type { Gate } from "../judging/judge.ts"
import type { Decided } from "../judging/facts.ts"

/** The event of each operator verb (`plans pause ID` is `plan-paused`, …). */
export const operatorEventOf = {
  pause: "plan-paused",
  resume: "plan-resumed",
  promote: "plan-promoted",
  abort: "plan-aborted",
  retry: "plan-retried",
} as const satisfies Readonly<Record<VerbName, string>>
const operatorActs = Object.values(operatorEventOf)
export const OperatorActName = Schema.Literals(operatorActs)
export type OperatorActName = typeof OperatorActName.Type

/** Every event the controller publishes about releases. */
export const ReleaseEventName = Schema.Literals(["rolled-back", "verdict", ...operatorActs])
export type ReleaseEventName = typeof ReleaseEventName.Type

/** The body of `rolled-back`, as `rolledBackEvent` (gate/judging/observations.ts) makes it. */
export const RolledBackEventBody = Schema.Struct({
  event: Schema.Literal("rolled-back"),
  at: Schema.String,
  module: Schema.String,
  component: Schema.optionalKey(Schema.String),
  machines: Names,
  from: Schema.optionalKey(Schema.String),
  to: Schema.optionalKey(Schema.String),
  why: Schema.String,
  rollback: Schema.String,
  not_why: Schema.optionalKey(Schema.String),
  show: Schema.String,
})
export type RolledBackEventBody = typeof RolledBackEventBody.Type

/** What every event about a plan says first, after its name: when, and which plan of which build. */
const ofPlan = { at: Schema.String, plan: Schema.String, module: Schema.String, build: Schema.String }

/** The body of `verdict`: a gate passed or failed, by its judging or by a person's act. */
export const VerdictEventBody = Schema.Struct({
  event: Schema.Literal("verdict"),
  ...ofPlan,
  commit: Schema.String,
  previous: Schema.String,
  verdict: Schema.Literals(["passed", "failed"]),
  /** `gate` when the judging gave it; `operator` when a person promoted or aborted the plan. */
  decided: Schema.Literals(["gate", "operator"]),
  /** The person, when `decided` is `operator`. */
  by: Schema.optionalKey(Schema.String),
  machines: Names,
  component: Schema.optionalKey(Schema.String),
  why: Schema.String,
  /** How long the gate judged before its verdict, as the gate says it ("12s"); absent when it did not. */
  took: Schema.optionalKey(Schema.String),
  show: Schema.String,
})
export type VerdictEventBody = typeof VerdictEventBody.Type

/** The body of an operator's act on a plan, published once the act is done (a refused act is not an event). */
export const OperatorActEventBody = Schema.Struct({
  event: OperatorActName,
  ...ofPlan,
  /** Who did it, as `--by` or `$USER` said. */
  by: Schema.String,
  /** The plan's state after the act. */
  state: Schema.String,
  /** What the person gave as the reason, when they gave one. */
  reason: Schema.optionalKey(Schema.String),
  /** What the act came to, in the controller's words ("put back to a71c3d0 on hq-3"). */
  note: Schema.optionalKey(Schema.String),
  show: Schema.String,
})
export type OperatorActEventBody = typeof OperatorActEventBody.Type

export const ReleaseEventBody = Schema.Union([RolledBackEventBody, VerdictEventBody, OperatorActEventBody])
export type ReleaseEventBody = typeof ReleaseEventBody.Type

/** Where a person reads the whole story of a plan. */
const showPlan = (plan: string): string => `mesh-controller plans show ${plan}`

const present = <K extends string>(key: K, v: string | undefined): { readonly [P in K]?: string } =>
  (v === undefined || v === "" ? {} : { [key]: v }) as { readonly [P in K]?: string }

/** What a release event says of its plan, and of the gate that judged it. */
type PlanFacts = Pick<PlanRecord, "id" | "module" | "build">
type GateSaid = Pick<Gate, "machines" | "component" | "why" | "took">

/** What every event about a plan says first (`ofPlan`), after its name. */
const aboutPlan = <E extends string>(event: E, at: number, p: PlanFacts) => ({
  event,
  at: new Date(at).toISOString(),
  plan: p.id,
  module: p.module,
  build: p.build,
})

/**
 * A verdict's event. `operator` names the person when the verdict is theirs (a promote passes, an
 * abort fails), so a follower tells a judging's verdict from a person's.
 */
export const verdictEvent = (
  at: number,
  plan: PlanFacts & Pick<PlanRecord, "commit" | "previous">,
  gate: GateSaid,
  verdict: Decided,
  operator?: string,
): VerdictEventBody => ({
  ...aboutPlan("verdict", at, plan),
  commit: plan.commit,
  previous: plan.previous,
  verdict,
  decided: operator === undefined ? "gate" : "operator",
  ...present("by", operator),
  machines: gate.machines,
  ...present("component", gate.component),
  why: gate.why,
  ...present("took", gate.took),
  show: showPlan(plan.id),
})

/**
 * The `verdict` event of a verdict the store kept as this controller's (docs/events.md: once per
 * build, by the controller whose verdict the store kept). A person's when the plan's newest entry is
 * their promote or abort (decideVerb enters the verb before the program carries it out), the gate's
 * otherwise; a person's verdict was not judged, so it says no `took`.
 */
export const keptVerdictEvent = (at: number, plan: PlanRecord, gate: GateSaid, verdict: Decided): VerdictEventBody => {
  const last = entriesOf(plan.history).at(-1)
  const by = last?.kind === "verb" && (last.verb === "promote" || last.verb === "abort") ? last.by : undefined
  return verdictEvent(at, plan, by === undefined ? gate : { ...gate, took: "" }, verdict, by)
}

/**
 * An operator's act (or the controller's pause after errors in a row) as an event body, once done, in
 * the shape docs/events.md gives and `OperatorActEventBody` decodes: `why` is its `reason` (absent
 * when none was given), the sentence said its `note`, `state` the plan's after it.
 */
export const verbEvent = (
  event: OperatorActName,
  at: number,
  p: PlanFacts & { readonly state: string },
  by: string,
  why: string,
  said: string,
): OperatorActEventBody => ({
  ...aboutPlan(event, at, p),
  by,
  state: p.state,
  ...present("reason", why),
  ...present("note", said),
  show: showPlan(p.id),
})
