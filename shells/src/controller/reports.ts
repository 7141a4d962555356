// The controller keeps what each machine last reported of a declaration: what `push --behind` and
// `push --wait` read. From a durable consumer, so reports made while it was down are read later.
import type { JsMsg } from "@nats-io/jetstream"
import type { Report } from "@mesh-core/core/delivery/behind"
import { Effect } from "effect"
import { Bus, BusUnreachable, durableConsumer } from "../bus/nats.ts"
import { assertDeliveryStreams, type DeliveryNames } from "../delivery/wire.ts"
import { say } from "../journal.ts"
import { Store } from "../store/postgres.ts"
import { recordReport } from "../store/delivery.ts"
import { keepEach } from "./keep-each.ts"

const reasonOf = (e: unknown): string => (e instanceof Error ? e.message : String(e))

const reportOf = (m: JsMsg): Report | undefined => {
  try {
    const r = m.json<Record<string, unknown>>()
    const at = Date.parse(String(r["at"]))
    if (typeof r["node"] !== "string" || typeof r["digest"] !== "string" || typeof r["sequence"] !== "number" || !Number.isFinite(at)) return undefined
    if (r["outcome"] !== "applied" && r["outcome"] !== "failed" && r["outcome"] !== "refused") return undefined
    return {
      node: r["node"], digest: r["digest"], sequence: r["sequence"], outcome: r["outcome"], at,
      refused: typeof r["refused"] === "string" ? r["refused"] : undefined,
      failed: Array.isArray(r["failed"]) ? r["failed"].map(String) : [],
    }
  } catch {
    return undefined
  }
}

export const followReports = (names: DeliveryNames) =>
  Effect.gen(function*() {
    const { jsm, url } = yield* Bus
    const { sql } = yield* Store
    yield* Effect.tryPromise({ try: () => assertDeliveryStreams(jsm, names), catch: (e) => new BusUnreachable({ url, reason: reasonOf(e) }) })
    const consumer = yield* durableConsumer(names.reports, { durable_name: "controller-reports" }, "follow the machines' reports")
    yield* say(`[controller] following the machines' reports from stream ${names.reports}`)
    return yield* keepEach(consumer, "report", reportOf, (r) => recordReport(sql, r))
  })
