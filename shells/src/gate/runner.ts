// The gate runner: on a schedule, runs the core's gate program (core/src/controller/gate.ts) and
// answers each question it asks with the services: the store's plans, conditions, verdicts and
// builds, the bus's discovery and events, sends through the delivery shell. What to judge, what a
// verdict means, how a rollback ends and what is said are the program's; this only reads, writes,
// sends and waits (issue 8). A store that cannot give the open plans ends the tick with a typed
// failure, never a defect (issue 14: it used to end serve): the core says it once, and the runner
// waits under untilItAnswers until the store answers; every later read or act that fails is
// answered to the program as not done, with why, as the Catalogue says.
import { gateTick } from "@mesh-core/core/controller/gate"
import { reportedFacts } from "@mesh-core/core/controller/gathered"
import { done, type Outcome } from "@mesh-core/core/controller/questions"
import type { GateFactsRecord } from "@mesh-core/core/controller/records"
import type { GateSettings } from "@mesh-core/core/gate/judge"
import { Clock, Duration, Effect, Schedule } from "effect"
import { watchedPass } from "../metrics/loop.ts"
import { MeshBus } from "../bus/mesh-bus.ts"
import { ControllerRecorder } from "../controller/recorder.ts"
import { drive, type Handlers } from "../controller/drive.ts"
import { storeFailedOnce } from "../controller/follower.ts"
import { push } from "../delivery/push.ts"
import type { DeliveryNames } from "../delivery/wire.ts"
import { Bus } from "../bus/nats.ts"
import { Journal, say } from "../journal.ts"
import { Store, type StoreUnreadable } from "../store/postgres.ts"
import { leaseBucketName } from "../lease/bucket.ts"
import { FencedTransaction } from "../lease/fence.ts"
import { leaseHolderFact } from "../lease/read.ts"
import { actUnderTheLease, fencedAct } from "../lease/serve.ts"
import { ControllerLease } from "../lease/service.ts"
import { makeOutage, untilItAnswers } from "../retry.ts"
import { DeliveryStore } from "../store/delivery.ts"
import { GateStore } from "../store/gate.ts"

type Failure = { readonly message: string }

/** An act done, or why not. */
const outcome = <E extends Failure, R>(act: Effect.Effect<unknown, E, R>): Effect.Effect<Outcome, never, R> =>
  act.pipe(Effect.as(done), Effect.catch((e: E) => Effect.succeed<Outcome>({ ok: false, why: e.message })))

/** A read, or why it could not be made: never read as nothing. */
const readable = <A, E extends Failure, R>(read: Effect.Effect<A, E, R>) =>
  read.pipe(
    Effect.map((value) => ({ ok: true as const, value })),
    Effect.catch((e: E) => Effect.succeed({ ok: false as const, why: e.message })),
  )

/** What one judging reads, gathered once for every plan judged. Unreadable is said, never healthy. */
export const gatherFacts = Effect.fn("Gate.gatherFacts")(function*(names: DeliveryNames) {
  const { nc } = yield* Bus
  const delivery = yield* DeliveryStore
  const gates = yield* GateStore
  const bus = yield* MeshBus
  const now = yield* Clock.currentTimeMillis
  const both = yield* readable(Effect.all([delivery.reports, delivery.sent]))
  const facts: GateFactsRecord = {
    now,
    reports: both.ok ? reportedFacts(both.value[0], both.value[1]) : {},
    engines: {},
    served: yield* readable(bus.served(names.mesh)),
    open: yield* readable(Effect.map(gates.openConditions, (cs) =>
      cs.map((c) => ({
        key: c.key, source: c.source, raised: c.raised, scope: c.scope, id: c.id, also: c.also, kind: c.kind, summary: c.summary,
        ...(c.machine === undefined ? {} : { machine: c.machine }),
      })))),
    rolledBack: {},
    // Who holds the controller lease, read from the lease itself (issue 13): a recorded judging says so.
    holder: yield* leaseHolderFact(nc, leaseBucketName(names.mesh), now),
    health: yield* readable(gates.statements),
  }
  return facts
})

