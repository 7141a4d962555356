// Measurement errors apart from failures (issue 10, Argo's consecutiveErrorLimit; seed 003 rule
// 003-3: what could not be read is never judged). A judging that could not ask — the store or the bus
// unreadable, so what the machines reported, what is wrong, who serves what, who holds the lease,
// what the machines state, which build their engines run, what the witnesses said or the modules'
// manifests are not known, of what that plan's judging reads (inputs.ts) — says nothing about the
// build. It is counted apart from "not healthy", kept in the history, and never what fails a build on
// its own: its gate is left as it was (no pass counted, none reset, the bound not judged). Only
// evidence read beside it (a machine that refused its send, a witness's verdict) may still fail it.
// It is said once, and again only when what could not be read changes: not a line per judging. After
// `errorLimit` such judgings in a row the plan is paused and said, not failed: a person looks, and
// `plans resume` goes on from where it was.
import { rfc3339 } from "../../duration.ts"
import type { PlanRecord } from "./records.ts"
import type { GateFacts } from "../judging/facts.ts"
import { everyInput, type GateInput, unreadOf } from "../judging/inputs.ts"
import { entriesOf, withEntry } from "./history.ts"
import { defaultErrorLimit, type GateSettings } from "../judging/judge.ts"
import { tierOf } from "./plan.ts"

/**
 * What a judging could not ask of what it `needs` (inputs.ts: a plan's own inputs; every input when
 * not said), or undefined when it read all of that.
 */
export const couldNotAsk = (f: GateFacts, needs: ReadonlySet<GateInput> = everyInput): string | undefined => {
  const whys = unreadOf(f).flatMap(([input, said]) => (needs.has(input) ? [said] : []))
  return whys.length === 0 ? undefined : whys.join("; ")
}

export const errorLimitOf = (s: GateSettings): number => s.errorLimit ?? defaultErrorLimit

/** Who pauses a plan after measurement errors in a row. */
export const controllerActor = "controller"

/**
 * A judging that could not ask: counted, kept in the history, the gate left as it was; paused once
 * `limit` are in a row. `said` is what the plan's note says, and the journal when `changed`: the
 * judging before did not end on this same read (a judging that could, another that could not ask
 * something else, or a verb between).
 */
export const afterCouldNotAsk = (
  p: PlanRecord,
  why: string,
  at: number,
  limit: number,
): { readonly plan: PlanRecord; readonly paused: boolean; readonly said: string; readonly changed: boolean } => {
  const before = entriesOf(p.history).at(-1)
  const changed = before?.kind !== "judging" || before.word !== "could-not-ask" || before.why !== why
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
    return { plan: { ...judged, errors, note }, paused: false, said: note, changed }
  }
  const pausedWhy = `${errors} judgings in a row could not ask: ${why}`
  const note = `paused by the controller at ${rfc3339(at)}: ${pausedWhy}; not failed — \`plans resume ${p.id}\` judges it again from where it was`
  const paused = withEntry(judged, { kind: "verb", at, verb: "paused-by-errors", by: controllerActor, why: pausedWhy })
  return {
    plan: { ...paused, errors, paused: { by: controllerActor, at, why: pausedWhy }, note },
    paused: true,
    said: note,
    changed,
  }
}
