// Measurement errors apart from failures (issue 10, Argo's consecutiveErrorLimit). A judging that
// could not ask — the store or the bus unreadable, so what is wrong, who serves what, who holds the
// lease, what the machines state or which build their engines run is not known — says nothing about
// the build. It is counted apart from "not healthy", kept in the history, and never what fails a
// build on its own: its gate is left as it was (no pass counted, none reset, the bound not judged).
// Only evidence read beside it (a machine that refused its send, a witness's verdict) may still fail
// it. After `errorLimit` such judgings in a row the plan is paused and said, not failed: a person
// looks, and `plans resume` goes on from where it was.
import { rfc3339 } from "../duration.ts"
import type { PlanRecord } from "./records.ts"
import {
  ComponentController,
  ComponentEngine,
  ComponentNodeTools,
  coreComponent,
  firstLine,
  type GateFacts,
  type Manifest,
  noManifest,
} from "./facts.ts"
import { withEntry } from "./history.ts"
import { defaultErrorLimit, type GateSettings } from "./judge.ts"
import { tierOf } from "./plan.ts"

/** An input a judging reads, as far as whether it could be read goes. */
export type GateInput = "reports" | "open" | "witnesses" | "served" | "holder" | "health" | "engines"

/**
 * What judging a module reads (judgeHealth's cases): every module its reports and what is wrong; a core
 * component its witnesses; the engine its reported build; the node tools, and a module serving tools,
 * the bus's discovery; the controller who holds the lease; any other module what the machines state.
 * A read that failed touches only the plans whose judging reads it.
 */
export const inputsOf = (module: string, m: Manifest): ReadonlySet<GateInput> => {
  const component = coreComponent(module)
  const inputs: Array<GateInput> = ["reports", "open"]
  if (component !== "") inputs.push("witnesses")
  if (component === ComponentEngine && m.deliveredVersions.length > 0) inputs.push("engines")
  if (component === ComponentNodeTools || (component === "" && m.tools.length > 0)) inputs.push("served")
  if (component === ComponentController) inputs.push("holder")
  if (component === "") inputs.push("health")
  return new Set(inputs)
}

/**
 * What a judging could not ask, of the inputs it reads (all of them when not given), or undefined when
 * it read everything it needs.
 */
export const couldNotAsk = (f: GateFacts, needs?: ReadonlySet<GateInput>): string | undefined => {
  const reads = (i: GateInput) => needs === undefined || needs.has(i)
  const whys = [
    ...(reads("reports") && f.reportsUnread !== undefined
      ? [`what the machines reported cannot be read: ${firstLine(f.reportsUnread)}`]
      : []),
    ...(reads("open") && f.open !== undefined && !f.open.ok
      ? [`what is wrong cannot be read: ${firstLine(f.open.why)}`]
      : []),
    ...(reads("witnesses") && f.witnessesUnread !== undefined
      ? [`what the witnesses decided cannot be read: ${firstLine(f.witnessesUnread)}`]
      : []),
    ...(reads("served") && !f.served.ok
      ? [`who serves what on the bus cannot be asked: ${firstLine(f.served.why)}`]
      : []),
    ...(reads("holder") && !f.holder.ok
      ? [`who holds the controller lease cannot be read: ${firstLine(f.holder.why)}`]
      : []),
    ...(reads("health") && !f.health.ok
      ? [`what the machines state of what they run cannot be read: ${firstLine(f.health.why)}`]
      : []),
    ...(reads("engines") && f.enginesUnread !== undefined
      ? [`the engines' builds cannot be read: ${firstLine(f.enginesUnread)}`]
      : []),
  ]
  return whys.length === 0 ? undefined : whys.join("; ")
}

/** What judging every module of a gate reads: its own and what its send carried. */
export const inputsOfAll = (
  modules: ReadonlyArray<string>,
  manifests: ReadonlyMap<string, Manifest>,
): ReadonlySet<GateInput> => new Set(modules.flatMap((mod) => [...inputsOf(mod, manifests.get(mod) ?? noManifest)]))

export const errorLimitOf = (s: GateSettings): number => s.errorLimit ?? defaultErrorLimit

/** Who pauses a plan after measurement errors in a row. */
export const controllerActor = "controller"

/**
 * A judging that could not ask: counted, kept in the history, the gate left as it was; paused once
 * `limit` are in a row. `said` is what the journal and the plan's note say.
 */
export const afterCouldNotAsk = (
  p: PlanRecord,
  why: string,
  at: number,
  limit: number,
): { readonly plan: PlanRecord; readonly paused: boolean; readonly said: string } => {
  const errors = (p.errors ?? 0) + 1
  const judged = withEntry(p, {
    kind: "judging",
    at,
    tier: tierOf(p),
    word: "could-not-ask",
    why,
    passes: p.gate?.passes ?? 0,
  })
  if (errors < limit) {
    const note = `could not ask (${errors} of ${limit} in a row before it is paused): ${why}`
    return { plan: { ...judged, errors, note }, paused: false, said: note }
  }
  const pausedWhy = `${errors} judgings in a row could not ask: ${why}`
  const note = `paused by the controller at ${rfc3339(at)}: ${pausedWhy}; not failed — \`plans resume ${p.id}\` judges it again from where it was`
  const paused = withEntry(judged, { kind: "verb", at, verb: "paused-by-errors", by: controllerActor, why: pausedWhy })
  return {
    plan: { ...paused, errors, paused: { by: controllerActor, at, why: pausedWhy }, note },
    paused: true,
    said: note,
  }
}