/** The gate program's questions, answered with the services. */
const handlersOf = (names: DeliveryNames) =>
  Effect.gen(function*() {
    const gates = yield* GateStore
    const delivery = yield* DeliveryStore
    const bus = yield* MeshBus
    const journal = yield* Journal
    const store = yield* Store
    const connection = yield* Bus
    const transactions = yield* FencedTransaction
    const lease = yield* ControllerLease
    // Every write under the lease's epoch, the store's fence first in its transaction (issue 13).
    const fenced = <A, E>(write: Effect.Effect<A, E>) =>
      fencedAct(write).pipe(Effect.provideService(ControllerLease, lease), Effect.provideService(FencedTransaction, transactions))
    return {
      "open-plans": () => Effect.map(gates.openPlans, (value) => ({ ok: true as const, value: [...value] })),
      "gate-facts": () => gatherFacts(names).pipe(Effect.provideService(GateStore, gates), Effect.provideService(DeliveryStore, delivery), Effect.provideService(MeshBus, bus), Effect.provideService(Bus, connection)),
      builds: (q) => Effect.map(readable(gates.builds(q.builds)), (r) => (r.ok ? { ok: true as const, value: [...r.value] } : r)),
      "among-kept": (q) => readable(gates.amongKept(q.module, q.build, q.kept)),
      "record-verdict": (q) =>
        fenced(gates.recordVerdict(q.verdict)).pipe(
          Effect.map((mine) => ({ ok: true as const, mine })),
          Effect.catch((e) => Effect.succeed({ ok: false as const, why: e.message })),
        ),
      "set-build": (q) => outcome(fenced(delivery.setBuild(q.module, q.build, q.commit))),
      // A send only while the lease is held: push's own writes are not fenced yet (docs/lease.md).
      send: (q) =>
        actUnderTheLease(() =>
          push({ machines: q.machines, node: undefined, behind: false, wait: 0, names, say: (l) => journal.say(`[gate] ${l}`) }).pipe(
            Effect.provideService(Store, store),
            Effect.provideService(Bus, connection),
            Effect.map((r) => r.error),
            Effect.catch((e) => Effect.succeed(e.message)),
            Effect.map((error) => (error === undefined ? { told: [...q.machines] } : { told: [], error })),
          )
        ).pipe(Effect.provideService(ControllerLease, lease)),
      "set-rollback": (q) => outcome(fenced(gates.setRollback(q.build, q.rollback))),
      "raise-condition": (q) => outcome(fenced(gates.raiseCondition(q.observation, q.at))),
      "clear-condition": (q) => outcome(fenced(gates.clearCondition(q.key, q.by))),
      // An event on the bus is an act too: published under the lease's epoch (its Mesh-Epoch header),
      // never by a controller that no longer holds the lease.
      publish: (q) =>
        outcome(actUnderTheLease((epoch) => bus.publish(names.eventSubject(q.event), JSON.stringify(q.body), undefined, epoch)).pipe(
          Effect.provideService(ControllerLease, lease),
        )),
      "save-plan": (q) => outcome(fenced(gates.savePlan(q.plan))),
    } satisfies Handlers<StoreUnreadable, never>
  })

/** Judges every open plan every `tick` until interrupted; each tick recorded with its answers. */
export const gateRunner = Effect.fn("Gate.run")(function*(names: DeliveryNames, settings: GateSettings, tick: number) {
  const handlers = yield* handlersOf(names)
  const recorder = yield* ControllerRecorder
  const outage = yield* makeOutage("gate")
  yield* say(`[gate] judging open plans every ${tick}ms (settle ${settings.settle}ms, bound ${settings.bound}ms, ${settings.passes} passes ${settings.every}ms apart)`)
  // A program is a generator, run once: each tick makes its own.
  const judge = Effect.suspend(() => drive(gateTick(settings), handlers)).pipe(
    Effect.tap((d) => recorder.record({ fact: "tick" }, d.answers)),
    Effect.tap(() => outage.answered),
    Effect.tapError((e) => storeFailedOnce(outage, e, "tick", 0)),
    Effect.retry(untilItAnswers),
  )
  return yield* watchedPass("gate", judge).pipe(Effect.repeat(Schedule.spaced(Duration.millis(tick))))
})
