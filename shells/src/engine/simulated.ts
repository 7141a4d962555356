// A simulated node engine (`mesh-controller node-engine --simulate NAME`): enough of a machine for
// push to be tried end to end. It hears its own subject, verifies each declaration against the
// controller's key it was given (never one read from the bus), lets the core judge it, "applies"
// what is accepted, and reports applied, failed or refused.
import { type EngineMemory, judgeArrival } from "@mesh-core/core/delivery/engine"
import type { ReportMessage } from "@mesh-core/core/delivery/messages"
import type { StatementMessage } from "@mesh-core/core/gate/messages/messages"
import { Clock, Duration, Effect } from "effect"
import { answerAsNodeTools, assertDeliveryStreams, hearLatest, nextBatch, publish } from "../bus/nats.ts"
import type { DeliveryNames, Envelope } from "../bus/delivery-names.ts"
import { verifier } from "../delivery/identity.ts"
import { say } from "../journal.ts"
import { makeOutage, untilItAnswers } from "../retry.ts"

export interface EngineOptions {
  readonly node: string
  readonly trustPem: string
  /** Modules whose resources fail to apply here, to try a machine that fails. */
  readonly failing: ReadonlySet<string>
  /** Modules (`module`, or `module@build` for one build of it) that apply and then crash-loop here. */
  readonly crashing: ReadonlySet<string>
  /** How often it states the health of what it runs (ADR 0240). */
  readonly stateEvery: number
  /**
   * The capabilities it has a detector for, said in every report (seed 002's reportUnhostable);
   * undefined: it never says, as an engine that predates saying it.
   */
  readonly detects?: ReadonlyArray<string> | undefined
  readonly names: DeliveryNames
}

const arrivalOf = (text: string, verify: (body: string, signature: string) => boolean) => {
  try {
    const e = JSON.parse(text) as Partial<Envelope>
    if (typeof e.body !== "string" || typeof e.signature !== "string") return { body: text, signatureVerifies: false }
    return { body: e.body, signatureVerifies: verify(e.body, e.signature) }
  } catch {
    return { body: text, signatureVerifies: false }
  }
}

export const runEngine = Effect.fn("Engine.run")(function* (o: EngineOptions) {
  const verify = verifier(o.trustPem)
  // A bus that does not answer is waited out, said once, from the start (the soak found engines ending,
  // exit 3, when the bus did not answer in time): a machine keeps running what it was sent.
  const outage = yield* makeOutage(`engine ${o.node}`)
  const waitingOut = <A, E extends { readonly _tag: string; readonly message: string }, R>(e: Effect.Effect<A, E, R>) =>
    e.pipe(
      Effect.tapError((x) => outage.failed(x)),
      Effect.retry(untilItAnswers),
      Effect.tap(() => outage.answered),
    )
  yield* waitingOut(assertDeliveryStreams(o.names))
  const consumer = yield* waitingOut(
    hearLatest(
      o.names.declarations,
      `engine-${o.node}`,
      o.names.declareSubject(o.node),
      `hear declarations for ${o.node}`,
    ),
  )
  yield* say(`[engine ${o.node}] hearing ${o.names.declareSubject(o.node)}`)
  let memory: EngineMemory = { lastApplied: undefined }
  let running: ReadonlyArray<{ readonly module: string; readonly build: string }> = []
  // It answers for the node tools on its machine, and states what it runs every so often.
  yield* answerAsNodeTools(o.names.mesh, o.node, () => [])
  const state = Effect.gen(function* () {
    const at = new Date(yield* Clock.currentTimeMillis).toISOString()
    // Spelled by the Schemas the controller reads them with (the controller's listener and this sender share them).
    const resources: (typeof StatementMessage.Encoded)["resources"] = running.map(({ module, build }) =>
      o.crashing.has(module) || o.crashing.has(`${module}@${build}`)
        ? {
            resource: `${module}-main`,
            module,
            state: "unhealthy",
            reason: "exited with code 137, restarting (crash loop)",
          }
        : { resource: `${module}-main`, module, state: "healthy" },
    )
    yield* publish(o.names.healthSubject(o.node), JSON.stringify({ machine: o.node, at, resources })).pipe(
      Effect.ignore,
    )
  })
  yield* Effect.forkScoped(Effect.forever(Effect.andThen(state, Effect.sleep(Duration.millis(o.stateEvery)))))
  for (;;) {
    const messages = yield* waitingOut(nextBatch(consumer, 10))
    for (const m of messages) {
      const judged = judgeArrival(memory, o.node, arrivalOf(m.string(), verify), o.failing)
      memory = judged.memory
      if (judged.outcome !== "refused") running = judged.builds
      const at = new Date(yield* Clock.currentTimeMillis).toISOString()
      const report: typeof ReportMessage.Encoded = {
        node: o.node,
        digest: judged.digest,
        sequence: judged.sequence,
        outcome: judged.outcome,
        refused: judged.refused ?? null,
        failed: judged.failed,
        at,
        ...(o.detects === undefined ? {} : { detects: o.detects }),
      }
      yield* waitingOut(publish(o.names.reportSubject(o.node), JSON.stringify(report), "the report was not taken: "))
      m.ack()
      yield* say(
        judged.outcome === "refused"
          ? `[engine ${o.node}] refused: ${judged.refused}`
          : `[engine ${o.node}] ${judged.outcome} sequence ${judged.sequence}: ${judged.builds.map((b) => b.module).join(", ") || "nothing"}` +
              (judged.failed.length > 0 ? ` (failed: ${judged.failed.join(", ")})` : ""),
      )
    }
  }
})
