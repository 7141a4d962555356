// `mesh handover MODULE` (seed 002's holdings; issue 28): a person hands the bus seat to a module,
// recorded with who and when, and from then on that module's machine holds the bus, whatever the
// catalogue's order says. How the bus moves from one module to another: the new one is registered and
// assigned beside the old, handed the seat, and the old one removed once the new one runs it.
import { busSeat, type Handover, type MeshRecords } from "./records.ts"

export type HandedOver =
  | { readonly ok: true; readonly records: MeshRecords; readonly handover: Handover; readonly said: string }
  | { readonly ok: false; readonly problem: string }

/** The records with the bus seat handed to `module` (on `node` when named), or why it cannot be. */
export const handOver = (
  records: MeshRecords,
  h: { readonly module: string; readonly node: string | undefined; readonly by: string; readonly at: string },
): HandedOver => {
  const m = records.modules.find((x) => x.name === h.module)
  if (m === undefined) return { ok: false, problem: `no module named ${h.module} is in the mesh's records` }
  // issue 43: the bus was handed to a module that runs none (the next one, assigned beside the old,
  // carries the bus's user list before it claims the seat)
  if (!(m.claims ?? []).includes(busSeat) && m.busUsers !== true)
    return {
      ok: false,
      problem: `${h.module} claims no bus seat and carries no bus user list (busUsers): it runs no bus to hold`,
    }
  const on = records.assignments.filter((a) => a.module === h.module).map((a) => a.node)
  if (on.length === 0)
    return {
      ok: false,
      problem: `${h.module} is assigned to no machine: a module holds the bus on a machine it runs on`,
    }
  if (h.node !== undefined && !on.includes(h.node))
    return { ok: false, problem: `${h.module} is not assigned to ${h.node} (it runs on ${on.join(", ")})` }
  const node = h.node ?? on[0]!
  const handover: Handover = { seat: busSeat, module: h.module, node, by: h.by, at: h.at }
  const grants =
    m.busUsers === true
      ? `the next push sends ${node} first, with the bus's user list`
      : `${h.module} carries no user list (busUsers), so no push sends ${node} first`
  return {
    ok: true,
    records: { ...records, handovers: [...(records.handovers ?? []), handover] },
    handover,
    said: `the bus is held by ${h.module} on ${node} from ${h.at}, handed over by ${h.by}; ${grants}`,
  }
}

/** A records document applied without handovers of its own keeps the ones the store has: they are a person's acts, not the file's. */
export const keepingHandovers = (applied: MeshRecords, stored: MeshRecords | undefined): MeshRecords =>
  applied.handovers !== undefined || stored?.handovers === undefined
    ? applied
    : { ...applied, handovers: stored.handovers }
