// The controller's way of keeping what machines say: each message read, kept in the store, and
// acknowledged only once kept. One that is not what it should be is said and dropped; one the store
// refuses comes again.
import type { Consumer, JsMsg } from "@nats-io/jetstream"
import { Effect } from "effect"
import { nextBatch } from "../bus/nats.ts"
import { say } from "../journal.ts"
import { Store, storeError } from "../store/postgres.ts"

export const keepEach = <A, B>(
  consumer: Consumer, what: string, read: (m: JsMsg) => A | undefined, keep: (a: A) => Promise<B>,
  said: (kept: B) => ReadonlyArray<string> = () => [],
) =>
  Effect.gen(function*() {
    const { url } = yield* Store
    for (;;) {
      const messages = yield* nextBatch(consumer, 100).pipe(Effect.catch(() => Effect.succeed([] as Array<JsMsg>)))
      for (const m of messages) {
        const a = read(m)
        if (a === undefined) {
          yield* say(`[controller] ignored a ${what} on ${m.subject} (stream sequence ${m.seq}): not a ${what}`)
          m.term()
          continue
        }
        const kept = yield* Effect.result(Effect.tryPromise({ try: () => keep(a), catch: storeError(url) }))
        if (kept._tag === "Failure") {
          yield* say(`[controller] ${kept.failure.message}; the ${what} comes again`)
          m.nak(1_000)
          continue
        }
        for (const line of said(kept.success)) yield* say(line)
        m.ack()
      }
    }
  })
