// Who serves what, asked on the bus the NATS services way: a request on $SRV.INFO that every
// service answers (io.nats.micro.v1.info_response), gathered until the answers stop coming for a
// moment or the patience runs out. Which answers count is the core's (core/src/gate/judging/gathered.ts). The node tools on each machine answer as the service
// `node-tools`, naming their machine, and each module's tools as endpoints of kind `tool`.
import type { NatsConnection } from "@nats-io/transport-node"
import { servedOf } from "@mesh-core/core/gate/judging/gathered"
import type { Served } from "@mesh-core/core/gate/judging/facts"

/** How long to wait for answers at most, and how long a pause in them ends the asking. */
const discoveryPatience = 2_000
const discoveryQuiet = 300

/** Every answer's body, gathered until they stop coming for `quiet` or `patience` runs out. No responders is no answers. */
export const infoAnswers = async (
  nc: NatsConnection,
  patience = discoveryPatience,
  quiet = discoveryQuiet,
): Promise<Array<string>> => {
  const bodies: Array<string> = []
  let replies: AsyncIterable<{ string: () => string }>
  try {
    replies = await nc.requestMany("$SRV.INFO", "", { strategy: "stall", maxWait: patience, stall: quiet })
  } catch (e) {
    if (/no responders|503/i.test(String(e))) return bodies
    throw e
  }
  try {
    for await (const m of replies) bodies.push(m.string())
  } catch (e) {
    if (!/no responders|503/i.test(String(e))) throw e
  }
  return bodies
}

/** The machines whose node tools answer, and which modules' tools each serves; which count is the core's (servedOf). */
export const servedOnTheBus = async (
  nc: NatsConnection,
  mesh: string,
  patience = discoveryPatience,
  quiet = discoveryQuiet,
): Promise<Map<string, Served>> => new Map(Object.entries(servedOf(await infoAnswers(nc, patience, quiet), mesh)))

/** Answers $SRV.INFO as the node tools of a machine: what the simulated engine serves. */
export const answerAsNodeTools = (
  nc: NatsConnection,
  mesh: string,
  node: string,
  tools: () => ReadonlyArray<string>,
) => {
  const info = () => ({
    type: "io.nats.micro.v1.info_response",
    name: "node-tools",
    id: `node-tools-${node}`,
    version: "0.1.0",
    description: `the node tools on ${node}`,
    metadata: { mesh, node },
    endpoints: tools().map((module) => ({
      name: `${module}-tools`,
      subject: `${mesh ? `${mesh}.` : ""}tools.${node}.${module}`,
      queue_group: "q",
      metadata: { kind: "tool", module, node },
    })),
  })
  const subs = ["$SRV.INFO", "$SRV.INFO.node-tools", `$SRV.INFO.node-tools.node-tools-${node}`].map((subject) =>
    nc.subscribe(subject, { callback: (_err, m) => void m.respond(JSON.stringify(info())) }),
  )
  return () => {
    for (const s of subs) s.unsubscribe()
  }
}
