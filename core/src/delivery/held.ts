// What a release plan holds back from a push (seed 002's heldMachines, novox/hq issue 259, ADR 0221).
//
// `release` makes the new build the module's registered one, so any push composed from the records
// sent it everywhere, gated or not: a `push --behind` during an open plan sent the build under
// judgement to every machine. Now, **until its gate passes, no push of any kind sends a plan's new
// build to a machine the plan has not reached**: such a machine is composed with the plan's previous
// build of that module (pinned), and named with why. A machine for which there is no previous build
// to send meanwhile is left out of the push altogether, named with why, as the seed leaves it.
//
// Which plans hold: the newest plan of each module, and only while the module's registered build is
// still the plan's build (a later `mesh apply` or release took it elsewhere, and there is nothing of
// the plan left to hold back):
//   open          its unreached machines, pinned to its previous build (its own sends of a tier
//                 reach the tier's machines, and only those);
//   failed        its unreached machines likewise: a build that failed its gate is sent nowhere new;
//   rolling-back  every machine of the module, pinned to the build being put back;
//   sending, passed  nothing: the gate passed.
// And a plan whose failed gate put its module back (`putBack`) holds what its failed tier's send
// carried at the build each machine had, while the carried build is still the registered one.
import type { PlanRecord } from "../gate/plan/records.ts"
import { newestByModule, phaseOf, sentOf, tierMachines } from "../gate/plan/plan.ts"
import { indexRecords, type Index } from "./compose.ts"
import type { MeshRecords } from "../mesh/records.ts"

/** What a push was asked: the request decides nothing about holding but a plan's own sends. */
export type PushRequest =
  | { readonly kind: "sweep" }
  | { readonly kind: "named"; readonly node: string }
  | { readonly kind: "behind" }
  /** Machines behind as a consequence of a named push (issue 057). */
  | { readonly kind: "flush" }
  /** The plan's own send: a tier reaches its machines; the rest and a rollback reach theirs. */
  | {
      readonly kind: "plan"
      readonly plan: string
      readonly why: "tier" | "rest" | "rollback" | "user-list"
      readonly machines: ReadonlyArray<string>
    }

export interface Hold {
  readonly machine: string
  readonly module: string
  readonly plan: string
  /** The build the machine is composed with meanwhile; "" when there is none (the machine is left). */
  readonly build: string
  /** "held by plan letta-205, gate judging on hq-3" */
  readonly why: string
}

const assignedTo = (records: MeshRecords, module: string): ReadonlyArray<string> =>
  records.assignments.filter((a) => a.module === module).map((a) => a.node)

/**
 * Which of the machines asked may be sent which build, and why each held one is held. Pure: the
 * plans, the records a push composes from, the machines it asked and what it was asked. Give it the
 * newest plan of every module whatever its state (or every plan): a failed plan whose build could not
 * be put back still holds its unreached machines.
 */
export const heldMachines = (
  plans: ReadonlyArray<PlanRecord>,
  records: MeshRecords,
  asked: ReadonlyArray<string>,
  request: PushRequest,
) => {
  const pins = new Map<string, Map<string, string>>()
  const left = new Map<string, string>()
  const holds: Array<Hold> = []
  const registered = new Map(records.modules.map((m) => [m.name, m.build]))
  const askedSet = new Set(asked)
  const pin = (machine: string, module: string, build: string) =>
    pins.set(machine, (pins.get(machine) ?? new Map()).set(module, build))
  for (const p of newestByModule(plans).values()) {
    if (registered.get(p.module) !== p.build) continue
    if (p.state !== "open" && p.state !== "failed" && p.state !== "rolling-back") continue
    // A rollback holds every machine of the module; an open or failed plan those it has not reached.
    const reached = new Set(p.state === "rolling-back" ? [] : sentOf(p))
    // The plan's own send of a tier reaches that tier's machines, never one it asks beyond them.
    if (request.kind === "plan" && request.plan === p.id && request.why === "tier" && p.state === "open") {
      const tier = tierMachines(p)
      for (const m of request.machines) if (tier.includes(m)) reached.add(m)
    }
    const machines = assignedTo(records, p.module).filter((m) => !reached.has(m) && askedSet.has(m))
    const build = (p.state === "rolling-back" ? p.putBack?.build : undefined) ?? p.previousBuild ?? ""
    const why = `held by plan ${p.id}, ${phaseOf(p)}`
    for (const machine of machines) {
      holds.push({ machine, module: p.module, plan: p.id, build, why })
      if (build !== "") pin(machine, p.module, build)
      else if (!left.has(machine))
        left.set(machine, `${p.module} is ${why}, and there is no earlier build of it to send meanwhile`)
    }
  }
  // What a failed gate's send carried goes back with the plan's module (003-15/17, issue 40): each
  // carried build is held at the build its machine had while it is still the one registered.
  for (const p of newestByModule(plans).values()) {
    if (p.putBack === undefined) continue
    for (const c of p.carried ?? []) {
      if (c.before === undefined || registered.get(c.module) !== c.build || !askedSet.has(c.node)) continue
      if (pins.get(c.node)?.has(c.module)) continue
      holds.push({ machine: c.node, module: c.module, plan: p.id, build: c.before, why: putBackWhy(p, c.build) })
      pin(c.node, c.module, c.before)
    }
  }
  for (const m of left.keys()) pins.delete(m)
  return { pins, left, holds }
}
/** Which builds each machine is composed with instead of the registered ones, by module; the machines not sent at all, with why; and every hold. */
export type Holding = ReturnType<typeof heldMachines>

