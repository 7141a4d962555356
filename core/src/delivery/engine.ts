// What a node engine does with a declaration that arrives on its subject. Signed by the controller
// and checked here, not trusted from the broker: a node connects to the broker and takes
// instruction from the control plane behind it, and those are two identities; a node that believed
// whatever arrived on its queue would let a compromised broker forge declarations, and the host
// applies whatever the link delivers (novox/hq ADR 0004). The shell verifies the signature; this
// decides from that fact.
import { jsonOf, NotJson } from "../json.ts"
import { digestOf } from "./compose.ts"
import type { ReportRecord } from "./questions.ts"

export interface EngineMemory {
  /** The sequence of the last declaration applied; refused below it (novox/hq 04-ISSUES/107). */
  readonly lastApplied: number | undefined
}

export interface Arrival {
  readonly body: string
  readonly signatureVerifies: boolean
}

export interface Judged {
  readonly memory: EngineMemory
  readonly outcome: ReportRecord["outcome"]
  readonly digest: string
  readonly sequence: number
  readonly refused: string | undefined
  readonly failed: ReadonlyArray<string>
  /** The modules it would run, when applied, with their builds. */
  readonly builds: ReadonlyArray<{ readonly module: string; readonly build: string }>
}

export const judgeArrival = (
  memory: EngineMemory,
  me: string,
  arrival: Arrival,
  failing: ReadonlySet<string>,
): Judged => {
  const digest = digestOf(arrival.body)
  const refuse = (why: string, sequence = -1): Judged => ({
    memory,
    outcome: "refused",
    digest,
    sequence,
    refused: why,
    failed: [],
    builds: [],
  })
  if (!arrival.signatureVerifies)
    return refuse("the signature does not verify against the controller's key: not from the controller")
  const body = jsonOf(arrival.body)
  if (body instanceof NotJson) return refuse("the declaration is not JSON")
  const d = body as { node?: unknown; sequence?: unknown; resources?: unknown }
  if (typeof d.sequence !== "number" || !Array.isArray(d.resources))
    return refuse("the declaration has no sequence or no resources")
  if (d.node !== me) return refuse(`the declaration is for ${String(d.node)}, not ${me}`, d.sequence)
  if (memory.lastApplied !== undefined && d.sequence < memory.lastApplied)
    return refuse(
      `sequence ${d.sequence} is lower than ${memory.lastApplied}, the last applied: an older declaration replayed`,
      d.sequence,
    )
  const builds = d.resources.map((r) => ({
    module: String((r as { module?: unknown }).module),
    build: String((r as { build?: unknown }).build),
  }))
  const failed = builds.map((b) => b.module).filter((m) => failing.has(m))
  return {
    memory: { lastApplied: d.sequence },
    outcome: failed.length > 0 ? "failed" : "applied",
    digest,
    sequence: d.sequence,
    refused: undefined,
    failed,
    builds,
  }
}
