// The delivery area's answers (issue 25): the machines' reports kept inside the reports follower's
// transaction (a store that fails it keeps nothing, and the report comes again), and each question a
// push asks (core/src/delivery/push.ts),
// answered over the store, the bus and the controller's signing key. What to send, in which order,
// and what an outcome means are the program's; this reads, holds, numbers, signs, sends, records.
import type { DeliveryQuestions, PushQuestions } from "@mesh-core/core/delivery/questions"
import { done as kept } from "@mesh-core/core/outcome"
import { errorText } from "@mesh-core/core/text/error-text"
import type { ActOutcome } from "@mesh-core/core/delivery/order"
import { Clock, Data, Duration, Effect, Option } from "effect"
import {
  assertDeliveryStreams,
  Bus,
  type BusUnreachable,
  issueGrants,
  maxPayload,
  publishDeclaration,
} from "../bus/nats.ts"
import { establishIn, type Signer } from "./identity.ts"
import { Fenced, FencedTransaction } from "../lease/fence.ts"
import type { Answers } from "../program/drive.ts"
import { DeliveryStore } from "../store/delivery.ts"
import { Store, type StoreUnreadable } from "../store/postgres.ts"
import type { DeliveryNames } from "../bus/delivery-names.ts"

export class PushUnreachable extends Data.TaggedError("PushUnreachable")<{
  readonly said: string
  readonly cause?: unknown
}> {
  override get message(): string {
    return this.said
  }
}

/** An act on the bus, its failure said as what the push could not do. */
const viaBus = <A, R>(what: string, op: Effect.Effect<A, BusUnreachable, R>) =>
  op.pipe(Effect.mapError((e) => new PushUnreachable({ said: `${what}: ${errorText(e.cause)}`, cause: e.cause })))

/** A read or write of the store through its services, its failure said as what the push could not do. */
export const viaStore = <A, R>(
  what: string,
  op: Effect.Effect<A, { readonly _tag: string; readonly reason: string }, R>,
) => op.pipe(Effect.mapError((e) => new PushUnreachable({ said: `${what}: ${e.reason}`, cause: e })))

/**
 * A write of the push's own rows (a sequence allotted, a send recorded). Sent by the gate under the
 * lease (`epoch` set), it is one fenced transaction (FencedTransaction, issue 13): a holder paused
 * past its lease between the gate's fence check and this write is refused here, by the store, and
 * the push stops with `Fenced`. A person's push carries no epoch and writes as it is.
 */
const writeIo = <A>(
  fenced: FencedTransaction["Service"],
  epoch: number | undefined,
  what: string,
  write: Effect.Effect<A, StoreUnreadable>,
): Effect.Effect<A, Fenced | PushUnreachable> =>
  epoch === undefined
    ? viaStore(what, write)
    : fenced
        .within(epoch, write)
        .pipe(
          Effect.mapError((e): Fenced | PushUnreachable =>
            e instanceof Fenced ? e : new PushUnreachable({ said: `${what}: ${e.reason}`, cause: e }),
          ),
        )

/**
 * The grants of a push (issue 26): under the lease (`epoch` set), the store's fence is passed under
 * the epoch first, in a fenced transaction of its own, so a holder paused past its lease is refused by
 * the store before any membership goes out (`Fenced`, which stops the push and the controller); then
 * `issue` puts each membership carrying the epoch (`Mesh-Epoch`), as a declaration does. A person's
 * push carries no epoch and grants as it is.
 */
export const grantUnder = <E, R>(
  fenced: FencedTransaction["Service"],
  epoch: number | undefined,
  issue: (epoch: number | undefined) => Effect.Effect<ActOutcome, E, R>,
): Effect.Effect<ActOutcome, E | Fenced | PushUnreachable, R> =>
  epoch === undefined
    ? issue(undefined)
    : Effect.andThen(writeIo(fenced, epoch, "the grants were not issued", Effect.void), issue(epoch))

const done = { ok: true } as const

/** What a push is answered over: the delivery store, the bus, and the transactions its writes are fenced in. */
export interface PushServices {
  readonly delivery: DeliveryStore["Service"]
  readonly bus: Bus["Service"]
  readonly fenced: FencedTransaction["Service"]
}

/** The push's services from the context: the workers' fenced transactions under `serve`, over the store alone where none are given. */
export const pushServices = Effect.gen(function* () {
  const store = yield* Store
  const fenced = Option.getOrElse(yield* Effect.serviceOption(FencedTransaction), () => FencedTransaction.over(store))
  return { delivery: yield* DeliveryStore, bus: yield* Bus, fenced } satisfies PushServices
})

export interface PushAnswers {
  readonly answers: Answers<PushQuestions, Fenced | PushUnreachable, never>
  /** Lets go of every machine this push still holds: run however the push ends. */
  readonly releaseAll: Effect.Effect<void>
}

/**
 * The answers of one push, over `services`. `epoch`: the controller lease's, when the gate sends under the lease: each
 * declaration carries it and each write is fenced (issue 13); a person's push carries none.
 */
