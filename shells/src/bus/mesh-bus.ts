// What the controller does on the bus, as typed operations: follow a stream from a durable consumer
// (each message handed over as the core's Heard, acknowledged or handed back only when told), assert
// the streams it needs, ask who serves what ($SRV.INFO) and publish an event. Every failure is a
// BusUnreachable whose words name the bus without its password.
import type { Heard } from "@mesh-core/core/standings/followers"
import { servedOf } from "@mesh-core/core/gate/judging/gathered"
import { Context, Duration, Effect, Layer, Ref } from "effect"
import {
  type Consumer,
  type ConsumerConfig,
  JetStreamApiCodes,
  JetStreamApiError,
  type JsMsg,
} from "@nats-io/jetstream"
import { headers } from "@nats-io/transport-node"
import type { DeliveryNames } from "./delivery-names.ts"
import { assertDeliveryStreams } from "./delivery-streams.ts"
import { infoAnswers } from "./discovery.ts"
import { assertStream, Bus, busError, type BusUnreachable, durableConsumer } from "./nats.ts"
import { type BusNames, epochHeader, saidAtHeader } from "./subjects.ts"

/** How a message is settled: acknowledged once the store kept it, or handed back. */
export interface Settle {
  readonly ack: () => void
  /** Handed back, to come again after `ms`: the store did not keep it. */
  readonly nak: (ms: number) => void
}

/**
 * A message followed: what the core is fed, and how the follower settles it once the store kept it.
 * `settle` is the bus's own message (a JetStream message is one), not a pair of closures made for
 * each: the standings follower settles fifty thousand a run (issue 11).
 */
export interface Delivered {
  readonly heard: Heard
  readonly settle: Settle
}

/** Acknowledges a batch kept. */
export const ackAll = (batch: ReadonlyArray<Delivered>): Effect.Effect<void> =>
  Effect.sync(() => {
    for (const d of batch) d.settle.ack()
  })
/** Hands a batch back, to come again after `ms`. */
export const nakAll = (batch: ReadonlyArray<Delivered>, ms: number): Effect.Effect<void> =>
  Effect.sync(() => {
    for (const d of batch) d.settle.nak(ms)
  })

export interface Follower<E = never> {
  /** Whatever came within a second, at most `max`. */
  readonly next: (max: number) => Effect.Effect<ReadonlyArray<Delivered>, BusUnreachable | E>
}

export interface FollowSpec {
  readonly stream: string
  readonly durable: string
  /** The subjects the stream keeps (a `*` is one token): what the in-memory bus routes by. */
  readonly subjects: ReadonlyArray<string>
  /** The event a subject carries (the standings' subjects carry a prefix). */
  readonly eventOf: (subject: string) => string
  /** Said in an error: what following it is for. */
  readonly what: string
  readonly config?: Partial<ConsumerConfig>
}

/**
 * A stream followed from a position the follower keeps itself (the standings' words, issue 11):
 * the whole stream, whose subjects are `subjects`.
 */
export interface FollowFromSpec extends Omit<FollowSpec, "durable" | "config"> {}

/**
 * Settles nothing: a message followed from a kept position is never acknowledged; handing one back
 * makes the next fetch follow again from the position kept (`followFrom`).
 */
const positioned = (handBack: () => void): Settle => ({ ack: () => undefined, nak: handBack })

/**
 * How long one fetch may take in all, its second's expiry included. The library ends a fetch at its
 * expiry when the bus answers; an ordered consumer's fetch whose bus stops answering (a node frozen,
 * a partition dropping traffic) instead asks for its consumer again and again, with no end
 * (@nats-io/jetstream 3.4's resetPendingWithInfo), and the follower waiting on it keeps nothing more
 * until the bus answers again, if ever on that connection (issue 43).
 */
const fetchBoundMs = 10_000

export class MeshBus extends Context.Service<
  MeshBus,
  {
    readonly follow: (spec: FollowSpec) => Effect.Effect<Follower, BusUnreachable>
    /**
     * Follows a stream from `from` (a stream sequence, asked again whenever a batch was handed back or
     * a fetch failed) with a consumer that asks for no acknowledgement: what was handed out but not
     * kept comes again from the position the follower kept (position.ts).
     */
    readonly followFrom: <E>(spec: FollowFromSpec, from: Effect.Effect<number, E>) => Effect.Effect<Follower<E>>
    /** What a durable consumer acknowledged (its acknowledgement floor), or nothing when there is no such consumer. */
    readonly acknowledgedBy: (stream: string, durable: string) => Effect.Effect<number | undefined, BusUnreachable>
    /** The sequence of a stream's last message (0 for a stream never written). */
    readonly lastSequence: (stream: string) => Effect.Effect<number, BusUnreachable>
    /** Removes a durable consumer; one already gone is not an error. */
    readonly removeDurable: (stream: string, durable: string) => Effect.Effect<void, BusUnreachable>
    readonly assertStandingsStream: (names: BusNames) => Effect.Effect<void, BusUnreachable>
    readonly assertDeliveryStreams: (names: DeliveryNames) => Effect.Effect<void, BusUnreachable>
    /** Who serves what, as the core reads the answers to $SRV.INFO (only this mesh's count). */
    readonly served: (
      mesh: string,
    ) => Effect.Effect<Record<string, { runtime: boolean; tools: Array<string> }>, BusUnreachable>
    /** Publishes on a stream's subject; `saidAt` is the Mesh-At header a word carries. */
    /** `epoch`: the controller lease's, for an act of the controller (a header, `Mesh-Epoch`). */
    readonly publish: (
      subject: string,
      body: string,
      saidAt?: string,
      epoch?: number,
    ) => Effect.Effect<void, BusUnreachable>
  }
