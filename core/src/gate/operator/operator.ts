// An operator's verb on a plan, as a program (issue 10): `plans pause|resume|promote|abort|retry ID`.
// The command is a fact (who, when, why) recorded as the controller's input `verb`, so a replayed day
// runs it again. Only the controller holding the lease carries a verb out; any other refuses it,
// naming the holder. The plan is read as it is now and the verb decided over it
// (core/src/gate/operator/verbs.ts): promote passes the gate now, said and kept as a person's act, and the
// rest are sent as after a pass; abort fails it now and puts back what was sent as after a failure;
// retry opens again a plan left unchanged or failed to send, judged from its first tier.
import { decide, type GateSettings, openGate } from "../judging/judge.ts"
import { decideVerb, retryBlocked } from "./verbs.ts"
import { operatorEventOf, verbEvent } from "../plan/events.ts"
import { tierMachines, unsentOf } from "../plan/plan.ts"
import { failed, gateOfPlan, passed, savePlan as save, type When } from "../tick/moves.ts"
import { publish } from "../tick/carried.ts"
import { type Program, programsOf } from "../../program.ts"
import { type VerbQuestions, verbQuestions } from "./questions.ts"
import type { OperatorCommand, PlanRecord, VerbReply } from "../plan/records.ts"

const { ask, say } = programsOf(verbQuestions)

/**
 * What a verb came to, as the controller replies to the CLI (`VerbReply`): carried out (`ok`) or
 * refused with why; the sentence the person reads; the CLI's exit (0 done, 2 refused, 3 something it
 * needed could not be read or kept); and the plan as it was left, when carried out.
 */
export type VerbOutcome = Omit<VerbReply, "plan"> & { readonly plan?: PlanRecord }

const refused = (said: string): VerbOutcome => ({ ok: false, code: 2, said })
const unread = (said: string): VerbOutcome => ({ ok: false, code: 3, said })

/**
 * A verb given while this controller stops its acts (its lease lost, or a signal) and before the lease
 * is given back (seed 004, novox/hq issue 289): refused as a handover, so its caller asks the controller
 * after this one rather than have a command started and ended with this term. The next holder is named
 * when the lease record already names another.
 */
export const handingOverWords = (holder: string | null, self: string | undefined): string =>
  holder !== null && holder !== self
    ? `this controller is handing over the controller lease, so it starts nothing now; ${holder} holds it: give the verb to ${holder}`
    : "this controller is handing over the controller lease, so it starts nothing now; give the verb again once the next controller holds it (`mesh-controller status` names it)"

/** Carries out one operator's command, or refuses it with the sentence said. */
export function* operatorVerb(c: OperatorCommand, settings: GateSettings): Program<VerbQuestions, VerbOutcome> {
  const out = yield* carryOut(c, settings)
  yield* say(`[plans] ${c.verb} ${c.plan} by ${c.by}: ${out.ok ? "" : "refused: "}${out.said}`)
  return out
}

