// Plans move on events, not on a timer (seed 004: "Open plans move on events (novox/hq ADR 0406 §5,
// issue 974) … No timer looks every so often"). What wakes the gate is a fact the controller records
// with the tick it woke: a machine said something (a report, a health statement), the conditions
// changed, a plan was acted on (a verb), this controller took the lease (every plan, as the seed's
// "first look"), or a wake-up it scheduled fell due. Which plans a wake moves, whether what was heard
// is worth a pass at all (issue 41: a pass on every message ran an idle gate 70-283 times a minute on
// five machines stating their health every second), and when the next wake-up falls due: decided here.
//
// Departure, said in docs/gate.md: a core component, judged on what no event announces (who serves
// the node tools, who holds the lease, the engine's manifest), is judged again `every` while it is not
// yet healthy, since nothing would wake it when those change.
import * as Schema from "effect/Schema"
import { entriesOf } from "./history.ts"
import type { GateSettings } from "../judging/judge.ts"
import { coreComponent } from "../judging/facts.ts"
import { beingSentByItsCommand, everyMachine, inFlight, judging, sendDueAt, sending, tierMachines } from "./plan.ts"
import type { PlanRecord } from "./records.ts"

/** What woke the gate. */
export const GateWake = Schema.Union([
  /** A machine reported, or stated its health: the judging plans it is a machine of. */
  Schema.Struct({ kind: Schema.Literal("machine"), machine: Schema.String }),
  /** A condition raised or cleared: every judging plan (conditions are evidence on any machine). */
  Schema.Struct({ kind: Schema.Literal("conditions") }),
  /** A verb acted on a plan: that plan. */
  Schema.Struct({ kind: Schema.Literal("plan"), plan: Schema.String }),
  /** This controller took the lease: every plan, as it finds them. */
  Schema.Struct({ kind: Schema.Literal("lease") }),
  /** A wake-up this controller scheduled fell due: the plans due by now. */
  Schema.Struct({ kind: Schema.Literal("due") }),
])
export type GateWake = typeof GateWake.Type

/**
 * A wake as heard, before the gate decides whether it is worth a pass (never recorded): a machine's
 * health statement says so, and `same` is when the statement before it was stated, when it said the
 * same (a judging reads only the newest, and whether it was stated since the send).
 */
export type Heard = GateWake | { kind: "machine"; machine: string; by: "statement"; same?: number }

/** One key per distinct wake: a wake heard twice before the gate moves wakes it once, the first heard kept. */
export const wakeKey = (w: Heard): string =>
  w.kind === "plan"
    ? `plan ${w.plan}`
    : w.kind !== "machine"
      ? w.kind
      : "by" in w
        ? `statement ${w.machine}${w.same === undefined ? "" : " same"}`
        : `machine ${w.machine}`

/** When a plan next has something to do with nothing new heard, or undefined when only an event moves it. */
export const nextDue = (p: PlanRecord, s: GateSettings): number | undefined => {
  if (p.paused !== undefined) return undefined
  if (sending(p)) return Math.max(0, sendDueAt(p, s.every))
  if (p.state !== "open") return undefined
  const g = p.gate
  // Sent and never judged, or a verdict kept and the plan left open: at once.
  if (g === undefined || g.verdict !== "") return 0
  const last = entriesOf(p.history)
    .flatMap((e) => (e.kind === "judging" && e.tier === (p.tier ?? 0) ? [e] : []))
    .at(-1)
  if (last === undefined || last.at < g.since) return 0
  // A judging that could not ask: read again after `every` (no event says the store or bus is back).
  if (last.word === "could-not-ask") return last.at + s.every
  // Healthy so far: the next pass is counted `every` after the last, and the verdict at `settle`.
  if (g.passes > 0)
    return Math.max((g.lastPass ?? last.at) + s.every, g.passes + 1 >= s.passes ? g.since + s.settle : 0)
  // Not healthy yet: its bound (the time paused not counted), sooner for a core component, judged on
  // what no event announces (who serves the node tools, who holds the lease, the engine's manifest).
  // The bound fails a build only once passed (judge.ts: not healthy *past* it), so a millisecond on.
  const bound = g.since + s.bound + (p.pausedFor ?? 0) + 1
  return coreComponent(p.module) === "" ? bound : Math.min(bound, last.at + s.every)
}

