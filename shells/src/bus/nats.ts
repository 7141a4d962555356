// The bus: one NATS connection with JetStream, as a layer. A server that does not answer is said
// with its URL, never waited on in silence.
import { natsConnectOptions } from "../bus-credentials.ts"
import { connect, type NatsConnection } from "@nats-io/transport-node"
import {
  AckPolicy, type Consumer, type ConsumerConfig, DeliverPolicy, jetstream, type JetStreamClient, jetstreamManager, type JetStreamManager, type JsMsg,
  RetentionPolicy, StorageType,
} from "@nats-io/jetstream"
import { Context, Data, Effect, Layer, Redacted } from "effect"
import { ControllerSettings, redactUrl, withoutPassword } from "../config.ts"
import { makeOutage, untilItAnswers } from "../retry.ts"
import type { BusNames } from "./subjects.ts"
import { errorText } from "@mesh-core/core/error-text"

export class BusUnreachable extends Data.TaggedError("BusUnreachable")<{ readonly url: string; readonly reason: string; readonly cause?: unknown }> {
  override get message(): string {
    return `the bus at ${this.url} is not answering: ${this.reason}`
  }
}

/** The connection: one NATS client with JetStream. `url` is as it may be printed (no password). */
export class Bus extends Context.Service<Bus, {
  readonly url: string
  readonly nc: NatsConnection
  readonly js: JetStreamClient
  readonly jsm: JetStreamManager
}>()("mesh-core/Bus") {
  /** The bus `serve` uses, from its settings: waited for under untilItAnswers when it does not answer at start (said once). */
  static readonly layer = Layer.effect(Bus, Effect.gen(function*() {
    const settings = yield* ControllerSettings
    const outage = yield* makeOutage("controller")
    const bus = yield* open(Redacted.value(settings.natsUrl)).pipe(Effect.tapError((e) => outage.failed(e)), Effect.retry(untilItAnswers))
    yield* outage.answered
    return bus
  }))
}

/** A bus failure as it may be said: the URL without its password, and no spelling of the password in the reason (issue 14). */
export const busError = (url: string, what = "") => (e: unknown) =>
  new BusUnreachable({ url: redactUrl(url), reason: `${what}${withoutPassword(errorText(e), url)}`, cause: e })

export const open = (url: string) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const nc = await connect({ ...natsConnectOptions(url), name: "mesh-core", maxReconnectAttempts: -1, reconnectTimeWait: 250, timeout: 3_000 })
        return { url: redactUrl(url), nc, js: jetstream(nc), jsm: await jetstreamManager(nc) }
      },
      catch: busError(url),
    }),
    ({ nc }) => Effect.tryPromise(() => nc.drain()).pipe(Effect.ignore),
  )

export const layer = (url: string) => Layer.effect(Bus, open(url))

const week = 7 * 24 * 3_600 * 1e9

/**
 * The stream that keeps providers' words, asserted on every start rather than created once: a
 * stream somebody deleted, or a bus whose data directory was replaced, would otherwise leave a
 * controller that hears nothing while everything about it looks correct.
 */
export const assertStream = Effect.fn("Bus.assertStream")(function*(names: BusNames) {
    const { jsm, url } = yield* Bus
    yield* Effect.tryPromise({
      try: async () => {
        const config = {
          name: names.stream, subjects: [names.failing, names.recovered], retention: RetentionPolicy.Limits,
          storage: StorageType.File, max_age: week, duplicate_window: 120 * 1e9,
        }
        try {
          await jsm.streams.info(names.stream)
          await jsm.streams.update(names.stream, config)
        } catch {
          await jsm.streams.add(config)
        }
      },
      catch: (e) => new BusUnreachable({ url, reason: `cannot assert stream ${names.stream}: ${errorText(e)}`, cause: e }),
    })
  })

/**
 * A durable consumer on a stream, created if need be: how the controller and the engines hear what
 * was said while they were away. `what` names it in an error.
 */
export const durableConsumer = Effect.fn("Bus.durableConsumer")(function*(stream: string, config: Partial<ConsumerConfig> & { durable_name: string }, what: string) {
    const { js, jsm, url } = yield* Bus
    return yield* Effect.tryPromise({
      try: async () => {
        await jsm.consumers.add(stream, { ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All, ...config })
        return js.consumers.get(stream, config.durable_name)
      },
      catch: (e) => new BusUnreachable({ url, reason: `cannot ${what}: ${errorText(e)}`, cause: e }),
    })
  })

/** The next batch from a consumer: whatever came within a second, at most `max`. */
export const nextBatch = Effect.fn("Bus.nextBatch")(function*(consumer: Consumer, max: number) {
    const { url } = yield* Bus
    return yield* Effect.tryPromise({
      try: async () => {
        const out: Array<JsMsg> = []
        for await (const m of await consumer.fetch({ max_messages: max, expires: 1_000 })) out.push(m)
        return out
      },
      catch: (e) => new BusUnreachable({ url, reason: errorText(e), cause: e }),
    })
  })
