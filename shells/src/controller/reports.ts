// The controller keeps what each machine last reported of a declaration: what `push --behind` and
// `push --wait` read. From a durable consumer, so reports made while it was down are read later.
import type { JsMsg } from "@nats-io/jetstream"
import type { Report } from "@mesh-core/core/delivery/behind"
import { Effect } from "effect"
import { Bus, BusUnreachable, durableConsumer, nextBatch } from "../bus/nats.ts"
import { assertDeliveryStreams, type DeliveryNames } from "../delivery/wire.ts"
import { say } from "../journal.ts"
import { Store, storeError } from "../store/postgres.ts"
import { recordReport } from "../store/delivery.ts"

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
    const { sql, url: storeUrl } = yield* Store
    yield* Effect.tryPromise({ try: () => assertDeliveryStreams(jsm, names), catch: (e) => new BusUnreachable({ url, reason: reasonOf(e) }) })
    const consumer = yield* durableConsumer(names.reports, { durable_name: "controller-reports" }, "follow the machines' reports")
    yield* say(`[controller] following the machines' reports from stream ${names.reports}`)
    for (;;) {
      const messages = yield* nextBatch(consumer, 100).pipe(Effect.catch(() => Effect.succeed([] as Array<JsMsg>)))
      for (const m of messages) {
        const report = reportOf(m)
        if (report === undefined) {
          yield* say(`[controller] ignored a report on ${m.subject} (stream sequence ${m.seq}): not a report`)
          m.term()
          continue
        }
        const kept = yield* Effect.result(Effect.tryPromise({ try: () => recordReport(sql, report), catch: storeError(storeUrl) }))
        if (kept._tag === "Success") m.ack()
        else {
          yield* say(`[controller] ${kept.failure.message}; the report comes again`)
          m.nak(1_000)
        }
      }
    }
  })
