// The gate's answers (issue 25): every question of core/src/gate/questions.ts answered with the
// gate's services: the store's plans, conditions, verdicts and builds, the bus's discovery and events,
// sends through the delivery shell. What to judge, what a verdict means, how a rollback ends and what
// is said are the programs'; this only reads, writes, sends and waits (issue 8). Every read or act
// that fails is answered to the program as not done, with why, as the catalogue says; the health
// statements are answered inside the follower's transaction, which a failing store fails whole.
import { reportedFacts } from "@mesh-core/core/gate/judging/gathered"
import { done, type Outcome } from "@mesh-core/core/outcome"
import type { AnswerOf, KindOf, QuestionOf } from "@mesh-core/core/program"
import type { GateQuestions } from "@mesh-core/core/gate/questions"
import type { GateFactsRecord } from "@mesh-core/core/gate/judging/facts"
import type { setAsideQuestions } from "@mesh-core/core/standings/questions"
import { Clock, Context, Effect, Layer } from "effect"
import { MeshBus } from "../bus/mesh-bus.ts"
import { holderListOf, pushDrivenOver } from "../delivery/push.ts"
import { type PushServices, pushServices } from "../delivery/answers.ts"
import { planSendAsk, planSendOutcome } from "@mesh-core/core/delivery/push"
import type { PushExchange } from "@mesh-core/core/delivery/questions"
import { type DeliveryNames, deliveryNames } from "../bus/delivery-names.ts"
import { ControllerSettings } from "../config.ts"
import { Bus } from "../bus/nats.ts"
import { Journal } from "../journal.ts"
import type { Answers } from "../program/drive.ts"
import { Store, StoreUnreadable } from "../store/postgres.ts"
import { manifestsOf } from "../store/gate.ts"
import { readOrWhy } from "../read-or-why.ts"
import { leaseHolderFact } from "../lease/read.ts"
import { storeReach } from "../lease/schema-reach.ts"
import { leaseBucketName } from "../lease/bucket.ts"
import { Fenced } from "../lease/fence.ts"
import { ActGuard } from "./guard.ts"
import { DeliveryStore } from "../store/delivery.ts"
import { GateStore } from "../store/gate.ts"
import { setAsideAnswers } from "../standings/answers.ts"
import { StandingsStore } from "../store/standings.ts"
import { standingsAsConditions } from "@mesh-core/core/standings/conditions"

/** A question no program asks where these answers are given: asked, it is a defect of the wiring. */
const notAnswered =
  <K extends KindOf<GateQuestions>>(kind: K) =>
  (_q: QuestionOf<GateQuestions, K>): Effect.Effect<AnswerOf<GateQuestions, K>> =>
    Effect.die(new Error(`the program asked ${kind}, which this worker does not answer`))

/** Every gate question unanswered: what a worker answering a few of them starts from. */
const unanswered: Answers<GateQuestions, never, never> = {
  "plans-in-flight": notAnswered("plans-in-flight"),
  "gate-facts": notAnswered("gate-facts"),
  now: notAnswered("now"),
  manifests: notAnswered("manifests"),
  "engine-builds": notAnswered("engine-builds"),
  "witness-verdicts": notAnswered("witness-verdicts"),
  builds: notAnswered("builds"),
  "among-kept": notAnswered("among-kept"),
  "store-reach": notAnswered("store-reach"),
  "record-verdict": notAnswered("record-verdict"),
  "verdict-of": notAnswered("verdict-of"),
  "set-build": notAnswered("set-build"),
  "set-rollback": notAnswered("set-rollback"),
  "send-plan": notAnswered("send-plan"),
  "holder-list": notAnswered("holder-list"),
  publish: notAnswered("publish"),
  "save-plan": notAnswered("save-plan"),
  "latest-verdicts": notAnswered("latest-verdicts"),
  "probe-conditions": notAnswered("probe-conditions"),
  "raise-condition": notAnswered("raise-condition"),
  "clear-condition": notAnswered("clear-condition"),
  "lease-holder": notAnswered("lease-holder"),
  "plan-of": notAnswered("plan-of"),
  "reopen-plan": notAnswered("reopen-plan"),
  "mesh-records-read": notAnswered("mesh-records-read"),
  "record-build": notAnswered("record-build"),
  "kept-statement": notAnswered("kept-statement"),
  "write-statement": notAnswered("write-statement"),
  "kept-witness": notAnswered("kept-witness"),
  "write-witness": notAnswered("write-witness"),
}

