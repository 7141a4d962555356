// What a person may do to a plan (issue 10; Nomad's `deployment pause/resume/fail/promote`, Argo's
// `abort/promote/retry`; the seed's one verb is `plans retry`: "unchanged" is never marked, and
// `plans retry` asks again). Each verb is decided here over the plan as read: refused with the
// sentence a person reads where it makes no sense, or the plan it leaves. Promote and abort go on in
// the controller's program (core/src/gate/operator/operator.ts) as after a pass and after a failure.
import { rfc3339 } from "../../duration.ts"
import type { OperatorCommand, PlanRecord, VerbName } from "../plan/records.ts"
import { withEntry } from "../plan/history.ts"
import { tiersOf, unsentOf } from "../plan/plan.ts"

export type VerbDecision =
  | { readonly kind: "refused"; readonly said: string }
  /** Saved as it is (pause, resume), or carried on by the program (promote, abort, retry). */
  | { readonly kind: VerbName; readonly plan: PlanRecord; readonly said: string }

const refused = (said: string): VerbDecision => ({ kind: "refused", said })

/** A verb that leaves the plan with its note, said as the plan's. */
const noted = (kind: VerbName, plan: PlanRecord): VerbDecision => ({
  kind,
  plan,
  said: `plan ${plan.id}: ${plan.note}`,
})

/** " (by alice: looking at the logs)" */
const becauseOf = (c: OperatorCommand): string => (c.why.trim() === "" ? "" : `: ${c.why.trim()}`)

/** How a person's act is said in the plan's note and its gate's why. */
const actedBy = (c: OperatorCommand, done: string): string => `${done} by ${c.by} at ${rfc3339(c.at)}${becauseOf(c)}`

const ended = (p: PlanRecord) => p.state === "passed" || p.state === "failed"

/** A failed plan that may be judged again: left unchanged (never marked), or failed to send or register (nothing judged). */
const retryable = (p: PlanRecord): boolean =>
  p.state === "failed" && (p.gate === undefined || p.gate.rollback === "unchanged")

const pausedWords = (p: PlanRecord) =>
  p.paused === undefined ? "" : `paused by ${p.paused.by} at ${rfc3339(p.paused.at)}: ${p.paused.why}`

/** Why a verb makes no sense for a plan in its state, or undefined when it does. */
export const verbRefusal = (p: PlanRecord, c: OperatorCommand): string | undefined => {
  const id = `plan ${p.id}`
  const where = `${id} is ${p.state}`
  switch (c.verb) {
    case "pause":
      if (p.paused !== undefined) return `${id} is ${pausedWords(p)} already`
      if (p.state === "sending")
        return `${id} passed its gate and is sending the rest (${unsentOf(p).join(", ")}): there is no gate left to pause`
      if (p.state === "rolling-back")
        return `${id} failed its gate and ${p.putBack?.build ?? "its previous build"} is being put back: a rollback is not paused; it is sent until it lands`
      if (ended(p)) return `${where}: it has ended, and there is nothing to pause`
      return undefined
    case "resume":
      if (p.paused === undefined) return `${where} and not paused: there is nothing to resume`
      return undefined
    case "promote":
      if (p.state === "sending" || p.state === "passed")
        return `${where}: its gate passed already, and there is nothing to promote`
      if (p.state === "rolling-back" || p.state === "failed")
        return `${where}: a plan whose gate failed is not promoted${retryable(p) ? `; \`plans retry ${p.id}\` judges it again` : "; release a newer build"}`
      if (p.dryRun === true)
        return `${id} is a dry run: it decides nothing and sends nothing further, so it is not promoted; release the build without --dry-run`
      return undefined
    case "abort":
      if (p.state === "sending" || p.state === "passed")
        return `${where}: its gate passed, and a passed plan is not aborted; to put ${p.module} back, release its previous build`
      if (p.state === "rolling-back") return `${where}: its build is being put back already`
      if (p.state === "failed") return `${where}: it has ended already`
      return undefined
    case "retry":
      if (!ended(p)) return `${where}: it is judged or sent on every tick already, and there is nothing to retry`
      if (p.state === "passed") return `${where}: every machine has its build, and there is nothing to judge again`
      if (!retryable(p))
        return `${where}: its gate failed and the verdict is kept (${p.gate?.rollback ?? ""}); a build that failed its gate is not judged again; release a newer one`
      return undefined
  }
}

/**
 * A verb decided over the plan as read: refused, or the plan it leaves with the sentence said.
 * Pause and resume end here; promote, abort and retry are carried on by the controller's program
 * from the plan given (the verb in its history, no longer paused).
 */
export const decideVerb = (read: PlanRecord | null, c: OperatorCommand): VerbDecision => {
  if (read === null) return refused(`no plan ${c.plan}: \`plans\` lists them`)
  const no = verbRefusal(read, c)
  if (no !== undefined) return refused(no)
  const p = withEntry(read, { kind: "verb", at: c.at, verb: c.verb, by: c.by, why: c.why })
  const { paused: _paused, ...unpaused } = p
  switch (c.verb) {
    case "pause": {
      const note = `${actedBy(c, "paused")}; not judged until \`plans resume ${p.id}\`, and it still holds its machines`
      return noted("pause", { ...p, paused: { by: c.by, at: c.at, why: c.why }, note })
    }
    case "resume": {
      const pausedAt = read.paused!.at
      // The time paused is not counted against the gate's bound: it goes on from where it was.
      const pausedFor = (read.pausedFor ?? 0) + Math.max(0, c.at - pausedAt)
      const passes = read.gate?.passes ?? 0
      const note = `${actedBy(c, "resumed")}; judged again from where it was (${passes} pass${passes === 1 ? "" : "es"} kept)`
      return noted("resume", { ...unpaused, pausedFor, errors: 0, note })
    }
    case "promote":
      // Every tier's gate passes at once (Argo's promote --full): the rest are every machine unsent.
      return {
        kind: "promote",
        plan: { ...unpaused, tier: tiersOf(p).length - 1, errors: 0 },
        said: actedBy(c, "promoted"),
      }
    case "abort":
      return { kind: "abort", plan: unpaused, said: actedBy(c, "aborted") }
    case "retry": {
      const { gate: _gate, triedAt: _tried, putBack: _back, pausedFor: _for, ...fresh } = unpaused
      const note = `${actedBy(c, "retried")}; judged again from tier 1`
      return noted("retry", { ...fresh, state: "open", tier: 0, sent: [], tries: 0, errors: 0, note })
    }
  }
}

/** Why a retry waits for something else: another plan of the module in flight, or a verdict kept for the build. */
export const retryBlocked = (
  p: PlanRecord,
  inFlight: ReadonlyArray<PlanRecord>,
  kept: { readonly verdict: string; readonly plan: string } | null,
): string | undefined => {
  const other = inFlight.find((o) => o.module === p.module && o.id !== p.id)
  if (other !== undefined)
    return `plan ${other.id} of ${p.module} is ${other.state}: plan ${p.id} is judged again only once that plan ends`
  if (kept !== null)
    return `a verdict is kept for ${p.build} (${kept.verdict}, plan ${kept.plan}): a build is judged once`
  return undefined
}
