// Modules a machine cannot host (seed 002's reportUnhostable): a module whose declared capability
// has no detector on the machine is on the wrong machine. It is kept out of what the machine is sent
// — the healthy modules beside it still converge — and named, once per push, so it is neither
// silently dropped nor a reason the whole machine fails to push (the blast radius of a fault is the
// thing that has it, one level below ADR 0066).
import type { MeshRecords } from "../mesh/records.ts"

export interface Unhostable {
  readonly module: string
  readonly missing: ReadonlyArray<string>
}

/** The sentence for one missing capability (the seed's catalogue.WrongMachine). */
const wrongMachine = (module: string, capability: string, node: string): string =>
  `${module} needs ${capability}, and ${node} has no detector for it: it is on the wrong machine — assign it to a machine that has ` +
  `${capability}; until then the rest of ${node} converges`

/**
 * The modules assigned to each machine asked that it cannot host. A machine whose capabilities are
 * not known (it never said what it detects) is judged able to host everything: not known is never
 * a reason to take a module off a machine that may be running it.
 */
export const unhostableOn = (
  records: MeshRecords,
  names: ReadonlyArray<string>,
  detected: ReadonlyMap<string, ReadonlySet<string>>,
): ReadonlyMap<string, ReadonlyArray<Unhostable>> => {
  const needs = new Map(records.modules.map((m) => [m.name, m.needs ?? []]))
  // Each machine's assignments gathered once: a push where every machine said what it detects stays
  // machines plus assignments, not their product (issue 41).
  const judged = new Set(names.filter((n) => detected.has(n)))
  const assigned = Map.groupBy(
    records.assignments.filter((a) => judged.has(a.node)),
    (a) => a.node,
  )
  const out = new Map<string, Array<Unhostable>>()
  for (const node of names) {
    const has = detected.get(node)
    if (has === undefined) continue
    for (const { module } of assigned.get(node) ?? []) {
      const missing = (needs.get(module) ?? []).filter((c) => !has.has(c))
      if (missing.length === 0) continue
      out.set(node, [...(out.get(node) ?? []), { module, missing }])
    }
  }
  return out
}

/** What a push says, once per machine: each module left out and each capability it lacks. */
export const reportUnhostable = (node: string, list: ReadonlyArray<Unhostable>): ReadonlyArray<string> =>
  list.flatMap((u) => u.missing.map((c) => `${node} not applied — ${wrongMachine(u.module, c, node)}`))

/** The modules to leave out, by machine, as a push's views take them (core/src/delivery/held.ts viewsOf). */
export const leftOut = (u: ReadonlyMap<string, ReadonlyArray<Unhostable>>) =>
  new Map([...u].map(([node, list]) => [node, list.map((x) => x.module)]))
