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
import { firstLine, type GateFacts } from "./facts.ts"
import { withEntry } from "./history.ts"
import { defaultErrorLimit, type GateSettings } from "./judge.ts"
import { tierOf } from "./plan.ts"

/** What a judging could not ask, or undefined when it read everything. */
export const couldNotAsk = (f: GateFacts): string | undefined => {
  const whys = [
    ...(f.open !== undefined && !f.open.ok ? [`what is wrong cannot be read: ${firstLine(f.open.why)}`] : []),
    ...(f.served.ok ? [] : [`who serves what on the bus cannot be asked: ${firstLine(f.served.why)}`]),
    ...(f.holder.ok ? [] : [`who holds the controller lease cannot be read: ${firstLine(f.holder.why)}`]),
    ...(f.health.ok ? [] : [`what the machines state of what they run cannot be read: ${firstLine(f.health.why)}`]),
    ...(f.enginesUnread === undefined ? [] : [`the engines' builds cannot be read: ${firstLine(f.enginesUnread)}`]),
  ]
  return whys.length === 0 ? undefined : whys.join("; ")
}

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
