// The gate runner: on a schedule, runs the core's gate program (core/src/gate/tick.ts) and
// answers each question it asks with the services: the store's plans, conditions, verdicts and
// builds, the bus's discovery and events, sends through the delivery shell. What to judge, what a
// verdict means, how a rollback ends and what is said are the program's; this only reads, writes,
// sends and waits (issue 8). A store that cannot give the open plans ends the tick with a typed
// failure, never a defect (issue 14: it used to end serve): the core says it once, and the runner
// waits under untilItAnswers until the store answers; every later read or act that fails is
// answered to the program as not done, with why, as the Catalogue says.
import { gateTick } from "@mesh-core/core/gate/tick"
import { reportedFacts } from "@mesh-core/core/controller/gathered"
import { done, type Outcome } from "@mesh-core/core/controller/questions"
import type { GateFactsRecord } from "@mesh-core/core/gate/records"
import type { GateSettings } from "@mesh-core/core/gate/judge"
import { Clock, Duration, Effect, Schedule } from "effect"
import { GateTurn } from "./turn.ts"
import { watchedPass } from "../metrics/loop.ts"
import { MeshBus } from "../bus/mesh-bus.ts"
import { ControllerRecorder } from "../controller/recorder.ts"
import { drive, type Handlers, type QuestionOf } from "../controller/drive.ts"
import { storeFailedOnce } from "../controller/follower.ts"
import { holderList as pushHolderList, pushDriven } from "../delivery/push.ts"
import { planSendAsk, planSendOutcome } from "@mesh-core/core/delivery/push"
import type { PushExchange } from "@mesh-core/core/delivery/questions"
import type { DeliveryNames } from "../delivery/wire.ts"
import { Bus } from "../bus/nats.ts"
import { Journal, say } from "../journal.ts"
import { Store, StoreUnreadable } from "../store/postgres.ts"
import { manifestsOf } from "../store/gate.ts"
import { leaseHolderFact } from "../lease/read.ts"
import { leaseBucketName } from "../lease/bucket.ts"
import { ActGuard } from "./guard.ts"
import { makeOutage, untilItAnswers } from "../retry.ts"
import { DeliveryStore } from "../store/delivery.ts"
import { GateStore } from "../store/gate.ts"
import { readOrWhy } from "../read-or-why.ts"

type Failure = { readonly message: string }

/** An act done, or why not. */
const outcome = <E extends Failure, R>(act: Effect.Effect<unknown, E, R>): Effect.Effect<Outcome, never, R> =>
  act.pipe(Effect.as(done), Effect.catch((e: E) => Effect.succeed<Outcome>({ ok: false, why: e.message })))

/** What one judging reads, gathered once for every plan judged. Unreadable is said, never healthy. */
export const gatherFacts = Effect.fn("Gate.gatherFacts")(function*(names: DeliveryNames) {
  const { nc } = yield* Bus
  const delivery = yield* DeliveryStore
  const gates = yield* GateStore
  const bus = yield* MeshBus
  const now = yield* Clock.currentTimeMillis
  const both = yield* readOrWhy(Effect.all([delivery.reports, delivery.sent]))
  const facts: GateFactsRecord = {
    now,
    reports: both.ok ? reportedFacts(both.value[0], both.value[1]) : {},
    engines: {},
    served: yield* readOrWhy(bus.served(names.mesh)),
    open: yield* readOrWhy(Effect.map(gates.openConditions, (cs) =>
      cs.map((c) => ({
        key: c.key, source: c.source, raised: c.raised, scope: c.scope, id: c.id, also: c.also, kind: c.kind, summary: c.summary,
        ...(c.machine === undefined ? {} : { machine: c.machine }),
      })))),
    rolledBack: {},
    // Who holds the controller lease, read from the lease itself (issue 13): a recorded judging says so.
    holder: yield* leaseHolderFact(nc, leaseBucketName(names.mesh), now),
    health: yield* readOrWhy(gates.statements),
  }
  return facts
})

