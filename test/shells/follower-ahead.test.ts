// A follower fetches its next batch while it keeps this one (issue 11). What
// must not change: batches are kept in the order fetched, each message acknowledged once it is kept
// and never before, and a batch fetched ahead of one the store failed is handed back with it, to
// come again; one in hand when the follower stops is handed back too.
import fc from "fast-check"
import { Effect, Fiber } from "effect"
import { describe, expect, it } from "vitest"
import { keepWords } from "@mesh-core/core/standings/followers"
import { runPure } from "@mesh-core/core/program"
import type { Question } from "@mesh-core/core/controller/catalogue"
import { ackAll, type Delivered, type Follower, nakAll } from "../../shells/src/bus/mesh-bus.ts"
import { followForever } from "../../shells/src/followers/in-transaction.ts"
import * as Journal from "../../shells/src/journal.ts"
import { StoreUnreadable } from "../../shells/src/store/postgres.ts"
import { makeOutage } from "../../shells/src/retry.ts"
import { until } from "../support/until.ts"

/**
 * A bus of messages 1..n: `next` hands those handed back first, then the rest, in order. A message
 * handed back waits out one fetch before it comes again (the bus's wait, without a clock); an empty
 * bus waits for ever, as a bus with nothing to say does.
 */
const busOf = (n: number) => {
  const log: Array<string> = []
  let cursor = 0
  let fetched = 0
  const back: Array<{ readonly seq: number; wait: number }> = []
  const delivered = (seq: number): Delivered => ({
    heard: { subject: "s", event: "e", body: "", seq },
    settle: {
      ack: () => void log.push(`ack ${seq}`),
      nak: () => void (log.push(`nak ${seq}`), back.push({ seq, wait: 1 })),
    },
  })
  const follower: Follower = {
    next: (max) =>
      Effect.suspend(() => {
        const out: Array<number> = []
        back.sort((a, b) => a.seq - b.seq)
        for (const b of [...back]) {
          if (b.wait > 0) b.wait--
          else if (out.length < max) out.push(b.seq), back.splice(back.indexOf(b), 1)
        }
        while (out.length < max && cursor < n) out.push(++cursor)
        fetched += out.length
        return out.length === 0 ? Effect.never : Effect.succeed(out.map(delivered))
      }),
  }
  return { log, follower, fetched: () => fetched }
}

/** Gives any fiber a follower forked the turns it needs to have fetched, had it fetched anything. */
const settled = Effect.gen(function* () {
  for (let i = 0; i < 20; i++) yield* Effect.yieldNow
})

const run = <A>(effect: Effect.Effect<A, unknown, Journal.Journal>) =>
  Effect.runPromise(effect.pipe(Effect.provide(Journal.memoryLayer([]))))

const following = (
  follower: Follower,
  keep: (batch: ReadonlyArray<Delivered>, fetchAhead: Effect.Effect<void>) => Effect.Effect<unknown, StoreUnreadable>,
  fetchAhead = true,
) =>
  Effect.gen(function* () {
    const outage = yield* makeOutage("test")
    return yield* Effect.forkChild(followForever({ outage, loop: "test", follower, max: 3, keep, fetchAhead }))
  })

