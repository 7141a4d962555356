// The bus: one NATS connection with JetStream, as a layer. A server that does not answer is said
// with its URL, never waited on in silence.
import { natsConnectOptions } from "../bus-credentials.ts"
import { connect, headers, type NatsConnection } from "@nats-io/transport-node"
import {
  AckPolicy,
  type Consumer,
  type ConsumerConfig,
  DeliverPolicy,
  jetstream,
  type JetStreamClient,
  jetstreamManager,
  type JetStreamManager,
  type JsMsg,
  RetentionPolicy,
  StorageType,
} from "@nats-io/jetstream"
import { Kvm } from "@nats-io/kv"
import type { Membership } from "@mesh-core/core/delivery/compose"
import { Context, Data, Effect, Layer, Redacted, type Scope, Stream } from "effect"
import { ControllerSettings } from "../config.ts"
import { printableUrl, withoutSecrets } from "@mesh-core/core/text/connection-url"
import { makeOutage, untilItAnswers } from "../retry.ts"
import type { DeliveryNames, Envelope } from "./delivery-names.ts"
import * as Delivery from "./delivery-streams.ts"
import { answerAsNodeTools as answerInfo } from "./discovery.ts"
import { type BusNames, saidAtHeader } from "./subjects.ts"
import { errorText } from "@mesh-core/core/text/error-text"

export class BusUnreachable extends Data.TaggedError("BusUnreachable")<{
  readonly url: string
  readonly reason: string
  readonly cause?: unknown
}> {
  override get message(): string {
    return `the bus at ${this.url} is not answering: ${this.reason}`
  }
}

/** The connection: one NATS client with JetStream. `url` is as it may be printed (no password). */
export class Bus extends Context.Service<
  Bus,
  {
    readonly url: string
    readonly nc: NatsConnection
    readonly js: JetStreamClient
    readonly jsm: JetStreamManager
    /** The copies each stream and bucket the mesh makes keeps (MESH_BUS_REPLICAS; 3 on a cluster). */
    readonly replicas: number
  }
>()("mesh-core/Bus") {
  /** The bus `serve` uses, from its settings: waited for under untilItAnswers when it does not answer at start (said once). */
  static readonly layer = Layer.effect(
    Bus,
    Effect.gen(function* () {
      const settings = yield* ControllerSettings
      const outage = yield* makeOutage("controller")
      const bus = yield* open(Redacted.value(settings.natsUrl), settings.busReplicas).pipe(
        Effect.tapError((e) => outage.failed(e)),
        Effect.retry(untilItAnswers),
      )
      yield* outage.answered
      return bus
    }),
  )
}

/** A bus failure as it may be said: the URL without its password, and no spelling of the password in the reason (issue 14). */
export const busError =
  (url: string, what = "") =>
  (e: unknown) =>
    new BusUnreachable({ url: printableUrl(url), reason: `${what}${withoutSecrets(errorText(e), url)}`, cause: e })

export const open = (url: string, replicas = 1) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const nc = await connect({
          ...natsConnectOptions(url),
          name: "mesh-core",
          maxReconnectAttempts: -1,
          reconnectTimeWait: 250,
          timeout: 3_000,
        })
        return { url: printableUrl(url), nc, js: jetstream(nc), jsm: await jetstreamManager(nc), replicas }
      },
      catch: busError(url),
    }),
    ({ nc }) => Effect.tryPromise(() => nc.drain()).pipe(Effect.ignore),
  )

export const layer = (url: string, replicas = 1) => Layer.effect(Bus, open(url, replicas))

const week = 7 * 24 * 3_600 * 1e9

/**
 * The stream that keeps providers' words, asserted on every start rather than created once: a
 * stream somebody deleted, or a bus whose data directory was replaced, would otherwise leave a
 * controller that hears nothing while everything about it looks correct.
 */
export const assertStream = Effect.fn("Bus.assertStream")(function* (names: BusNames) {
  const { jsm, url, replicas } = yield* Bus
  yield* Effect.tryPromise({
    try: async () => {
      const config = {
        name: names.stream,
        num_replicas: replicas,
        subjects: [names.failing, names.recovered],
        retention: RetentionPolicy.Limits,
        storage: StorageType.File,
        max_age: week,
        duplicate_window: 120 * 1e9,
      }
      try {
        await jsm.streams.info(names.stream)
        await jsm.streams.update(names.stream, config)
      } catch {
        await jsm.streams.add(config)
      }
    },
    catch: (e) =>
      new BusUnreachable({ url, reason: `cannot assert stream ${names.stream}: ${errorText(e)}`, cause: e }),
  })
})

/**
 * A durable consumer on a stream, created if need be: how the controller and the engines hear what
 * was said while they were away. `what` names it in an error.
 */
