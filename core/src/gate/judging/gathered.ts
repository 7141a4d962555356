// What the gate's facts are made of, decided here rather than in the shell that gathers them (issue
// 8): whether a machine's report is of what it was last sent ("current"), and which answers to
// `$SRV.INFO` count as this mesh's node tools and the modules' tools they serve.
import { jsonOf, NotJson } from "../../json.ts"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import type { GateFactsRecord } from "./facts.ts"

/**
 * A machine's report counts as current when it is of the declaration it was last sent, by digest:
 * a report of an older declaration says nothing of what the machine runs now. A machine never sent
 * anything has no current report.
 */
export const reportedFacts = (
  reports: ReadonlyArray<{
    readonly node: string
    readonly digest: string
    readonly at: number
    readonly outcome: string
  }>,
  sent: ReadonlyArray<{ readonly node: string; readonly digest: string }>,
): GateFactsRecord["reports"] => {
  const lastSent = new Map(sent.map((s) => [s.node, s.digest]))
  const out: Record<string, GateFactsRecord["reports"][string]> = {}
  for (const r of reports) out[r.node] = { at: r.at, current: lastSent.get(r.node) === r.digest, outcome: r.outcome }
  return out
}

const Metadata = Schema.optionalKey(Schema.NullOr(Schema.Record(Schema.String, Schema.String)))

/** An answer to `$SRV.INFO`, as NATS services give it (the micro protocol's info response). */
const InfoResponse = Schema.Struct({
  type: Schema.Literal("io.nats.micro.v1.info_response"),
  name: Schema.String,
  id: Schema.String,
  metadata: Metadata,
  endpoints: Schema.optionalKey(
    Schema.NullOr(Schema.Array(Schema.Struct({ name: Schema.String, subject: Schema.String, metadata: Metadata }))),
  ),
})

const decodeInfo = Schema.decodeUnknownExit(InfoResponse)

/**
 * The machines whose node tools answered, and which modules' tools each serves, out of the bodies
 * of every answer heard. Only this mesh's services count (meshes may share a bus); an answer that is
 * not an info response is not counted, and nothing it says is read.
 */
export const servedOf = (bodies: ReadonlyArray<string>, mesh: string) => {
  const out: Record<string, { runtime: boolean; tools: Array<string> }> = {}
  const add = (node: string) => (out[node] ??= { runtime: false, tools: [] })
  for (const body of bodies) {
    const json = jsonOf(body)
    if (json instanceof NotJson) continue
    const e = decodeInfo(json)
    if (Exit.isFailure(e)) continue
    const info = e.value
    const meta = info.metadata ?? {}
    if ((meta["mesh"] ?? "") !== mesh) continue
    if (info.name === "node-tools") add(meta["node"] || info.id).runtime = true
    for (const ep of info.endpoints ?? []) {
      const m = ep.metadata ?? {}
      if (m["kind"] !== "tool" || !m["module"]) continue
      const s = add(m["node"] || info.id)
      if (!s.tools.includes(m["module"])) s.tools.push(m["module"])
    }
  }
  return out
}