const putBackWhy = (p: PlanRecord, build: string) =>
  `put back by plan ${p.id}: ${build} was carried with ${p.module} ${p.build} and failed its gate with it`

/** What a push says of what it held: one line per machine and module, after the machines it left. */
export const holdingLines = (h: Holding): ReadonlyArray<string> => [
  ...[...h.left].map(([m, why]) => `${m} not sent: ${why}`),
  ...h.holds
    .filter((x) => x.build !== "" && !h.left.has(x.machine))
    .map(
      (x) =>
        `${x.machine}: ${x.module} stays at ${x.build}, ${x.why}${x.why.startsWith("put back") ? " — a newer build of it replaces it" : "; it is sent the new build once that gate passes"}`,
    ),
]

/** A hold as `push --json` and `status --json` carry it: no build (null) when the machine is left out. */
export const holdJson = (h: Hold) => ({ ...h, build: h.build === "" ? null : h.build })

/** What a machine is composed from, apart from the registered records: pinned builds, modules left out. */
export interface View {
  readonly pins: ReadonlyMap<string, string>
  /** Modules assigned here that it cannot host (reportUnhostable): kept out of what it is sent. */
  readonly without: ReadonlySet<string>
}

const pinsKey = (pins: ReadonlyMap<string, string>): string =>
  JSON.stringify([...pins].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))

/**
 * A machine's index without the modules it cannot host. Indexing the whole mesh again for each such
 * machine made a push grow with machines × records when a module is assigned where it cannot run; so
 * only what this machine's draft reads of itself changes (its own assignments: the index answers for
 * this machine only), unless leaving the modules out moves something else its draft reads — a seat,
 * the bus's holder and user list, a requirement they provide it, the consumers of what it provides —
 * and then the records are indexed whole, without them.
 */
const leavingOut = (index: Index, node: string, without: ReadonlySet<string>): Index => {
  const assigned = index.byNode.get(node) ?? []
  const kept = assigned.filter((a) => !without.has(a.module))
  if (kept.length === assigned.length) return index
  const registered = (modules: ReadonlyArray<{ readonly module: string }>) =>
    modules.flatMap((a) => index.modules.get(a.module) ?? [])
  const reads = new Set(registered(kept).flatMap((m) => [...(m.requires ?? []), ...(m.receives ?? [])]))
  const { records } = index
  const movesMore =
    node === index.holder ||
    registered(assigned.filter((a) => without.has(a.module))).some(
      (m) =>
        (m.claims ?? []).length > 0 ||
        (records.handovers ?? []).some((h) => h.module === m.name) ||
        [...(m.requires ?? []), ...(m.receives ?? [])].some((r) => reads.has(r)),
    )
  return movesMore
    ? indexRecords({
        ...records,
        assignments: records.assignments.filter((a) => a.node !== node || !without.has(a.module)),
      })
    : { ...index, byNode: new Map([[node, kept]]) }
}

/**
 * The index each machine is composed from: the records' own, or for a machine with a view, the
 * records with its pinned builds and without the modules it cannot host. Indexed once per distinct
 * set of pins (a plan pins every machine it holds alike), so a push stays machines plus records.
 */
export const indexFor = (
  records: MeshRecords,
  views: ReadonlyMap<string, View>,
  plain: Index = indexRecords(records),
): ((node: string) => Index) => {
  const byPins = new Map<string, Index>()
  const pinnedBy = (pins: ReadonlyMap<string, string>): Index => {
    if (pins.size === 0) return plain
    const key = pinsKey(pins)
    let index = byPins.get(key)
    if (index === undefined) {
      // A pinned build is the machine's alone; another machine's modules are composed as registered.
      // Pins change builds only, never who is assigned where or what they may do on the bus: the
      // plain index is shared but for its modules (a whole index per view made a push during five
      // plans 2-3× the plain one; `npm run bench:push`).
      const modules = records.modules.map((m) => (pins.has(m.name) ? { ...m, build: pins.get(m.name)! } : m))
      index = { ...plain, records: { ...records, modules }, modules: new Map(modules.map((m) => [m.name, m])) }
      byPins.set(key, index)
    }
    return index
  }
  return (node) => {
    const v = views.get(node)
    return v === undefined ? plain : leavingOut(pinnedBy(v.pins), node, v.without)
  }
}

/** The views a holding and the unhostable modules make, by machine. */
export const viewsOf = (h: Holding, unhostable: ReadonlyMap<string, ReadonlyArray<string>> = new Map()) => {
  const out = new Map<string, View>()
  for (const m of new Set([...h.pins.keys(), ...unhostable.keys()]))
    out.set(m, { pins: h.pins.get(m) ?? new Map(), without: new Set(unhostable.get(m) ?? []) })
  return out
}