export const durableConsumer = Effect.fn("Bus.durableConsumer")(function* (
  stream: string,
  config: Partial<ConsumerConfig> & { durable_name: string },
  what: string,
) {
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
export const nextBatch = Effect.fn("Bus.nextBatch")(function* (consumer: Consumer, max: number) {
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

/**
 * A connection of its own to `url` for one command (`status`, a verb): no reconnecting, closed when
 * the scope closes. Not answering is a BusUnreachable naming the bus without its password.
 */
export const openOnce = (url: string): Effect.Effect<Bus["Service"], BusUnreachable, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const nc = await connect({ ...natsConnectOptions(url), timeout: 3_000, maxReconnectAttempts: 0 })
        // No API check: a command that only asks a question makes no JetStream round trip it does not need.
        return {
          url: printableUrl(url),
          nc,
          js: jetstream(nc),
          jsm: await jetstreamManager(nc, { checkAPI: false }),
          // A command's own connection makes no stream or bucket the controller has not made.
          replicas: 1,
        }
      },
      catch: busError(url),
    }),
    ({ nc }) => Effect.tryPromise(() => nc.close()).pipe(Effect.ignore),
  )

/** A round trip to the bus's server: readiness's probe. */
export const ping = Effect.fn("Bus.ping")(function* () {
  const { nc, url } = yield* Bus
  yield* Effect.tryPromise({ try: () => nc.flush(), catch: busError(url) })
})

/** One request and its reply's text, waited for `timeoutMs` at most (a verb sent to a controller). */
export const request = Effect.fn("Bus.request")(function* (subject: string, body: string, timeoutMs: number) {
  const { nc, url } = yield* Bus
  return yield* Effect.tryPromise({
    try: async () => (await nc.request(subject, body, { timeout: timeoutMs })).string(),
    catch: busError(url),
  })
})

/** Publishes on a stream's subject and answers once the stream has it; `what` says in an error what was not taken. */
export const publish = Effect.fn("Bus.publish")(function* (subject: string, body: string, what = "") {
  const { js, url } = yield* Bus
  yield* Effect.tryPromise({ try: () => js.publish(subject, body), catch: busError(url, what) })
})

/**
 * A durable consumer of one subject of a stream that starts at the last message of it: how a machine
 * hears its own declarations (the newest one first, then each one sent after).
 */
export const hearLatest = Effect.fn("Bus.hearLatest")(function* (
  stream: string,
  durable: string,
  subject: string,
  what: string,
) {
  return yield* durableConsumer(
    stream,
    { durable_name: durable, filter_subject: subject, deliver_policy: DeliverPolicy.LastPerSubject },
    what,
  )
})

/** Answers $SRV.INFO as the node tools of a machine (the simulated engine), until the scope closes. */
export const answerAsNodeTools = Effect.fn("Bus.answerAsNodeTools")(function* (
  mesh: string,
  node: string,
  tools: () => ReadonlyArray<string>,
) {
  const { nc } = yield* Bus
  yield* Effect.acquireRelease(
    Effect.sync(() => answerInfo(nc, mesh, node, tools)),
    (stop) => Effect.sync(stop),
  )
})

/** The streams delivery needs, asserted (docs/delivery.md). */
export const assertDeliveryStreams = Effect.fn("Bus.assertDeliveryStreams")(function* (names: DeliveryNames) {
  const { jsm, url, replicas } = yield* Bus
  yield* Effect.tryPromise({ try: () => Delivery.assertDeliveryStreams(jsm, names, replicas), catch: busError(url) })
})

/**
 * The buckets and logs the mesh makes, each asserted (made when absent, in MESH_BUS_REPLICAS copies):
 * raiseTheBus's acts (delivery/raise.ts). A bucket made before keeps its copies; a log's stream is
 * updated to them.
 */
export const raiseBuckets = Effect.fn("Bus.raiseBuckets")(function* (buckets: ReadonlyArray<string>) {
  const { nc, url, replicas } = yield* Bus
  yield* Effect.tryPromise({
    try: async () => {
      const kvm = new Kvm(nc)
      for (const b of buckets) await kvm.create(b, { history: 1, replicas })
    },
    catch: busError(url, "cannot raise the mesh's buckets: "),
  })
})

export const raiseLogs = Effect.fn("Bus.raiseLogs")(function* (
  logs: ReadonlyArray<{ readonly stream: string; readonly subject: string }>,
) {
  const { jsm, url, replicas } = yield* Bus
  yield* Effect.tryPromise({
    try: async () => {
      for (const l of logs)
        await Delivery.assertStreamConfig(jsm, {
          name: l.stream,
          subjects: [l.subject],
          retention: RetentionPolicy.Limits,
          storage: StorageType.File,
          num_replicas: replicas,
        })
    },
    catch: busError(url, "cannot raise the modules' logs: "),
  })
})