/**
 * A plan's own send (`send-plan`): the delivery area's push of exactly these machines, as the plan's
 * own request (core/src/delivery/push.ts planSendAsk), so what other plans hold still holds (issue 9);
 * `told` are the machines whose declaration went out, so a machine a send did not reach is tried
 * again by the gate. The push's own questions and answers go with it (`exchanges`), so a recording
 * keeps the send question by question and its replay composes it again (issue 25).
 */
export const sendPlan = (names: DeliveryNames, q: QuestionOf<"send-plan">, say: (line: string) => Effect.Effect<void>, epoch?: number) =>
  pushDriven({ ...planSendAsk(q), names, say, ...(epoch === undefined ? {} : { epoch }) }).pipe(
    // Each answer is the one its question's handler gave, typed by the delivery catalogue (answers.ts):
    // the driver keeps them untyped, in order.
    Effect.map(({ end, answers }) => ({ ...planSendOutcome(q, end), exchanges: answers.map((x) => ({ q: x.q, a: x.a }) as PushExchange) })),
    Effect.catch((e) => Effect.succeed({ told: [] as Array<string>, error: e.message })),
  )

/** The plans' questions every program of the gate asks (the tick, release, the verbs), answered with the services. */
export const planHandlers = Effect.fn("Gate.planHandlers")(function*(names: DeliveryNames, sayLine: (line: string) => Effect.Effect<void>) {
    const gates = yield* GateStore
    const delivery = yield* DeliveryStore
    const bus = yield* MeshBus
    const store = yield* Store
    const connection = yield* Bus
    const guard = yield* ActGuard
    const withStore = <A, E>(e: Effect.Effect<A, E, Store | DeliveryStore | Bus>) =>
      e.pipe(Effect.provideService(Store, store), Effect.provideService(DeliveryStore, delivery), Effect.provideService(Bus, connection))
    // An operation of the store, failed as the store's typed error, said with what it was for.
    const said = <A>(what: string, op: Effect.Effect<A, StoreUnreadable>) =>
      op.pipe(Effect.mapError((e) => new StoreUnreadable({ url: e.url, reason: `${what}: ${e.reason}`, cause: e })))
    return {
      "open-plans": () => readOrWhy(Effect.map(gates.plansInFlight, (ps) => ps.filter((p) => p.state === "open"))),
      "plans-in-flight": () => readOrWhy(Effect.map(gates.plansInFlight, (value) => [...value])),
      "plan-of": (q) => readOrWhy(gates.planOf(q.id)),
      now: () => Clock.currentTimeMillis,
      "gate-facts": () => gatherFacts(names).pipe(Effect.provideService(GateStore, gates), Effect.provideService(DeliveryStore, delivery), Effect.provideService(MeshBus, bus), Effect.provideService(Bus, connection)),
      builds: (q) => Effect.map(readOrWhy(gates.builds(q.builds)), (r) => (r.ok ? { ok: true as const, value: [...r.value] } : r)),
      "among-kept": (q) => readOrWhy(gates.amongKept(q.module, q.build, q.kept)),
      "record-verdict": (q) =>
        guard.write(gates.recordVerdict(q.verdict)).pipe(
          Effect.map((mine) => ({ ok: true as const, mine })),
          Effect.catch((e) => Effect.succeed({ ok: false as const, why: e.message })),
        ),
      "verdict-of": (q) => readOrWhy(gates.verdictOf(q.build)),
      "latest-verdicts": () => readOrWhy(Effect.map(gates.latestVerdicts, (v) => [...v])),
      // No machine's witnesses say what they decided yet (issue 9: "once they exist").
      "witness-verdicts": () => Effect.succeed({ ok: true as const, value: {} }),
      "probe-conditions": (q) => readOrWhy(Effect.map(gates.probeConditions(q.source), (v) => [...v])),
      "engine-builds": () => readOrWhy(said("which build each node-engine runs cannot be read", gates.engineBuilds)),
      manifests: (q) => readOrWhy(said("the modules' records cannot be read", Effect.map(delivery.records, (records) => manifestsOf(records, q.modules)))),
      "holder-list": () => readOrWhy(pushHolderList.pipe(Effect.provideService(DeliveryStore, delivery))),
      "mesh-records": () => readOrWhy(said("the mesh's records cannot be read", Effect.map(delivery.records, (records) => records ?? null))),
      "record-build": (q) => outcome(guard.write(said("the build cannot be recorded", gates.recordBuild(q.build)))),
      "set-build": (q) => outcome(guard.write(delivery.setBuild(q.module, q.build, q.commit))),
      // A send only while the lease is held: push's own writes are not fenced yet (docs/lease.md).
      "send-plan": (q) => guard.act((epoch) => withStore(sendPlan(names, q, sayLine, epoch))).pipe(Effect.catch((e) => Effect.succeed({ told: [] as Array<string>, error: e.message }))),
      "set-rollback": (q) => outcome(guard.write(gates.setRollback(q.build, q.rollback))),
      "raise-condition": (q) => outcome(guard.write(gates.raiseCondition(q.observation, q.at))),
      "clear-condition": (q) => outcome(guard.write(gates.clearCondition(q.key, q.by))),
      // An event on the bus is an act too: published under the lease's epoch (its Mesh-Epoch header),
      // never by a controller that no longer holds the lease.
      publish: (q) => outcome(guard.act((epoch) => bus.publish(names.eventSubject(q.event), JSON.stringify(q.body), undefined, epoch))),
      "save-plan": (q) => outcome(guard.write(gates.savePlan(q.plan))),
      "reopen-plan": (q) =>
        guard.write(gates.reopenPlan(q.plan)).pipe(
          Effect.map((done): Outcome => (done ? { ok: true } : { ok: false, why: `plan ${q.plan.id} is no longer failed, or another plan of ${q.plan.module} is in flight` })),
          Effect.catch((e) => Effect.succeed<Outcome>({ ok: false, why: e.message })),
        ),
    } satisfies Handlers<StoreUnreadable, never>
  })