describe("a follower keeping one batch while it fetches the next", () => {
  it("keeps every batch in the order fetched, acknowledging each message once, after it is kept", async () => {
    const { log, follower } = busOf(10)
    const kept: Array<Array<number>> = []
    await run(
      Effect.gen(function* () {
        const fiber = yield* following(follower, (batch) =>
          Effect.sync(() => {
            kept.push(batch.map((d) => d.heard.seq))
            log.push(`kept ${batch.map((d) => d.heard.seq).join(",")}`)
          }).pipe(Effect.andThen(ackAll(batch))),
        )
        yield* until(() => log.includes("ack 10"))
        yield* Fiber.interrupt(fiber)
      }),
    )
    expect(kept).toEqual([[1, 2, 3], [4, 5, 6], [7, 8, 9], [10]])
    for (let seq = 1; seq <= 10; seq++) {
      expect(log.filter((l) => l === `ack ${seq}`)).toHaveLength(1)
      expect(log.indexOf(`ack ${seq}`)).toBeGreaterThan(
        log.findIndex((l) => l.startsWith("kept ") && l.slice(5).split(",").includes(String(seq))),
      )
    }
  })

  it("hands back the batch fetched ahead of one the store failed, and keeps both, in order, when it answers again", async () => {
    const { log, follower } = busOf(6)
    const kept: Array<Array<number>> = []
    let failures = 1
    await run(
      Effect.gen(function* () {
        const fiber = yield* following(follower, (batch) =>
          Effect.gen(function* () {
            if (failures-- > 0) {
              yield* nakAll(batch, 1_000)
              return yield* Effect.fail(new StoreUnreadable({ url: "test", reason: "down" }))
            }
            kept.push(batch.map((d) => d.heard.seq))
            yield* ackAll(batch)
          }),
        )
        yield* until(() => kept.length === 2)
        yield* Fiber.interrupt(fiber)
      }),
    )
    // The first batch failed: it and the one fetched ahead (4, 5, 6) came again, and were kept in order.
    expect(log.slice(0, 6).sort()).toEqual(["nak 1", "nak 2", "nak 3", "nak 4", "nak 5", "nak 6"])
    expect(kept).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ])
    expect(log.filter((l) => l.startsWith("ack")).sort()).toEqual([
      "ack 1",
      "ack 2",
      "ack 3",
      "ack 4",
      "ack 5",
      "ack 6",
    ])
  })

  it("hands back a batch in hand when it is stopped while keeping the one before", async () => {
    const { log, follower, fetched } = busOf(6)
    await run(
      Effect.gen(function* () {
        // Its transaction begun (the next batch may be fetched), and never ending.
        const fiber = yield* following(follower, (_batch, fetchAhead) => Effect.andThen(fetchAhead, Effect.never))
        yield* until(() => fetched() === 6)
        yield* Fiber.interrupt(fiber)
      }),
    )
    expect(log).toEqual(["nak 4", "nak 5", "nak 6"])
  })

  it("fetches the next batch only once the keep says its transaction has begun", async () => {
    const { follower, fetched } = busOf(6)
    let begin: Effect.Effect<void> | undefined
    await run(
      Effect.gen(function* () {
        const fiber = yield* following(follower, (_batch, fetchAhead) =>
          Effect.andThen(
            Effect.sync(() => void (begin = fetchAhead)),
            Effect.never,
          ),
        )
        yield* until(() => begin !== undefined)
        yield* settled
        expect(fetched()).toBe(3)
        yield* begin!
        yield* until(() => fetched() === 6)
        yield* Fiber.interrupt(fiber)
      }),
    )
  })

  it("fetches nothing ahead for a follower that keeps each message in its own transaction", async () => {
    const { log, follower, fetched } = busOf(6)
    let begun = false
    await run(
      Effect.gen(function* () {
        const fiber = yield* following(
          follower,
          (_batch, fetchAhead) =>
            Effect.andThen(
              fetchAhead,
              Effect.andThen(
                Effect.sync(() => void (begun = true)),
                Effect.never,
              ),
            ),
          false,
        )
        yield* until(() => begun)
        yield* settled
        yield* Fiber.interrupt(fiber)
      }),
    )
    expect(fetched()).toBe(3)
    expect(log).toEqual([])
  })
})

describe("a batch of words kept by one program", () => {
  const body = (i: number, attempts: number) =>
    JSON.stringify({
      attempts,
      class: "unreachable",
      consumer: `c${i % 3}`,
      error: "e",
      node: "n",
      provider: "p",
      "provider-node": "pn",
      since: "2026-12-01T06:00:00Z",
    })
  const answer = (q: Question) =>
    q.q === "set-aside" ? { fresh: q.letters.map((l) => l.streamSequence) } : { done: true }

  it("a batch's words are written in one write, none when no message is a word; every message is a word or set aside", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(5), fc.integer({ min: -1, max: 9 }), fc.boolean()), { maxLength: 12 }),
        (words) => {
          const heard = words.map(([i, attempts, failing], seq) => ({
            subject: failing ? "provisioner.failing" : "provisioner.nope",
            event: failing ? "provisioner.failing" : "provisioner.nope",
            body: body(i, attempts),
            saidAt: `2026-12-01T07:00:0${seq % 10}.000Z`,
            seq: seq + 1,
          }))
          const ran = runPure(keepWords(heard), answer)
          const written = ran.exchanges.flatMap((e) => (e.question.q === "write-standings" ? [e.question.writes] : []))
          const aside = ran.exchanges.flatMap((e) => (e.question.q === "set-aside" ? e.question.letters : []))
          // A word is a failing event with whole, non-negative attempts; each key's newest is written.
          const kept = words.filter(([, attempts, failing]) => failing && attempts >= 0)
          expect(ran.result).toBe(kept.length)
          expect(written).toHaveLength(kept.length === 0 ? 0 : 1)
          expect(written.flat().map((w) => w.consumer)).toEqual([...new Set(kept.map(([i]) => `c${i % 3}`))])
          expect(aside).toHaveLength(heard.length - kept.length)
        },
      ),
    )
  })
})
