// What one push composes from, in one call for the push shell: what the plans hold (held.ts), the
// modules each machine cannot host (unhostable.ts), each machine's index, the machines left out, and
// what the push says of them before it sends. The shell reads the records, the plans in flight and
// what each machine detects, calls this, and composes and sends as before.
import type { PlanRecord } from "../controller/records.ts"
import { composeEach, type Index, type Ready } from "./compose.ts"
import { heldMachines, type Holding, holdingLines, indexFor, type PushRequest, viewsOf } from "./held.ts"
import type { MeshRecords } from "./records.ts"
import { leftOut, reportUnhostable, type Unhostable, unhostableOn } from "./unhostable.ts"

export interface PushView {
  readonly holding: Holding
  readonly unhostable: ReadonlyMap<string, ReadonlyArray<Unhostable>>
  /** The index each machine is composed from. */
  readonly indexOf: (node: string) => Index
  /** The machines asked less those a plan leaves out altogether, in the order asked. */
  readonly sendable: ReadonlyArray<string>
  readonly said: ReadonlyArray<string>
}

export const pushView = (
  records: MeshRecords, plans: ReadonlyArray<PlanRecord>, asked: ReadonlyArray<string>, request: PushRequest,
  detected: ReadonlyMap<string, ReadonlySet<string>> = new Map(),
): PushView => {
  const holding = heldMachines(plans, records, asked, request)
  const unhostable = unhostableOn(records, asked, detected)
  return {
    holding, unhostable,
    indexOf: indexFor(records, viewsOf(holding, leftOut(unhostable))),
    sendable: asked.filter((m) => !holding.left.has(m)),
    said: [...asked.flatMap((n) => reportUnhostable(n, unhostable.get(n) ?? [])), ...holdingLines(holding)],
  }
}

/** composeEach, each machine from its own index: the refusals and words of every machine, in the order asked. */
export const composeEachViewed = (
  view: PushView, names: ReadonlyArray<string>, sequences: ReadonlyMap<string, number | { readonly error: string }>,
): { readonly sending: ReadonlyArray<Ready>; readonly refusals: ReadonlyArray<string>; readonly said: ReadonlyArray<string> } => {
  const sending: Array<Ready> = []
  const refusals: Array<string> = []
  const said: Array<string> = []
  for (const node of names) {
    const one = composeEach(view.indexOf(node), [node], sequences)
    sending.push(...one.sending)
    refusals.push(...one.refusals)
    said.push(...one.said)
  }
  return { sending, refusals, said }
}