/** The gate program's questions, answered with the services. */
export const handlersOf = Effect.fn("Gate.handlersOf")(function*(names: DeliveryNames) {
    const journal = yield* Journal
    return yield* planHandlers(names, (l) => journal.say(`[gate] ${l}`))
  })

/** Judges every open plan every `tick` until interrupted; each tick recorded with its answers. */
export const gateRunner = Effect.fn("Gate.run")(function*(names: DeliveryNames, settings: GateSettings, tick: number) {
  const handlers = yield* handlersOf(names)
  const recorder = yield* ControllerRecorder
  const outage = yield* makeOutage("gate")
  const turn = yield* GateTurn
  yield* say(`[gate] judging open plans every ${tick}ms (settle ${settings.settle}ms, bound ${settings.bound}ms, ${settings.passes} passes ${settings.every}ms apart)`)
  // A program is a generator, run once: each tick makes its own.
  const judge = turn.one(Effect.suspend(() => drive(gateTick(settings), handlers)).pipe(
    Effect.tap((d) => recorder.record({ fact: "tick" }, d.answers)),
  )).pipe(
    // The plans could not be read: the outage said once (and recorded) when it begins, over when they can.
    Effect.tap((d) => d.result.unread === undefined ? outage.answered : storeFailedOnce(outage, { _tag: "StoreUnreadable", message: d.result.unread }, "tick", 0)),
    Effect.tapError((e) => storeFailedOnce(outage, e, "tick", 0)),
    Effect.retry(untilItAnswers),
  )
  return yield* watchedPass("gate", judge).pipe(Effect.repeat(Schedule.spaced(Duration.millis(tick))))
})
