// What one push composes from, in one call for the push shell: what the plans hold (held.ts), the
// modules each machine cannot host (unhostable.ts), each machine's index, the machines left out, and
// what the push says of them before it sends. The shell reads the records, the plans in flight and
// what each machine detects, calls this, and composes and sends as before.
import type { PlanRecord } from "../gate/plan/records.ts"
import type { Index } from "./compose.ts"
import { heldMachines, type Holding, holdingLines, indexFor, type PushRequest, viewsOf } from "./held.ts"
export type { PushRequest } from "./held.ts"
import type { MeshRecords } from "../mesh/records.ts"
import { leftOut, reportUnhostable, unhostableOn } from "./unhostable.ts"

/** A dry run's send (issue 10): the machines asked are composed with this build of the module, which is not registered. */
export interface DryRunBuild {
  readonly module: string
  readonly build: string
}

/** The holding with a dry run's build pinned on every machine asked that a plan does not leave out. */
const withDryRun = (h: Holding, asked: ReadonlyArray<string>, dry: DryRunBuild | undefined): Holding => {
  if (dry === undefined) return h
  const pins = new Map(h.pins)
  for (const m of asked) if (!h.left.has(m)) pins.set(m, new Map(h.pins.get(m) ?? []).set(dry.module, dry.build))
  return { ...h, pins }
}

export const pushView = (
  records: MeshRecords,
  plans: ReadonlyArray<PlanRecord>,
  asked: ReadonlyArray<string>,
  request: PushRequest,
  detected: ReadonlyMap<string, ReadonlySet<string>> = new Map(),
  dryRun?: DryRunBuild,
  /** The records' own index, when the caller has it: indexed once a delivery (issue 41). */
  plain?: Index,
) => {
  const holding = heldMachines(plans, records, asked, request)
  const unhostable = unhostableOn(records, asked, detected)
  return {
    holding,
    unhostable,
    indexOf: indexFor(records, viewsOf(withDryRun(holding, asked, dryRun), leftOut(unhostable)), plain),
    sendable: asked.filter((m) => !holding.left.has(m)),
    said: [...asked.flatMap((n) => reportUnhostable(n, unhostable.get(n) ?? [])), ...holdingLines(holding)],
  }
}
/** What a push composes from: the holding, the unhostable modules, each machine's index, the machines asked less those a plan leaves out (in the order asked), and what it says of them. */
export type PushView = ReturnType<typeof pushView>

/** What a push was asked, from its arguments: a plan's own send says so itself (the gate's send-plan). */
export const requestOf = (o: {
  readonly node: string | undefined
  readonly behind: boolean
  readonly machines?: ReadonlyArray<string> | undefined
}): PushRequest =>
  o.machines !== undefined || (o.node === undefined && !o.behind)
    ? { kind: "sweep" }
    : o.node !== undefined
      ? { kind: "named", node: o.node }
      : { kind: "behind" }

/**
 * Whether a push goes on to flush the machines behind as a consequence of it (issue 057): a named
 * push that reached the machine it named. Nothing changed elsewhere when it was not sent.
 */
export const flushesAfter = (request: PushRequest, told: ReadonlyArray<string>): boolean =>
  request.kind === "named" && told.includes(request.node)

/**
 * What `push --behind` says of the machines it did not select that a plan holds (issue 9: "leave the
 * gated machines alone and say why"): the view over every machine, less those selected (their holds
 * are said when they are sent).
 */
export const heldAside = (view: PushView, selected: ReadonlyArray<string>) => {
  const chosen = new Set(selected)
  const left = new Map([...view.holding.left].filter(([m]) => !chosen.has(m)))
  const holds = view.holding.holds.filter((h) => !chosen.has(h.machine))
  return { holds, said: holdingLines({ pins: view.holding.pins, left, holds }) }
}