>()("mesh-core/bus/MeshBus") {
  static readonly layer = Layer.effect(
    MeshBus,
    Effect.gen(function* () {
      const bus = yield* Bus
      const withBus = <A, E>(e: Effect.Effect<A, E, Bus>) => Effect.provideService(e, Bus, bus)
      const io =
        (span: string, what: string) =>
        <A>(f: () => Promise<A>) =>
          Effect.tryPromise({ try: f, catch: busError(bus.url, what) }).pipe(Effect.withSpan(span))
      const fetched = (consumer: Consumer, spec: FollowFromSpec, max: number, settleOf: (m: JsMsg) => Settle) =>
        io(
          "MeshBus.next",
          "",
        )(async () => {
          const out: Array<Delivered> = []
          const messages = await consumer.fetch({ max_messages: max, expires: 1_000 })
          // Given up past its bound: the caller follows again from where it stands (followFrom drops
          // the consumer), rather than wait on a fetch the library never ends.
          const bound = setTimeout(
            () => messages.stop(new Error(`a fetch did not end within ${fetchBoundMs / 1_000} s`)),
            fetchBoundMs,
          )
          try {
            for await (const m of messages) {
              const saidAt = m.headers?.get(saidAtHeader) || undefined
              out.push({
                heard: {
                  subject: m.subject,
                  event: spec.eventOf(m.subject),
                  body: m.string(),
                  seq: m.seq,
                  stream: m.info.stream,
                  receivedAt: Math.floor(m.info.timestampNanos / 1e6),
                  ...(saidAt === undefined ? {} : { saidAt }),
                },
                settle: settleOf(m),
              })
            }
          } finally {
            clearTimeout(bound)
          }
          return out
        })
      const missing = (e: unknown) => e instanceof JetStreamApiError && e.code === JetStreamApiCodes.ConsumerNotFound
      return MeshBus.of({
        followFrom: <E>(spec: FollowFromSpec, from: Effect.Effect<number, E>) =>
          Effect.sync((): Follower<E> => {
            // undefined: follow again from the position kept, at the next fetch.
            let consumer: Consumer | undefined
            let dropped: Consumer | undefined
            const drop = () => {
              if (consumer !== undefined) dropped = consumer
              consumer = undefined
            }
            const settle = positioned(drop)
            return {
              next: (max) =>
                Effect.gen(function* () {
                  if (dropped !== undefined) {
                    const old = dropped
                    dropped = undefined
                    yield* io("MeshBus.followFrom", "")(() => old.delete()).pipe(Effect.ignore)
                  }
                  if (consumer === undefined) {
                    const seq = yield* from
                    // The whole stream, unfiltered: its subjects are the spec's, and a server before 2.10
                    // (Debian's is 2.9) refuses a filter of several subjects.
                    consumer = yield* io(
                      "MeshBus.followFrom",
                      `cannot ${spec.what}: `,
                    )(() => bus.js.consumers.get(spec.stream, { opt_start_seq: seq }))
                  }
                  const c = consumer
                  return yield* fetched(c, spec, max, () => settle).pipe(
                    Effect.tapError(() => Effect.sync(() => c === consumer && drop())),
                  )
                }),
            }
          }),
        acknowledgedBy: (stream, durable) =>
          io(
            "MeshBus.acknowledgedBy",
            `cannot read consumer ${durable} of ${stream}: `,
          )(async () => {
            try {
              return (await bus.jsm.consumers.info(stream, durable)).ack_floor.stream_seq
            } catch (e) {
              if (missing(e)) return undefined
              throw e
            }
          }),
        lastSequence: (stream) =>
          io(
            "MeshBus.lastSequence",
            `cannot read stream ${stream}: `,
          )(async () => (await bus.jsm.streams.info(stream)).state.last_seq),
        removeDurable: (stream, durable) =>
          io(
            "MeshBus.removeDurable",
            `cannot remove consumer ${durable} of ${stream}: `,
          )(async () => {
            try {
              await bus.jsm.consumers.delete(stream, durable)
            } catch (e) {
              if (!missing(e)) throw e
            }
          }),
        follow: (spec) =>
          withBus(durableConsumer(spec.stream, { durable_name: spec.durable, ...spec.config }, spec.what)).pipe(
            // The bus's own message settles itself: no closures made for each (issue 11).
            Effect.map((consumer): Follower => ({ next: (max) => fetched(consumer, spec, max, (m) => m) })),
          ),
        assertStandingsStream: (names) => withBus(assertStream(names)),
        assertDeliveryStreams: (names) =>
          io(
            "MeshBus.assertDeliveryStreams",
            "cannot assert the delivery streams: ",
          )(() => assertDeliveryStreams(bus.jsm, names, bus.replicas)),
        served: (mesh) =>
          io("MeshBus.served", "cannot ask who serves what: ")(async () => servedOf(await infoAnswers(bus.nc), mesh)),
        publish: (subject, body, saidAt, epoch) =>
          io(
            "MeshBus.publish",
            `cannot publish on ${subject}: `,
          )(async () => {
            const h = headers()
            if (saidAt !== undefined) h.set(saidAtHeader, saidAt)
            if (epoch !== undefined) h.set(epochHeader, String(epoch))
            await bus.js.publish(subject, body, saidAt === undefined && epoch === undefined ? {} : { headers: h })
          }),
      })
    }),
  )

  /** In memory, for shell tests: one log of what was published, followed by subject pattern; `served` as given. */
  static readonly layerTest = (served: Record<string, { runtime: boolean; tools: Array<string> }> = {}) =>
    Layer.effect(
      MeshBus,
      Effect.gen(function* () {
        const log = yield* Ref.make<
          ReadonlyArray<{
            readonly subject: string
            readonly body: string
            readonly saidAt?: string
            readonly epoch?: number
          }>
        >([])
        // The messages after `cursor` a spec follows, at most `max`; an empty batch waits a little, as
        // the live fetch waits up to a second for messages, so it is not a busy loop.
        const after = (spec: FollowFromSpec, cursor: number, max: number) =>
          Effect.gen(function* () {
            const all = yield* Ref.get(log)
            const mine = all
              .map((m, i) => ({ m, seq: i + 1 }))
              .filter(({ m, seq }) => seq > cursor && spec.subjects.some((p) => matches(p, m.subject)))
              .slice(0, max)
            if (mine.length === 0) yield* Effect.sleep(Duration.millis(20))
            return mine
          })
        const heardOf = (
          spec: FollowFromSpec,
          m: { readonly subject: string; readonly body: string; readonly saidAt?: string },
          seq: number,
        ) => ({
          subject: m.subject,
          event: spec.eventOf(m.subject),
          body: m.body,
          seq,
          stream: spec.stream,
          ...(m.saidAt === undefined ? {} : { saidAt: m.saidAt }),
        })
        return MeshBus.of({
          follow: (spec) =>
            Effect.gen(function* () {
              let cursor = 0
              return {
                next: (max) =>
                  Effect.gen(function* () {
                    const from = cursor
                    const mine = yield* after(spec, from, max)
                    if (mine.length > 0) cursor = mine.at(-1)!.seq
                    return mine.map(
                      ({ m, seq }): Delivered => ({
                        heard: heardOf(spec, m, seq),
                        settle: { ack: () => undefined, nak: () => void (cursor = Math.min(from, seq - 1)) },
                      }),
                    )
                  }),
              }
            }),
          followFrom: <E>(spec: FollowFromSpec, from: Effect.Effect<number, E>) =>
            Effect.sync((): Follower<E> => {
              // undefined: follow again from the position kept; a batch handed back while another was
              // being fetched leaves the cursor where the hand-back put it.
              let cursor: number | undefined
              let handedBack = 0
              const settle = positioned(() => void ((cursor = undefined), handedBack++))
              return {
                next: (max) =>
                  Effect.gen(function* () {
                    if (cursor === undefined) cursor = (yield* from) - 1
                    const at = handedBack
                    const mine = yield* after(spec, cursor, max)
                    if (mine.length > 0 && at === handedBack) cursor = mine.at(-1)!.seq
                    return mine.map(({ m, seq }): Delivered => ({ heard: heardOf(spec, m, seq), settle }))
                  }),
              }
            }),
          acknowledgedBy: () => Effect.succeed(undefined),
          // One log for every stream: its length is the last sequence any stream has given.
          lastSequence: () => Effect.map(Ref.get(log), (all) => all.length),
          removeDurable: () => Effect.void,
          assertStandingsStream: () => Effect.void,
          assertDeliveryStreams: () => Effect.void,
          served: () => Effect.succeed(served),
          publish: (subject, body, saidAt, epoch) =>
            Ref.update(log, (l) => [
              ...l,
              { subject, body, ...(saidAt === undefined ? {} : { saidAt }), ...(epoch === undefined ? {} : { epoch }) },
            ]),
        })
      }),
    )
}

/** A NATS subject pattern: `*` one token, `>` the rest. */
const matches = (pattern: string, subject: string): boolean => {
  const p = pattern.split(".")
  const s = subject.split(".")
  for (let i = 0; i < p.length; i++) {
    if (p[i] === ">") return s.length > i
    if (s[i] === undefined || (p[i] !== "*" && p[i] !== s[i])) return false
  }
  return p.length === s.length
}
