// The controller follows every provider's provisioner.failing / provisioner.recovered from a
// durable JetStream consumer, so what was said while it was down is read when it comes back, and
// keeps the newest word per provider, machine and consumer in the store (novox/hq ADR 0224).
// A batch is acknowledged only once what it says is written: a word is never acknowledged and lost.
import type { JsMsg } from "@nats-io/jetstream"
import { Effect, Fiber } from "effect"
import { applyWords } from "@mesh-core/core/standings/standings"
import { sortBatch } from "@mesh-core/core/standings/dead-letters"
import { assertStream, durableConsumer, nextBatch } from "../bus/nats.ts"
import { type BusNames, eventOf, saidAtHeader } from "../bus/subjects.ts"
import { say } from "../journal.ts"
import { Store, storeError, type StoreUnreadable } from "../store/postgres.ts"
import { setAside, writeKept } from "../store/standings.ts"

export interface FollowOptions {
  readonly names: BusNames
  /** How many words are kept in one transaction at most. */
  readonly batch?: number
  /** Called after each batch is committed and acknowledged; for tests and benchmarks. */
  readonly onKept?: (words: number) => void
}


/**
 * Keeps one batch: the core sorts it into words to keep and messages to set aside (issue 14: one
 * word the store cannot hold must never fail the batch for ever), both are written, and only then is
 * every message acknowledged. A message set aside is said once, when first kept.
 */
export const keepBatch = (messages: ReadonlyArray<JsMsg>, names: BusNames) =>
  Effect.gen(function*() {
    const { sql, url } = yield* Store
    const { words, setAside: aside } = sortBatch(messages.map((m) => ({
      event: eventOf(m.subject, names), subject: m.subject, stream: m.info.stream, streamSequence: m.seq, body: m.string(),
      saidAt: m.headers?.get(saidAtHeader) || undefined, receivedAt: m.time.getTime(),
    })))
    const fresh = yield* Effect.tryPromise({
      try: async () => {
        await writeKept(sql, applyWords(new Map(), words).writes)
        return setAside(sql, aside)
      },
      catch: storeError(url),
    })
    for (const d of fresh) yield* say(`[controller] set aside a word on ${d.subject} (stream ${d.stream} sequence ${d.streamSequence}): ${d.why}`)
    for (const m of messages) m.ack()
    return words.length
  })

/** Follows the stream until interrupted. A store that fails a batch leaves it unacknowledged, to come again. */
export const followStandings = (options: FollowOptions) =>
  Effect.gen(function*() {
    const { names } = options
    yield* assertStream(names)
    const consumer = yield* durableConsumer(names.stream, { durable_name: names.durable, ack_wait: 30 * 1e9, max_ack_pending: 20_000 }, `follow ${names.stream}`)
    yield* say(`[controller] following ${names.failing} and ${names.recovered} from stream ${names.stream} as ${names.durable}`)
    const batch = options.batch ?? 1_000
    const fetch = nextBatch(consumer, batch).pipe(
      Effect.catch((e) => Effect.as(say(`[controller] ${e.message}; trying again`), [] as Array<JsMsg>)),
    )
    // The next batch is fetched while this one is written (issue 11: the follower keeps up): the
    // order batches are written in does not matter, since the newest word wins whatever the order.
    let next = yield* Effect.forkChild(fetch)
    for (;;) {
      const messages = yield* Fiber.join(next)
      next = yield* Effect.forkChild(fetch)
      if (messages.length === 0) continue
      const kept = yield* keepBatch(messages, names).pipe(
        Effect.catch((e: StoreUnreadable) =>
          Effect.gen(function*() {
            yield* say(`[controller] ${e.message}; ${messages.length} words left to come again`)
            for (const m of messages) m.nak(1_000)
            yield* Effect.sleep(1_000)
            return 0
          })
        ),
      )
      if (kept > 0) options.onKept?.(kept)
    }
  })