/** Some of the gate's questions answered (a test's, a worker's): any other asked is a defect of the wiring. */
export const answering = <E, R>(some: Partial<Answers<GateQuestions, E, R>>): Answers<GateQuestions, E, R> => ({
  ...unanswered,
  ...some,
})

/**
 * A machine's health statement kept (core/src/gate/messages/statements.ts), in the follower's transaction:
 * a store that fails any of it fails the whole, and the statement comes again.
 */
export type StatementQuestions = GateQuestions & typeof setAsideQuestions

export const statementAnswers = Effect.gen(function* () {
  const gates = yield* GateStore
  const answers: Answers<StatementQuestions, StoreUnreadable, never> = {
    ...unanswered,
    ...(yield* setAsideAnswers),
    "kept-statement": (q) => gates.keptStatement(q.machine),
    "write-statement": (q) => Effect.as(gates.writeStatement(q.statement, q.streaks), done),
    "raise-condition": (q) => Effect.as(gates.raiseCondition(q.observation, q.at), done),
    "clear-condition": (q) => Effect.as(gates.clearCondition(q.key, q.by), done),
  }
  return answers
})

/**
 * A machine's witness's verdict kept (core/src/gate/messages/witnesses.ts), in the follower's transaction: a
 * store that fails any of it fails the whole, and the verdict comes again.
 */
export const witnessAnswers = Effect.gen(function* () {
  const gates = yield* GateStore
  const answers: Answers<StatementQuestions, StoreUnreadable, never> = {
    ...unanswered,
    ...(yield* setAsideAnswers),
    "kept-witness": (q) => gates.keptWitness(q.machine, q.component),
    "write-witness": (q) => Effect.as(gates.writeWitness(q.machine, q.verdict), done),
  }
  return answers
})

type Failure = { readonly message: string }

/** An act done, or why not. */
const outcome = <E extends Failure, R>(act: Effect.Effect<unknown, E, R>): Effect.Effect<Outcome, never, R> =>
  act.pipe(
    Effect.as(done),
    Effect.catch((e: E) => Effect.succeed<Outcome>({ ok: false, why: e.message })),
  )

/** The services the gate's answers are given over: the store's, the bus's and its connection. */
interface GateServices {
  readonly gates: GateStore["Service"]
  readonly delivery: DeliveryStore["Service"]
  readonly bus: MeshBus["Service"]
  readonly connection: Bus["Service"]
  readonly standings: StandingsStore["Service"]
}