/** The plans a wake moves, of those in flight, by id. */
export const plansWoken = (
  wakes: ReadonlyArray<GateWake>,
  plans: ReadonlyArray<PlanRecord>,
  now: number,
  s: GateSettings,
): ReadonlySet<string> => {
  const woken = (p: PlanRecord, w: GateWake) =>
    w.kind === "lease" ||
    (w.kind === "plan" && w.plan === p.id) ||
    (w.kind === "machine" && judging(p) && everyMachine(p).includes(w.machine)) ||
    (w.kind === "conditions" && judging(p)) ||
    (w.kind === "due" && (nextDue(p, s) ?? Number.POSITIVE_INFINITY) <= now)
  return new Set(plans.flatMap((p) => (wakes.some((w) => woken(p, w)) ? [p.id] : [])))
}

/** The earliest wake-up to schedule over the plans in flight, or undefined when only events move them. */
export const wakeAt = (plans: ReadonlyArray<PlanRecord>, s: GateSettings): number | undefined => {
  const due = plans.map((p) => nextDue(p, s)).filter((t): t is number => t !== undefined)
  return due.length === 0 ? undefined : Math.min(...due)
}

/**
 * Whether a plan's judging would read something a statement of `machine` (or a condition, with no
 * machine) can change: its gate judging and not counting a pass it took less than `every` ago (that
 * judging is dropped unread, judge.ts), a statement first saying what it says since before the send,
 * or a tier its command may have sent since it was read (nothing else says so).
 */
const hungry = (p: PlanRecord, now: number, s: GateSettings, machine?: string, same?: number): boolean => {
  if (machine !== undefined && beingSentByItsCommand(p) && p.paused === undefined)
    return tierMachines(p).includes(machine)
  const g = p.gate
  // Its judging reads its tier's machines (what the send carried is on them too), no other.
  if (!judging(p) || (machine !== undefined && !tierMachines(p).includes(machine))) return false
  if (g?.lastPass !== undefined && now - g.lastPass < s.every) return false
  return same === undefined || g === undefined || same < g.since
}

/**
 * What of the heard is worth a pass, as the wakes the pass is given, given the plans in flight as the
 * last pass left them: empty is no pass, nothing read, no `tick` recorded. A report (a send's answer,
 * perhaps to a plan saved since), a witness's verdict (the probe's input), a verb and the lease are
 * always worth one; a wake-up due while a plan is in flight; a statement or a condition only when a
 * plan is hungry for it.
 */
export const worthAPass = (
  heard: ReadonlyArray<Heard>,
  plans: ReadonlyArray<PlanRecord>,
  now: number,
  s: GateSettings,
): ReadonlyArray<GateWake> => {
  const out = new Map<string, GateWake>()
  for (const h of heard) {
    const worth =
      "by" in h
        ? plans.some((p) => hungry(p, now, s, h.machine, h.same))
        : h.kind === "due"
          ? plans.some(inFlight)
          : h.kind !== "conditions" || plans.some((p) => hungry(p, now, s))
    const w: GateWake = h.kind === "machine" ? { kind: "machine", machine: h.machine } : h
    if (worth) out.set(wakeKey(w), w)
  }
  return [...out.values()]
}

/** How many `every` the gate goes at most without a look, when nothing wakes it. */
export const slowLookEvery = 10

/**
 * When the gate looks next with nothing heard: its next wake-up, and no later than `slowLookEvery`
 * times `every` from now. A person's `release` saves its plan in another process, and the reports its
 * first send caused can be heard before the plan is (or never, from a machine that does not answer);
 * the slow look finds such a plan (a `due` wake, which moves only plans due by then).
 */
export const lookAt = (wakeAt: number | undefined, now: number, s: GateSettings): number =>
  Math.min(wakeAt ?? Number.POSITIVE_INFINITY, now + slowLookEvery * s.every)

/**
 * Whether the plans in flight are read before what was heard is weighed: a look falling due with none
 * known in flight. Only which plans are in flight is read, no `tick` (an idle gate's look is one read).
 */
export const readsPlansFirst = (heard: ReadonlyArray<Heard>, plans: ReadonlyArray<PlanRecord>): boolean =>
  heard.some((h) => h.kind === "due") && !plans.some(inFlight)
