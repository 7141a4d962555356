// A release plan's progress (seed 003's tiers, issue 9): which machines it judges in turn, which it
// has reached, and how it ends. A plan ends only when every machine has what it decided: after its
// last tier passes the rest are sent and re-sent until they are (`sending`; seed 002's errGrants: a
// send that did not reach a machine is not marked sent, and is tried again), and after a failure the
// rollback, saved before it is sent, is re-sent until it lands (`rolling-back`).
//
// Rows kept before tiers read as one tier (the first machines, which the release had sent), so an
// old plan judges and ends as it did.
import type { PlanRecord, Sent } from "./records.ts"
import { type Gate, openGate } from "../judging/judge.ts"

/** Machines by name, as a plan lists them. */
type Machines = ReadonlyArray<string>

const union = (...lists: ReadonlyArray<Machines>): Machines => [...new Set(lists.flat())]
const without = (list: Machines, gone: Machines) => list.filter((m) => !gone.includes(m))

/** The machines judged in turn. */
export const tiersOf = (p: PlanRecord): ReadonlyArray<Machines> => p.tiers ?? [p.machines]

/** The tier being sent or judged, from 0. */
export const tierOf = (p: PlanRecord): number => Math.min(Math.max(0, p.tier ?? 0), tiersOf(p).length - 1)

/** The machines of the tier being sent or judged. */
export const tierMachines = (p: PlanRecord): Machines => tiersOf(p)[tierOf(p)] ?? []

/** Every machine the plan decides for: its tiers and the rest. */
export const everyMachine = (p: PlanRecord): Machines => union(...tiersOf(p), p.rest)

/**
 * The machines sent the new build so far. A row kept before this was recorded: the first machines,
 * which the release sent, and everything once it passed.
 */
export const sentOf = (p: PlanRecord): Machines => p.sent ?? (p.state === "passed" ? everyMachine(p) : p.machines)

export const unsentOf = (p: PlanRecord): Machines => without(everyMachine(p), sentOf(p))

/** Not ended: judged, sent or put back on every tick. */
export const inFlight = (p: PlanRecord): boolean =>
  p.state === "open" || p.state === "sending" || p.state === "rolling-back"

/** Said as people count tiers: from 1. */
export const tierWord = (p: PlanRecord): string => `tier ${tierOf(p) + 1}`

/** Every machine of the tier being judged has been sent it: its gate may judge (never before). */
export const tierSent = (p: PlanRecord): boolean => without(tierMachines(p), sentOf(p)).length === 0

/** Its sends are being made (the rest, a rollback, or its own tier): moved on by the retry policy. */
export const sending = (p: PlanRecord): boolean =>
  p.state === "sending" || p.state === "rolling-back" || (p.state === "open" && !tierSent(p))

/**
 * A plan whose gate is judging: what a machine says or a condition is evidence for. A send is moved on
 * by its retry policy alone (a `due` wake-up), never by a report that may be the send's own answer
 * arriving before the sender saved what it sent. A paused plan is not judged (it still holds its machines).
 */
export const judging = (p: PlanRecord): boolean => p.state === "open" && p.paused === undefined && tierSent(p)

/** Where an undecided plan stands, for the sentence that says why it holds a machine. */
export const phaseOf = (p: PlanRecord): string => {
  const on = tierMachines(p).join(", ")
  if (p.state === "rolling-back")
    return `its build failed its gate and is being put back on ${(p.putBack?.machines ?? sentOf(p)).join(", ")}`
  if (p.state === "failed")
    return `its build failed its gate on ${p.gate?.machines.join(", ") || on} and is sent nowhere new`
  if (!tierSent(p)) return `${tierWord(p)} (${on}) is being sent first`
  return tiersOf(p).length > 1 ? `gate judging ${tierWord(p)} on ${on}` : `gate judging on ${on}`
}

/**
 * A send of the plan's own tier reached `told`; what it moved beside telling them (`moved`: machines
 * told a declaration without the module, other modules' builds it changed) is kept with the plan
 * until the tier's gate opens: the newest word on a machine told again replaces the one before.
 */
export const afterTierSend = (
  p: PlanRecord,
  told: Machines,
  moved: Pick<Sent, "without" | "carried"> = {},
): PlanRecord => {
  const ours = told.filter((m) => tierMachines(p).includes(m))
  const { sent, tries } = reached(p, tierMachines(p), sentOf(p), told)
  const notRunning = union(
    without(p.without ?? [], ours),
    (moved.without ?? []).filter((m) => ours.includes(m)),
  )
  const carried = [
    ...(p.carried ?? []).filter((c) => !ours.includes(c.node)),
    ...(moved.carried ?? []).filter((c) => ours.includes(c.node)),
  ]
  const { without: _w, carried: _c, ...rest } = p
  return {
    ...rest,
    sent,
    ...(notRunning.length === 0 ? {} : { without: notRunning }),
    ...(carried.length === 0 ? {} : { carried }),
    tries,
  }
}

/** The tier's machines its gate judges the module on: those whose declaration carries it (seed 003's running filter). */
export const judgedOn = (p: PlanRecord): Machines => without(tierMachines(p), p.without ?? [])

