// The controller keeps what each machine's engine states of the health of what it runs (ADR 0240):
// the newest statement per machine, and the module.<module>.<machine>.unhealthy conditions the core
// raises and clears from them.
import type { JsMsg } from "@nats-io/jetstream"
import type { Statement } from "@mesh-core/core/gate/facts"
import { Effect } from "effect"
import { Bus, BusUnreachable, durableConsumer } from "../bus/nats.ts"
import { assertDeliveryStreams, type DeliveryNames } from "../delivery/wire.ts"
import { say } from "../journal.ts"
import { keepStatement } from "../store/gate.ts"
import { keepEach } from "./keep-each.ts"
import { Store } from "../store/postgres.ts"

const reasonOf = (e: unknown): string => (e instanceof Error ? e.message : String(e))

const statementOf = (m: JsMsg): Statement | undefined => {
  try {
    const r = m.json<{ machine?: unknown; at?: unknown; resources?: unknown }>()
    const at = Date.parse(String(r.at))
    if (typeof r.machine !== "string" || !Number.isFinite(at) || !Array.isArray(r.resources)) return undefined
    const resources = r.resources.map((x: Record<string, unknown>) => ({
      resource: String(x["resource"]), module: String(x["module"]),
      state: (["healthy", "starting", "unhealthy"].includes(String(x["state"])) ? x["state"] : "unhealthy") as Statement["resources"][number]["state"],
      reason: typeof x["reason"] === "string" ? x["reason"] : undefined,
    }))
    return { machine: r.machine, at, resources }
  } catch {
    return undefined
  }
}

export const followHealth = (names: DeliveryNames) =>
  Effect.gen(function*() {
    const { jsm, url } = yield* Bus
    const { sql } = yield* Store
    yield* Effect.tryPromise({ try: () => assertDeliveryStreams(jsm, names), catch: (e) => new BusUnreachable({ url, reason: reasonOf(e) }) })
    const consumer = yield* durableConsumer(names.health, { durable_name: "controller-health" }, "follow the machines' health")
    yield* say(`[controller] following what the machines state of their health from stream ${names.health}`)
    return yield* keepEach(consumer, "statement", statementOf, (st) => keepStatement(sql, st), (kept) => [
      ...kept.raise.map((r) => `[controller] raised ${r.key}: ${r.summary}`),
      ...kept.clear.map((k) => `[controller] cleared ${k}`),
    ])
  })
