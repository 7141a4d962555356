// Who serves what, asked on the bus the NATS services way: a request on $SRV.INFO that every
// service answers (io.nats.micro.v1.info_response), gathered until the answers stop coming for a
// moment or the patience runs out. The node tools on each machine answer as the service
// `node-tools`, naming their machine, and each module's tools as endpoints of kind `tool`.
import type { NatsConnection } from "@nats-io/transport-node"
import type { Served } from "@mesh-core/core/gate/facts"

/** How long to wait for answers at most, and how long a pause in them ends the asking. */
export const discoveryPatience = 2_000
export const discoveryQuiet = 300

interface InfoResponse {
  readonly type?: string
  readonly name?: string
  readonly id?: string
  readonly metadata?: Record<string, string>
  readonly endpoints?: ReadonlyArray<{ readonly name?: string; readonly subject?: string; readonly metadata?: Record<string, string> | null }>
}

/** The machines whose node tools answer, and which modules' tools each serves. Only services of this mesh count. */
export const servedOnTheBus = async (nc: NatsConnection, mesh: string, patience = discoveryPatience, quiet = discoveryQuiet): Promise<Map<string, Served>> => {
  const out = new Map<string, { runtime: boolean; tools: Set<string> }>()
  const add = (node: string) => {
    let s = out.get(node)
    if (s === undefined) out.set(node, (s = { runtime: false, tools: new Set() }))
    return s
  }
  let replies: AsyncIterable<{ json: <T>() => T }>
  try {
    replies = await nc.requestMany("$SRV.INFO", "", { strategy: "stall", maxWait: patience, stall: quiet })
  } catch (e) {
    if (/no responders|503/i.test(String(e))) return out
    throw e
  }
  try {
    for await (const m of replies) {
      let info: InfoResponse
      try {
        info = m.json<InfoResponse>()
      } catch {
        continue
      }
      if ((info.metadata?.["mesh"] ?? "") !== mesh) continue
      if (info.name === "node-tools") add(info.metadata?.["node"] || info.id || "").runtime = true
      for (const e of info.endpoints ?? []) {
        if (e.metadata?.["kind"] !== "tool" || !e.metadata["module"]) continue
        add(e.metadata["node"] || info.id || "").tools.add(e.metadata["module"])
      }
    }
  } catch (e) {
    if (!/no responders|503/i.test(String(e))) throw e
  }
  return out
}

/** Answers $SRV.INFO as the node tools of a machine: what the simulated engine serves. */
export const answerAsNodeTools = (nc: NatsConnection, mesh: string, node: string, tools: () => ReadonlyArray<string>) => {
  const info = () => ({
    type: "io.nats.micro.v1.info_response", name: "node-tools", id: `node-tools-${node}`, version: "0.1.0",
    description: `the node tools on ${node}`, metadata: { mesh, node },
    endpoints: tools().map((module) => ({
      name: `${module}-tools`, subject: `${mesh ? `${mesh}.` : ""}tools.${node}.${module}`, queue_group: "q", metadata: { kind: "tool", module, node },
    })),
  })
  const subs = ["$SRV.INFO", "$SRV.INFO.node-tools", `$SRV.INFO.node-tools.node-tools-${node}`].map((subject) =>
    nc.subscribe(subject, { callback: (_err, m) => void m.respond(JSON.stringify(info())) })
  )
  return () => subs.forEach((s) => s.unsubscribe())
}
