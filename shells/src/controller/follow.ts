// The controller follows every provider's provisioner.failing / provisioner.recovered from a
// durable JetStream consumer, so what was said while it was down is read when it comes back, and
// keeps the newest word per provider, machine and consumer in the store (novox/hq ADR 0224).
// A batch is kept in one transaction and acknowledged only once it is committed: a word is never
// acknowledged and lost.
import type { JsMsg } from "@nats-io/jetstream"
import { Effect } from "effect"
import { applyWords } from "@mesh-core/core/standings/standings"
import { hear, keyText, type Word } from "@mesh-core/core/standings/word"
import { assertStream, durableConsumer, nextBatch } from "../bus/nats.ts"
import { type BusNames, eventOf, saidAtHeader } from "../bus/subjects.ts"
import { say } from "../journal.ts"
import { lockKeys, Store, storeError, type StoreUnreadable } from "../store/postgres.ts"
import { readKept, writeKept } from "../store/standings.ts"

export interface FollowOptions {
  readonly names: BusNames
  /** How many words are kept in one transaction at most. */
  readonly batch?: number
  /** Called after each batch is committed and acknowledged; for tests and benchmarks. */
  readonly onKept?: (words: number) => void
}


/** Keeps one batch: the words it could read, in one transaction; then acknowledges every message. */
export const keepBatch = (messages: ReadonlyArray<JsMsg>, names: BusNames) =>
  Effect.gen(function*() {
    const { sql, url } = yield* Store
    const words: Array<Word> = []
    for (const m of messages) {
      const heard = hear(eventOf(m.subject, names), m.string(), m.headers?.get(saidAtHeader) || undefined)
      if (heard.ok) words.push(heard.word)
      else yield* say(`[controller] ignored a word on ${m.subject} (stream sequence ${m.seq}): ${heard.why}`)
    }
    yield* Effect.tryPromise({
      try: () =>
        sql.begin(async (tx) => {
          const keys = [...new Map(words.map((w) => [keyText(w), w])).values()]
          await lockKeys(tx, "standing", keys.map(keyText))
          const kept = await readKept(tx, keys)
          await writeKept(tx, applyWords(kept, words).writes)
        }),
      catch: storeError(url),
    })
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
    for (;;) {
      const messages = yield* nextBatch(consumer, batch).pipe(
        Effect.catch((e) => Effect.as(say(`[controller] ${e.message}; trying again`), [] as Array<JsMsg>)),
      )
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
