// raiseTheBus (seeds 002 and 004; issue 28): on every start of a term, before anything is granted, the
// mesh's streams, the controller's buckets, every state bucket and every log the catalogue declares,
// each asserted; what the bus holds that nothing declares said and kept; one line said. What to raise
// and every word said are the core's (core/src/delivery/raise.ts); this reads, makes and says.
import { declared, raisedSaid, undeclared, undeclaredSaid } from "@mesh-core/core/delivery/raise"
import { Effect } from "effect"
import type { DeliveryNames } from "../bus/delivery-names.ts"
import { assertDeliveryStreams, assertStream, Bus, raiseBuckets, raiseLogs, streamNames } from "../bus/nats.ts"
import type { BusNames } from "../bus/subjects.ts"
import { say } from "../journal.ts"
import { DeliveryStore } from "../store/delivery.ts"

export const raiseTheBus = Effect.fn("Delivery.raiseTheBus")(function* (names: DeliveryNames, words: BusNames) {
  const { url } = yield* Bus
  const records = yield* (yield* DeliveryStore).records
  // The mesh's own streams first: what the providers' words, the declarations, the reports, the
  // health statements, the witnesses' verdicts and the events travel in.
  yield* assertStream(words)
  yield* assertDeliveryStreams(names)
  const states = declared(records, "states")
  const logs = declared(records, "logs")
  // The controller's own bucket, then every declared state's, before any membership names one.
  yield* raiseBuckets([names.memberships, ...states.map(names.stateBucket)])
  yield* raiseLogs(logs.map((l) => ({ stream: names.logStream(l), subject: names.logSubject(l) })))
  const held = yield* streamNames()
  const statePrefix = `KV_${names.stateBucket("")}`
  const logPrefix = names.logStream("")
  const heldStates = held.filter((n) => n.startsWith(statePrefix)).map((n) => n.slice("KV_".length))
  const heldLogs = held.filter((n) => n.startsWith(logPrefix))
  for (const line of [
    undeclaredSaid("states", undeclared(states.map(names.stateBucket), heldStates)),
    undeclaredSaid("logs", undeclared(logs.map(names.logStream), heldLogs)),
  ])
    if (line !== undefined) yield* say(`[controller] ${line}`)
  yield* say(
    `[controller] ${raisedSaid({ url, machines: records?.nodes.length ?? 0, buckets: states.length, logs: logs.length })}`,
  )
})
