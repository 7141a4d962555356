// Announcing a provider's words on the bus. The loop hands each announcement to an outbox and goes
// on; a fiber publishes them in order, each until JetStream acknowledges it. So an announcement the
// bus does not take is retried, not lost, and a provider cut off from the bus keeps reconciling.
// A message id made of the word itself lets the stream drop a retry that had in fact landed.
import { connect, headers, type NatsConnection } from "@nats-io/transport-node"
import { jetstream } from "@nats-io/jetstream"
import { type Announcement } from "@mesh-core/core/provisioner/model"
import { Context, Duration, Effect, Layer, Queue, Schedule } from "effect"
import { type BusNames, saidAtHeader } from "../bus/subjects.ts"
import { say } from "../journal.ts"

export class Announcer extends Context.Service<Announcer, {
  readonly announce: (a: Announcement) => Effect.Effect<void>
  /** Announcements handed over and not yet acknowledged by the bus. */
  readonly outstanding: Effect.Effect<number>
}>()("mesh-core/Announcer") {}

export const subjectOf = (a: Announcement, names: BusNames): string =>
  a.event === "provisioner.failing" ? names.failing : names.recovered

export const messageId = (a: Announcement): string =>
  `${a.body.provider}/${a.body["provider-node"]}/${a.body.consumer}/${a.event}/${a.at}`

/** Announcements kept in a list; for tests that need no bus. */
export const memoryLayer = (into: Array<Announcement>) =>
  Layer.succeed(Announcer, { announce: (a) => Effect.sync(() => void into.push(a)), outstanding: Effect.succeed(0) })

const reasonOf = (e: unknown): string => (e instanceof Error ? e.message : String(e))

export const natsLayer = (url: string, names: BusNames) =>
  Layer.effect(
    Announcer,
    Effect.gen(function*() {
      const outbox = yield* Queue.unbounded<Announcement>()
      let outstanding = 0
      let nc: NatsConnection | undefined
      const connected = Effect.tryPromise({
        try: async () => (nc ??= await connect({ servers: url, name: "mesh-core provider", maxReconnectAttempts: -1, reconnectTimeWait: 250, timeout: 3_000 })),
        catch: (e) => new Error(`the bus at ${url} is not answering: ${reasonOf(e)}`),
      })
      const publish = (a: Announcement) =>
        Effect.gen(function*() {
          const conn = yield* connected
          yield* Effect.tryPromise({
            try: () => {
              const h = headers()
              h.set(saidAtHeader, new Date(a.at).toISOString())
              return jetstream(conn).publish(subjectOf(a, names), JSON.stringify(a.body), { msgID: messageId(a), headers: h, timeout: 5_000 })
            },
            catch: (e) => new Error(`the bus did not take ${a.event} for ${a.body.consumer}: ${reasonOf(e)}`),
          })
        })
      let complained = false
      const untilTaken = (a: Announcement) =>
        publish(a).pipe(
          Effect.tapError((e) => complained ? Effect.void : Effect.andThen(Effect.sync(() => { complained = true }), say(`[announcer] ${e.message}; keeping it and trying again`))),
          Effect.retry(Schedule.spaced(Duration.millis(500))),
          Effect.tap(() => Effect.sync(() => { complained = false })),
        )
      yield* Effect.forkScoped(Effect.forever(
        Effect.gen(function*() {
          const a = yield* Queue.take(outbox)
          yield* untilTaken(a)
          outstanding -= 1
        }),
      ))
      // On the way out, give what is still in the outbox a few seconds to be taken.
      yield* Effect.addFinalizer(() =>
        Effect.gen(function*() {
          for (let waited = 0; outstanding > 0 && waited < 5_000; waited += 50) yield* Effect.sleep(Duration.millis(50))
          if (nc !== undefined) yield* Effect.promise(() => nc!.drain().catch(() => undefined))
        })
      )
      return {
        announce: (a: Announcement) => Effect.sync(() => { outstanding += 1 }).pipe(Effect.andThen(Queue.offer(outbox, a)), Effect.asVoid),
        outstanding: Effect.sync(() => outstanding),
      }
    }),
  )