function* carryOut(c: OperatorCommand, settings: GateSettings): Program<VerbQuestions, VerbOutcome> {
  const lease = yield* ask({ q: "lease-holder" })
  if (!lease.ok) return unread(`who holds the controller lease cannot be read, so nothing is done: ${lease.why}`)
  if (lease.value.handingOver === true) return refused(handingOverWords(lease.value.holder, lease.value.self))
  const holder = lease.value.holder
  if (!lease.value.mine && holder === null)
    return refused("no controller holds the lease now, so nothing is done; give the verb again once one does")
  if (!lease.value.mine)
    return refused(`this controller does not hold the lease; ${holder} does: give the verb to ${holder}`)
  const read = yield* ask({ q: "plan-of", id: c.plan })
  if (!read.ok) return unread(`plan ${c.plan} cannot be read, so nothing is done: ${read.why}`)
  const d = decideVerb(read.value, c)
  if (d.kind === "refused") return refused(d.said)
  const t: When = { now: c.at, every: settings.every }
  switch (d.kind) {
    case "pause":
    case "resume": {
      const saved = yield* ask({ q: "save-plan", plan: d.plan })
      if (!saved.ok) return unread(`plan ${c.plan} could not be kept, so it is not ${d.kind}d: ${saved.why}`)
      return yield* told(c, d.plan, d.said)
    }
    case "promote": {
      // Its gate passes now, by a person's word: the verdict kept for the build says so.
      const open =
        read.value?.gate === undefined
          ? openGate(d.plan.module, tierMachines(read.value!), d.plan.previous, d.plan.commit, c.at)
          : gateOfPlan(read.value)
      const g = decide(open, "passed", `${d.said}, not judged healthy`, c.at)
      const note = `${d.plan.module} ${d.plan.build} ${d.said}: its gate passed by a person's word, not judged healthy; the rest are sent (${unsentOf(d.plan).join(", ") || "none left"})`
      const next = yield* passed({ ...d.plan, gate: g }, g, t, note)
      if (next === undefined) return refused(`plan ${c.plan}'s build has a verdict kept already: it is not promoted`)
      yield* save(d.plan, next)
      return yield* told(c, next, `plan ${c.plan}: ${next.note}`)
    }
    case "abort": {
      const g = decide(gateOfPlan(d.plan), "failed", d.said, c.at)
      if (d.plan.dryRun === true) {
        // A dry run sent its first machines a build nothing registered: there is nothing to put back.
        const ended: PlanRecord = {
          ...d.plan,
          state: "failed",
          gate: g,
          note: `dry run ${d.said}; nothing was registered, so nothing is put back`,
        }
        yield* save(d.plan, ended)
        return yield* told(c, ended, `plan ${c.plan}: ${ended.note}`)
      }
      const next = yield* failed({ ...d.plan, gate: g }, g, t)
      if (next === undefined) return refused(`plan ${c.plan}'s build has a verdict kept already: it is not aborted`)
      yield* save(d.plan, next)
      return yield* told(c, next, `plan ${c.plan}: ${next.note}`)
    }
    case "retry": {
      const inFlight = yield* ask({ q: "plans-in-flight" })
      if (!inFlight.ok)
        return unread(`the plans in flight cannot be read, so plan ${c.plan} is not judged again: ${inFlight.why}`)
      const kept = yield* ask({ q: "verdict-of", build: d.plan.build })
      if (!kept.ok)
        return unread(`whether ${d.plan.build} was judged cannot be read, so it is not judged again: ${kept.why}`)
      const blocked = retryBlocked(d.plan, inFlight.value, kept.value === null ? null : kept.value.verdict)
      if (blocked !== undefined) return refused(blocked)
      // Registered again before the plan opens (a dry run registers nothing): until it does, the
      // failed plan still holds its unreached machines.
      if (d.plan.dryRun !== true) {
        const registered = yield* ask({
          q: "set-build",
          module: d.plan.module,
          build: d.plan.build,
          commit: d.plan.commit,
        })
        if (!registered.ok)
          return unread(
            `${d.plan.build} could not be registered again, so plan ${c.plan} is not judged again: ${registered.why}`,
          )
      }
      const reopened = yield* ask({ q: "reopen-plan", plan: d.plan })
      if (!reopened.ok) return unread(`plan ${c.plan} could not be opened again: ${reopened.why}`)
      return yield* told(c, d.plan, d.said)
    }
  }
}

/** The act said on the bus as an event; a bus that cannot be told is said, and the act stands. */
function* told(c: OperatorCommand, plan: PlanRecord, said: string): Program<VerbQuestions, VerbOutcome> {
  const event = operatorEventOf[c.verb]
  yield* publish(event, verbEvent(event, c.at, plan, c.by, c.why, said), `[plans] ${plan.id}: ${event}`)
  return { ok: true, code: 0, said, plan }
}