export const pushAnswers = Effect.fn("Delivery.pushAnswers")(function* (
  { delivery, bus, fenced }: PushServices,
  names: DeliveryNames,
  epoch: number | undefined,
) {
  const onTheBus = <A, E>(op: Effect.Effect<A, E, Bus>) => Effect.provideService(op, Bus, bus)
  const holds: Array<Effect.Effect<void, StoreUnreadable>> = []
  let signer: Signer | undefined
  const sign = viaStore("the controller's signing key cannot be established", establishIn(delivery))
  const releaseAll = Effect.suspend(() =>
    Effect.forEach(holds.splice(0), (release) => Effect.ignore(release), { discard: true }),
  )
  const answers: PushAnswers["answers"] = {
    "message-limit": () => onTheBus(maxPayload),
    "mesh-records": () =>
      viaStore("the mesh's records cannot be read", delivery.records).pipe(Effect.map((r) => r ?? null)),
    machines: () => viaStore("the machines cannot be read", delivery.nodeNames),
    "plans-holding": () => viaStore("the release plans cannot be read", delivery.plansHolding),
    sent: () =>
      viaStore("what was sent cannot be read", delivery.sentAll).pipe(
        Effect.map((m) =>
          [...m].map(([node, s]) => ({
            node,
            digest: s.digest,
            sequence: s.sequence,
            ...(s.busUsersDigest === undefined ? {} : { busUsersDigest: s.busUsersDigest }),
            ...(s.builds === undefined ? {} : { builds: s.builds }),
          })),
        ),
      ),
    reports: () =>
      viaStore("the machines' reports cannot be read", delivery.reportsAll).pipe(Effect.map((m) => [...m.values()])),
    "report-of": (q) =>
      viaStore("the machine's report cannot be read", delivery.reportOfNode(q.node)).pipe(Effect.map((r) => r ?? null)),
    now: () => Clock.currentTimeMillis,
    sleep: (q) => Effect.sleep(Duration.millis(q.ms)).pipe(Effect.as(done)),
    hold: (q) =>
      viaStore("the machines cannot be held", delivery.holdNodes(q.machines)).pipe(
        Effect.map((release) => {
          holds.push(release)
          return done
        }),
      ),
    allot: (q) =>
      writeIo(fenced, epoch, `no sequence for ${q.node}`, delivery.allot(q.node)).pipe(
        Effect.map((sequence) => ({ sequence })),
        Effect.catchTag("PushUnreachable", (e) => Effect.succeed({ error: e.said })),
      ),
    prepare: () =>
      Effect.gen(function* () {
        signer = yield* sign
        yield* viaBus("the delivery streams cannot be asserted", onTheBus(assertDeliveryStreams(names)))
        return done
      }),
    declare: (q) =>
      Effect.gen(function* () {
        const key = signer ?? (signer = yield* sign)
        const sentOut = yield* Effect.result(
          viaBus(
            `${q.node} was not sent`,
            onTheBus(
              publishDeclaration(
                names,
                q.node,
                { body: q.body, signature: key.sign(q.body), key: key.fingerprint },
                epoch,
              ),
            ),
          ),
        )
        if (sentOut._tag === "Failure") return { ok: false as const, error: sentOut.failure.said }
        // After it is away, not before, and on an act the caller cannot cut short (issue 204):
        // what was sent was sent, and the record of it must not depend on the sender living on.
        const recorded = yield* writeIo(
          fenced,
          epoch,
          `${q.node} was sent but not recorded`,
          delivery.recordSent(q.node, {
            digest: q.digest,
            sequence: q.sequence,
            builds: { ...q.builds },
            busUsersDigest: q.busUsersDigest,
          }),
        ).pipe(
          Effect.timeout(Duration.seconds(10)),
          Effect.uninterruptible,
          Effect.catchTag("PushUnreachable", (e) => Effect.succeed({ error: e.said })),
          Effect.catchTag("TimeoutError", (e) =>
            Effect.succeed({ error: `${q.node} was sent but not recorded: ${String(e)}` }),
          ),
        )
        if (recorded !== undefined) return { ok: false as const, error: recorded.error }
        return done
      }),
    grant: (q) =>
      grantUnder(fenced, epoch, (carried) =>
        onTheBus(issueGrants(names, q.memberships, carried)).pipe(
          Effect.catch((e) =>
            Effect.succeed({ ok: false as const, error: `the grants could not be issued: ${errorText(e.cause)}` }),
          ),
        ),
      ).pipe(Effect.catchTag("PushUnreachable", (e) => Effect.succeed({ ok: false as const, error: e.said }))),
    release: () => releaseAll.pipe(Effect.as(done)),
  }
  return { answers, releaseAll } satisfies PushAnswers
})

/** The machines' reports, read and kept with the delivery store. */
export const deliveryAnswers = Effect.gen(function* () {
  const delivery = yield* DeliveryStore
  const answers: Answers<DeliveryQuestions, StoreUnreadable, never> = {
    "kept-report": (q) => delivery.keptReport(q.node),
    "write-report": (q) => Effect.as(delivery.writeReport(q.report), kept),
  }
  return answers
})
