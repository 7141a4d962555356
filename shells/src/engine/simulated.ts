// A simulated node engine (`mesh-controller node-engine --simulate NAME`): enough of a machine for
// push to be tried end to end. It hears its own subject, verifies each declaration against the
// controller's key it was given (never one read from the bus), lets the core judge it, "applies"
// what is accepted, and reports applied, failed or refused.
import { AckPolicy, DeliverPolicy, jetstream, type JsMsg } from "@nats-io/jetstream"
import { type EngineMemory, judgeArrival } from "@mesh-core/core/delivery/engine"
import { Clock, Effect } from "effect"
import { Bus, BusUnreachable } from "../bus/nats.ts"
import { assertDeliveryStreams, type DeliveryNames, type Envelope } from "../delivery/wire.ts"
import { verifier } from "../identity.ts"
import { say } from "../journal.ts"

export interface EngineOptions {
  readonly node: string
  readonly trustPem: string
  /** Modules whose resources fail to apply here, to try a machine that fails. */
  readonly failing: ReadonlySet<string>
  readonly names: DeliveryNames
}

const reasonOf = (e: unknown): string => (e instanceof Error ? e.message : String(e))

const arrivalOf = (m: JsMsg, verify: (body: string, signature: string) => boolean) => {
  try {
    const e = JSON.parse(m.string()) as Partial<Envelope>
    if (typeof e.body !== "string" || typeof e.signature !== "string") return { body: m.string(), signatureVerifies: false }
    return { body: e.body, signatureVerifies: verify(e.body, e.signature) }
  } catch {
    return { body: m.string(), signatureVerifies: false }
  }
}

export const runEngine = (o: EngineOptions) =>
  Effect.gen(function*() {
    const { nc, js, jsm, url } = yield* Bus
    const verify = verifier(o.trustPem)
    const consumer = yield* Effect.tryPromise({
      try: async () => {
        await assertDeliveryStreams(jsm, o.names)
        await jsm.consumers.add(o.names.declarations, {
          durable_name: `engine-${o.node}`, filter_subject: o.names.declareSubject(o.node),
          ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.LastPerSubject,
        })
        return js.consumers.get(o.names.declarations, `engine-${o.node}`)
      },
      catch: (e) => new BusUnreachable({ url, reason: `cannot hear declarations for ${o.node}: ${reasonOf(e)}` }),
    })
    yield* say(`[engine ${o.node}] hearing ${o.names.declareSubject(o.node)}`)
    let memory: EngineMemory = { lastApplied: undefined }
    for (;;) {
      const messages = yield* Effect.tryPromise({
        try: async () => {
          const out: Array<JsMsg> = []
          for await (const m of await consumer.fetch({ max_messages: 10, expires: 1_000 })) out.push(m)
          return out
        },
        catch: (e) => new BusUnreachable({ url, reason: reasonOf(e) }),
      })
      for (const m of messages) {
        const judged = judgeArrival(memory, o.node, arrivalOf(m, verify), o.failing)
        memory = judged.memory
        const at = new Date(yield* Clock.currentTimeMillis).toISOString()
        const report = { node: o.node, digest: judged.digest, sequence: judged.sequence, outcome: judged.outcome, refused: judged.refused ?? null, failed: judged.failed, at }
        yield* Effect.tryPromise({
          try: () => jetstream(nc).publish(o.names.reportSubject(o.node), JSON.stringify(report)),
          catch: (e) => new BusUnreachable({ url, reason: `the report was not taken: ${reasonOf(e)}` }),
        })
        m.ack()
        yield* say(judged.outcome === "refused"
          ? `[engine ${o.node}] refused: ${judged.refused}`
          : `[engine ${o.node}] ${judged.outcome} sequence ${judged.sequence}: ${judged.modules.join(", ") || "nothing"}` +
            (judged.failed.length > 0 ? ` (failed: ${judged.failed.join(", ")})` : ""))
      }
    }
  })