/** The names of every stream the bus holds (a bucket's is `KV_<bucket>`): what raiseTheBus compares with the catalogue. */
export const streamNames = Effect.fn("Bus.streamNames")(function* () {
  const { jsm, url } = yield* Bus
  return yield* Effect.tryPromise({
    try: async () => {
      const out: Array<string> = []
      for await (const name of jsm.streams.names()) out.push(name)
      return out
    },
    catch: busError(url, "cannot list the bus's streams: "),
  })
})

/** The most bytes the bus's server takes in one message (its max_payload; NATS's default is 1 MiB). */
export const maxPayload = Effect.map(Bus, ({ nc }) => nc.info?.max_payload ?? 1024 * 1024)

/** One machine's declaration, sent and taken by the stream; `epoch` the controller lease's, when sent under it. */
export const publishDeclaration = Effect.fn("Bus.publishDeclaration")(function* (
  names: DeliveryNames,
  node: string,
  envelope: Envelope,
  epoch?: number,
) {
  const { nc, url } = yield* Bus
  yield* Effect.tryPromise({
    try: () => Delivery.publishDeclaration(nc, names, node, envelope, epoch),
    catch: busError(url),
  })
})

/** The machines' grants: state buckets, then memberships (each carrying `epoch` under the lease); what the bus refused is in the outcome. */
export const issueGrants = Effect.fn("Bus.issueGrants")(function* (
  names: DeliveryNames,
  memberships: ReadonlyArray<Membership>,
  epoch?: number,
) {
  const { nc, url, replicas } = yield* Bus
  return yield* Effect.tryPromise({
    try: () => Delivery.issueGrants(nc, names, memberships, epoch, replicas),
    catch: busError(url),
  })
})

/**
 * A provider's way onto the bus: a connection made when first needed and kept (reconnecting for
 * ever), so a provider cut off from the bus keeps reconciling and its announcements wait (issue 14).
 */
export interface Outlet {
  /** Connects, if not yet connected. */
  readonly connect: Effect.Effect<void, BusUnreachable>
  /** Publishes a word said at `saidAt`, answered once the stream has it; `msgID` lets the stream drop a resend that had landed. */
  readonly publish: (
    subject: string,
    body: string,
    options: { readonly msgID: string; readonly saidAt: string; readonly timeoutMs: number },
  ) => Effect.Effect<void, BusUnreachable>
  /** Drains the connection, if one was made. */
  readonly drain: Effect.Effect<void, BusUnreachable>
}

export const outlet = (url: string, name: string): Outlet => {
  let nc: NatsConnection | undefined
  const connected = Effect.tryPromise({
    try: async () =>
      (nc ??= await connect({
        ...natsConnectOptions(url),
        name,
        maxReconnectAttempts: -1,
        reconnectTimeWait: 250,
        timeout: 3_000,
      })),
    catch: busError(url),
  })
  return {
    connect: Effect.asVoid(connected).pipe(Effect.withSpan("Bus.connect")),
    publish: (subject, body, { msgID, saidAt, timeoutMs }) =>
      Effect.flatMap(connected, (conn) =>
        Effect.tryPromise({
          try: () => {
            const h = headers()
            h.set(saidAtHeader, saidAt)
            return jetstream(conn).publish(subject, body, { msgID, headers: h, timeout: timeoutMs })
          },
          catch: busError(url),
        }),
      ).pipe(Effect.asVoid, Effect.withSpan("Bus.publish")),
    drain: Effect.suspend(() =>
      nc === undefined ? Effect.void : Effect.tryPromise({ try: () => nc!.drain(), catch: busError(url) }),
    ),
  }
}

/** A request heard on a subject: its body, and how to answer it. */
export interface BusRequest {
  readonly body: string
  readonly respond: (reply: string) => Effect.Effect<void>
}

/**
 * The requests sent on `subject`, heard from now until the scope closes (the subscription is made
 * here, so a request sent once this answers is heard); the stream ends in a BusUnreachable when the
 * bus ends the subscription.
 */
export const requests = Effect.fn("Bus.requests")(function* (subject: string) {
  const { nc, url } = yield* Bus
  const sub = yield* Effect.acquireRelease(
    Effect.sync(() => nc.subscribe(subject)),
    (s) => Effect.sync(() => s.unsubscribe()),
  )
  return Stream.map(
    Stream.fromAsyncIterable(sub, busError(url, `the verb subject ${subject}: `)),
    (m): BusRequest => ({ body: m.string(), respond: (reply) => Effect.sync(() => void m.respond(reply)) }),
  )
})
