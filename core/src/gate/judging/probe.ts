// The gate's probe, DG (seed 003's probeGates): no build that failed its gate is left without its
// condition, and no witness's rollback goes unsaid. Run on every tick of the gate, open plans or
// none: each module whose newest verdict is a failure keeps its condition; a newer build that passes
// clears it. Each core component a machine's witness says it put back is `core.<component>.
// <machine>.<outcome>` while the witness's verdict holds (witnessHolds).
//
// Kept, not only raised: a condition somebody cleared by hand while its failed build still holds is
// raised again on the next run, so the record of a failed build never vanishes while it holds.
import { type Condition, coreComponent, gateProbe, type VerdictRecord, type WitnessVerdict } from "./facts.ts"
import { dedupe, gateObservation, type Observation, witnessObservation } from "./observations.ts"

/** A verdict as the probe reads it; one without `judgingFrom` (not known) ends no witness's verdict. */
export type Verdict = Omit<VerdictRecord, "build" | "plan" | "judgingFrom"> & {
  readonly judgingFrom?: number | undefined
}

/**
 * Whether a witness's verdict on a machine still holds (seed 003's probeGates: "until the machine's
 * witnesses stop saying it"). A witness says a newer verdict of the component in its place (one is
 * kept per machine and component); and a build of the component sent there after the verdict and
 * passed by its gate there ends it: the machine runs a build judged healthy since.
 */
export const witnessHolds = (machine: string, w: WitnessVerdict, latest: ReadonlyArray<Verdict>): boolean =>
  !latest.some(
    (v) =>
      v.verdict === "passed" &&
      (v.component === "" ? coreComponent(v.module) : v.component) === w.component &&
      v.machines.includes(machine) &&
      v.judgingFrom !== undefined &&
      v.judgingFrom >= w.at,
  )

/** What the probe finds: one observation per failed module's newest verdict, and per witness verdict that holds. */
export const probeGates = (
  latest: ReadonlyArray<Verdict>,
  witnesses: ReadonlyMap<string, ReadonlyArray<WitnessVerdict>>,
): ReadonlyArray<Observation> => {
  const out: Array<Observation> = []
  for (const v of latest) {
    if (v.verdict !== "failed" || v.rollback === "unchanged") continue
    const notWhy = v.rollback === "not-rolled-back" ? v.why : ""
    out.push(gateObservation(v.module, v.component, v.machines, v.rollback, v.why, notWhy, v.commit, v.previous))
  }
  // In the order of their keys, which name the machine: no order of the machines is needed before.
  for (const [node, list] of witnesses)
    for (const r of list) if (witnessHolds(node, r, latest)) out.push(witnessObservation(node, r))
  return [...dedupe(out)].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
}

/**
 * What a run of the probe writes: what it found and is not open as found (new, cleared by hand, or
 * said differently) raised (again); what is open, the probe's own, and not found cleared, as what it
 * said no longer holds. `complete` is false when something it reads could not be read: then it raises
 * what it found and clears nothing (a condition is never cleared for want of a read).
 */
export const keepProbe = (
  found: ReadonlyArray<Observation>,
  open: ReadonlyArray<Condition & { readonly severity?: string | undefined }>,
  complete: boolean,
): { readonly raise: ReadonlyArray<Observation>; readonly clear: ReadonlyArray<string> } => {
  const mine = open.filter((c) => c.source === gateProbe)
  const byKey = new Map(mine.map((c) => [c.key, c]))
  const raise = found.filter((o) => {
    const c = byKey.get(o.key)
    return c === undefined || c.summary !== o.summary || (c.severity !== undefined && c.severity !== o.severity)
  })
  const keys = new Set(found.map((o) => o.key))
  const clear = complete ? mine.filter((c) => !keys.has(c.key)).map((c) => c.key) : []
  return { raise, clear }
}