/** What one judging reads, gathered once for every plan judged. Unreadable is said, never healthy. */
const gatherFacts = Effect.fn("Gate.gatherFacts")(function* (
  names: DeliveryNames,
  { gates, delivery, bus, connection, standings }: GateServices,
) {
  const now = yield* Clock.currentTimeMillis
  const both = yield* readOrWhy(Effect.all([delivery.reports, delivery.sent]))
  const facts: GateFactsRecord = {
    now,
    reports: both.ok ? reportedFacts(both.value[0], both.value[1]) : {},
    // Reports that could not be read are said as such, never as machines that have not reported (003-3).
    ...(both.ok ? {} : { reportsUnread: both.why }),
    engines: {},
    served: yield* readOrWhy(bus.served(names.mesh)),
    // The failing standings are open conditions too (issue 40), read from the standings kept.
    open: yield* readOrWhy(
      Effect.map(Effect.all([gates.openConditions, standings.failing]), ([cs, failing]) => [
        ...cs.map((c) => ({
          key: c.key,
          source: c.source,
          raised: c.raised,
          scope: c.scope,
          id: c.id,
          also: c.also,
          kind: c.kind,
          summary: c.summary,
          ...(c.machine === undefined ? {} : { machine: c.machine }),
        })),
        ...standingsAsConditions(failing),
      ]),
    ),
    rolledBack: {},
    // Who holds the controller lease, read from the lease itself (issue 13): a recorded judging says so.
    holder: yield* leaseHolderFact(connection, leaseBucketName(names.mesh), now),
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
const sendPlan = (
  push: PushServices,
  names: DeliveryNames,
  q: QuestionOf<GateQuestions, "send-plan">,
  say: (line: string) => Effect.Effect<void>,
  epoch?: number,
) =>
  pushDrivenOver(push, { ...planSendAsk(q), names, say, ...(epoch === undefined ? {} : { epoch }) }).pipe(
    // Each answer is the one its question's handler gave, typed by the delivery catalogue (answers.ts):
    // the driver keeps them untyped, in order.
    Effect.map(({ end, answers }) => ({
      ...planSendOutcome(q, end),
      exchanges: answers.map((x) => ({ q: x.q, a: x.a }) as PushExchange),
    })),
    // A refusal of the store's fence is no outcome of the send: it stops the controller (issue 26), so it
    // goes on to the lease (actUnderTheLease) rather than be answered as a send that failed.
    Effect.catchIf(
      (e) => !(e instanceof Fenced),
      (e) => Effect.succeed({ told: [] as Array<string>, error: e.message }),
    ),
  )

/**
 * Every question of the gate's programs (the tick, release, the verbs) answered with the services; an
 * act only under the lease (ActGuard). `lease-holder` is answered by serve's verbs, from the lease
 * this controller holds (verbs.ts verbHandlers): elsewhere no program asks it.
 */
export const gateAnswers = Effect.fn("Gate.answers")(function* (
  names: DeliveryNames,
  sayLine: (line: string) => Effect.Effect<void>,
) {
  const services: GateServices = {
    gates: yield* GateStore,
    delivery: yield* DeliveryStore,
    bus: yield* MeshBus,
    connection: yield* Bus,
    standings: yield* StandingsStore,
  }
  const { gates, delivery, bus } = services
  const store = yield* Store
  const guard = yield* ActGuard
  // A plan's send is the delivery area's push, over its services taken once, here.
  const push = yield* pushServices
  // An operation of the store, failed as the store's typed error, said with what it was for.
  const said = <A>(what: string, op: Effect.Effect<A, StoreUnreadable>) =>
    op.pipe(Effect.mapError((e) => new StoreUnreadable({ url: e.url, reason: `${what}: ${e.reason}`, cause: e })))
  const answers: Answers<GateQuestions, StoreUnreadable, never> = {
    "plans-in-flight": () => readOrWhy(Effect.map(gates.plansInFlight, (value) => [...value])),
    "plan-of": (q) => readOrWhy(gates.planOf(q.id)),
    now: () => Clock.currentTimeMillis,
    "gate-facts": () => gatherFacts(names, services),
    builds: (q) =>
      Effect.map(readOrWhy(gates.builds(q.builds)), (r) => (r.ok ? { ok: true as const, value: [...r.value] } : r)),
    "among-kept": (q) => readOrWhy(gates.amongKept(q.module, q.build, q.kept)),
    "store-reach": (q) => storeReach(q.build).pipe(Effect.provideService(Store, store)),
    "record-verdict": (q) =>
      guard.write(gates.recordVerdict(q.verdict)).pipe(
        Effect.map((mine) => ({ ok: true as const, mine })),
        Effect.catch((e) => Effect.succeed({ ok: false as const, why: e.message })),
      ),
    "verdict-of": (q) => readOrWhy(gates.verdictOf(q.build)),
    "latest-verdicts": () => readOrWhy(Effect.map(gates.latestVerdicts, (v) => [...v])),
    // What each machine's witness said it decided, as the witness follower kept it (issue 26).
    "witness-verdicts": () => readOrWhy(said("the witnesses' verdicts cannot be read", gates.witnessVerdicts)),
    "probe-conditions": (q) => readOrWhy(Effect.map(gates.probeConditions(q.source), (v) => [...v])),
    "engine-builds": () => readOrWhy(said("which build each node-engine runs cannot be read", gates.engineBuilds)),
    manifests: (q) =>
      readOrWhy(
        said(
          "the modules' records cannot be read",
          Effect.map(delivery.records, (records) => manifestsOf(records, q.modules)),
        ),
      ),
    "holder-list": () => readOrWhy(holderListOf(delivery)),
    "mesh-records-read": () =>
      readOrWhy(
        said(
          "the mesh's records cannot be read",
          Effect.map(delivery.records, (records) => records ?? null),
        ),
      ),
    "record-build": (q) => outcome(guard.write(said("the build cannot be recorded", gates.recordBuild(q.build)))),
    "set-build": (q) => outcome(guard.write(delivery.setBuild(q.module, q.build, q.commit))),
    // A send only while the lease is held, its writes and grants fenced under its epoch (docs/lease.md).
    "send-plan": (q) =>
      guard
        .act((epoch) => sendPlan(push, names, q, sayLine, epoch))
        .pipe(Effect.catch((e) => Effect.succeed({ told: [] as Array<string>, error: e.message }))),
    "set-rollback": (q) => outcome(guard.write(gates.setRollback(q.build, q.rollback, q.why))),
    "raise-condition": (q) => outcome(guard.write(gates.raiseCondition(q.observation, q.at))),
    "clear-condition": (q) => outcome(guard.write(gates.clearCondition(q.key, q.by))),
    // An event on the bus is an act too: published under the lease's epoch (its Mesh-Epoch header),
    // never by a controller that no longer holds the lease.
    publish: (q) =>
      outcome(guard.act((epoch) => bus.publish(names.eventSubject(q.event), JSON.stringify(q.body), undefined, epoch))),
    "save-plan": (q) => outcome(guard.write(gates.savePlan(q.plan))),
    "reopen-plan": (q) =>
      guard.write(gates.reopenPlan(q.plan)).pipe(
        Effect.map(
          (done): Outcome =>
            done
              ? { ok: true }
              : {
                  ok: false,
                  why: `plan ${q.plan.id} is no longer failed, or another plan of ${q.plan.module} is in flight`,
                },
        ),
        Effect.catch((e) => Effect.succeed<Outcome>({ ok: false, why: e.message })),
      ),
    "lease-holder": notAnswered("lease-holder"),
    "kept-statement": (q) => gates.keptStatement(q.machine),
    "write-statement": (q) => outcome(guard.write(gates.writeStatement(q.statement, q.streaks))),
    "kept-witness": (q) => gates.keptWitness(q.machine, q.component),
    "write-witness": (q) => outcome(guard.write(gates.writeWitness(q.machine, q.verdict))),
  }
  return answers
})

/**
 * The gate's answers under `serve`, over the gate's services, its sends said as the gate's: built once
 * by its layer and asked by the gate runner and the operators' verbs, each of which provides it itself.
 */
export class GateAnswers extends Context.Service<GateAnswers, Answers<GateQuestions, StoreUnreadable, never>>()(
  "mesh-core/gate/GateAnswers",
) {
  static readonly layer = Layer.effect(
    GateAnswers,
    Effect.gen(function* () {
      const journal = yield* Journal
      const names = deliveryNames((yield* ControllerSettings).busPrefix)
      return GateAnswers.of(yield* gateAnswers(names, (l) => journal.say(`[gate] ${l}`)))
    }),
  )
}