/**
 * The tier's gate, opened at `at` once every machine of it was told: judged where the module went
 * (judgedOn), with what went with it (carriedPairs).
 */
export const tierGate = (p: PlanRecord, at: number): Gate =>
  openGate(p.module, judgedOn(p), p.previous, p.commit, at, carriedPairs(p))

/** The modules the tier's sends carried, each on its machine, judged with the plan's own. */
export const carriedPairs = (p: PlanRecord): ReadonlyArray<{ readonly module: string; readonly node: string }> =>
  (p.carried ?? []).map((c) => ({ module: c.module, node: c.node }))

/**
 * A tier passed: the next is sent and judged in turn; after the last, the plan is `sending` until
 * every machine it decides for has the build.
 */
export const afterTierPass = (p: PlanRecord): PlanRecord => {
  const tiers = tiersOf(p)
  const tier = tierOf(p)
  if (tier + 1 < tiers.length) {
    // What the tier's sends moved is the passed tier's: the next tier's sends say their own.
    const { gate: _passed, carried: _carried, without: _without, ...rest } = p
    return { ...rest, tiers, tier: tier + 1, sent: sentOf(p), tries: 0 }
  }
  const left = without(everyMachine(p), sentOf(p))
  return { ...p, tiers, tier, sent: sentOf(p), state: left.length === 0 ? "passed" : "sending", tries: 0 }
}

/** A send that reached `told` of `machines`, `before` sent already: what is sent now, whether all is, the tries in a row. */
const reached = (p: PlanRecord, machines: Machines, before: Machines, told: Machines) => {
  const sent = union(
    before,
    told.filter((m) => machines.includes(m)),
  )
  const all = without(machines, sent).length === 0
  return { sent, all, tries: all ? 0 : (p.tries ?? 0) + 1 }
}

/** The rest sent (or some of them): `passed` only once every machine has it. */
export const afterRestSend = (p: PlanRecord, told: Machines): PlanRecord => {
  const { sent, all, tries } = reached(p, everyMachine(p), sentOf(p), told)
  return { ...p, sent, state: all ? "passed" : "sending", tries }
}

/** The rollback sent (or some of it): `failed` only once every machine it puts back has it. */
export const afterRollbackSend = (p: PlanRecord, told: Machines): PlanRecord => {
  const b = p.putBack
  if (b === undefined) return { ...p, state: "failed" }
  const { sent, all, tries } = reached(p, b.machines, b.sent, told)
  return { ...p, putBack: { ...b, sent }, state: all ? "failed" : "rolling-back", tries }
}

/** The machines a rollback still has to reach. */
export const putBackLeft = (p: PlanRecord): Machines =>
  p.putBack === undefined ? [] : without(p.putBack.machines, p.putBack.sent)

/**
 * The newest plan of each module: an older plan of a module holds nothing once a newer one exists. A
 * dry run is never it (issue 10): it registers nothing, holds nothing, and hides no real plan.
 */
export const newestByModule = (plans: ReadonlyArray<PlanRecord>): ReadonlyMap<string, PlanRecord> => {
  const out = new Map<string, PlanRecord>()
  for (const p of plans) {
    if (p.dryRun === true) continue
    const was = out.get(p.module)
    if (was === undefined || p.sentAt > was.sentAt || (p.sentAt === was.sentAt && p.id > was.id)) out.set(p.module, p)
  }
  return out
}

/** The retry policy: a send that did not reach every machine is tried again `every` after, doubling, 10 minutes at most. */
export const retryAfter = (tries: number, every: number): number =>
  Math.min(every * 2 ** Math.max(0, tries - 1), 600_000)

/**
 * Whether a plan's next send is due: never tried, or tried longer ago than the policy asks. A plan
 * tried (or saved about to be) within that is being moved on, by this controller or another, and is
 * left to it: two controllers do not both send it.
 */
export const sendDue = (p: PlanRecord, now: number, every: number): boolean => now >= sendDueAt(p, every)

/**
 * How long a plan `release` saved about to send its first tier is left to that command. Its send is
 * bounded by the bus's answer (15 s) and the record of it (10 s), so past this the command has kept
 * what it sent or is gone. Left for one `every` only, a command slowed by a loaded machine was
 * overtaken: serve sent the same tier again and the machine was sent the build twice.
 */
const firstSendLeftFor = 30_000

/** A plan saved by `release` whose first send that command has not yet kept. */
export const beingSentByItsCommand = (p: PlanRecord): boolean =>
  p.state === "open" && (p.tier ?? 0) === 0 && (p.tries ?? 0) === 0 && sentOf(p).length === 0

/** When a plan's next send falls due: at once if never tried, else its last try and the policy's wait. */
export const sendDueAt = (p: PlanRecord, every: number): number =>
  p.triedAt === undefined
    ? Number.NEGATIVE_INFINITY
    : p.triedAt + Math.max(retryAfter(p.tries ?? 0, every), beingSentByItsCommand(p) ? firstSendLeftFor : 0)
