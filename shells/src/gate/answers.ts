// The gate's answers (issues 25, 39): each family of the gate's programs answered with the gate's
// services, only its own catalogue's questions (the tick's here; the verbs' and the release's in
// operator-answers.ts, the machines' messages' in message-answers.ts): the store's plans, conditions,
// verdicts and builds, the bus's discovery and events, sends through the delivery shell. What to
// judge, what a verdict means, how a rollback ends and what is said are the programs'; this only reads,
// writes, sends and waits (issue 8). Every read or act that fails is answered to the program as not
// done, with why, as the catalogue says.
import { reportedFacts } from "@mesh-core/core/gate/judging/gathered"
import { done, type Outcome } from "@mesh-core/core/outcome"
import type { QuestionOf } from "@mesh-core/core/program"
import type { MoveQuestions, TickQuestions } from "@mesh-core/core/gate/tick/questions"
import type { GateFactsRecord } from "@mesh-core/core/gate/judging/facts"
import { Clock, Context, Effect, Layer } from "effect"
import { MeshBus } from "../bus/mesh-bus.ts"
import { holderListOf, pushDrivenOver } from "../delivery/push.ts"
import { type PushServices, pushServices } from "../delivery/answers.ts"
import { unheldChange } from "@mesh-core/core/delivery/behind"
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
import { StandingsStore } from "../store/standings.ts"
import { standingsAsConditions } from "@mesh-core/core/standings/conditions"

type Failure = { readonly message: string }

/** An act done, or why not. */
export const outcome = <E extends Failure, R>(act: Effect.Effect<unknown, E, R>): Effect.Effect<Outcome, never, R> =>
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
  q: QuestionOf<MoveQuestions, "send-plan">,
  say: (line: string) => Effect.Effect<void>,
  unheldSaid: Map<string, ReadonlyArray<string>>,
  epoch?: number,
) =>
  // Under the lease (serve): each change to a machine's unmet seat dependencies said once (ADR 0207).
  pushDrivenOver(push, {
    ...planSendAsk(q),
    served: epoch !== undefined,
    names,
    say,
    ...(epoch === undefined ? {} : { epoch }),
  }).pipe(
    Effect.tap(({ end }) =>
      Effect.forEach("result" in end ? (end.result.unheld ?? new Map()) : new Map(), ([node, lines]) =>
        Effect.forEach(unheldChange(node, unheldSaid.get(node), lines), say).pipe(
          Effect.tap(() => Effect.sync(() => unheldSaid.set(node, lines))),
        ),
      ),
    ),
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
 * The services the gate's answers are given over, taken once: the store's, the bus's and its
 * connection, the lease's guard over every act, and the delivery area's push for a plan's send. Its
 * sends are said with `sayLine`.
 */
export const gateServices = Effect.fn("Gate.services")(function* (
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
  // What serve last said of each machine's unmet seat dependencies, so it says each change once (ADR 0207).
  const unheldSaid = new Map<string, ReadonlyArray<string>>()
  return {
    ...services,
    names,
    sayLine,
    unheldSaid,
    store: yield* Store,
    guard: yield* ActGuard,
    push: yield* pushServices,
  }
})
export type GateAnswering = Effect.Success<ReturnType<typeof gateServices>>

/** An operation of the store, failed as the store's typed error, said with what it was for. */
export const said = <A>(what: string, op: Effect.Effect<A, StoreUnreadable>) =>
  op.pipe(Effect.mapError((e) => new StoreUnreadable({ url: e.url, reason: `${what}: ${e.reason}`, cause: e })))

/**
 * What carrying a plan on asks (the tick's moves, and the operators' verbs), answered; an act only
 * under the lease (ActGuard), a send and an event under its epoch (docs/lease.md).
 */
export const moveAnswers = (s: GateAnswering): Answers<MoveQuestions, StoreUnreadable, never> => {
  const { gates, delivery, bus, guard, store, push, names, sayLine, unheldSaid } = s
  return {
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
    "holder-list": () => readOrWhy(holderListOf(delivery)),
    "set-build": (q) => outcome(guard.write(delivery.setBuild(q.module, q.build, q.commit))),
    "send-plan": (q) =>
      guard
        .act((epoch) => sendPlan(push, names, q, sayLine, unheldSaid, epoch))
        .pipe(Effect.catch((e) => Effect.succeed({ told: [] as Array<string>, error: e.message }))),
    "set-rollback": (q) => outcome(guard.write(gates.setRollback(q.build, q.rollback, q.why))),
    "raise-condition": (q) => outcome(guard.write(gates.raiseCondition(q.observation, q.at))),
    "clear-condition": (q) => outcome(guard.write(gates.clearCondition(q.key, q.by))),
    // An event on the bus is an act too: published under the lease's epoch (its Mesh-Epoch header),
    // never by a controller that no longer holds the lease.
    publish: (q) =>
      outcome(guard.act((epoch) => bus.publish(names.eventSubject(q.event), JSON.stringify(q.body), undefined, epoch))),
    "save-plan": (q) => outcome(guard.write(gates.savePlan(q.plan))),
  }
}

/** The plans in flight, as the tick, the verbs and the release read them. */
export const plansInFlight = (s: GateAnswering) => () =>
  readOrWhy(Effect.map(s.gates.plansInFlight, (value) => [...value]))

/** Every question of the tick answered: a plan carried on, and what one judging and the probe read. */
export const tickAnswers = Effect.fn("Gate.tickAnswers")(function* (
  names: DeliveryNames,
  sayLine: (line: string) => Effect.Effect<void>,
) {
  const s = yield* gateServices(names, sayLine)
  const { gates, delivery } = s
  const answers: Answers<TickQuestions, StoreUnreadable, never> = {
    ...moveAnswers(s),
    "plans-in-flight": plansInFlight(s),
    now: () => Clock.currentTimeMillis,
    "gate-facts": () => gatherFacts(names, s),
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
  }
  return answers
})

/** The gate's say, under `serve`: its sends said as the gate's. */
export const gateSay = Effect.gen(function* () {
  const journal = yield* Journal
  return (l: string) => journal.say(`[gate] ${l}`)
})

/**
 * The tick's answers under `serve`, over the gate's services: built once by its layer and asked by the
 * gate runner, which provides it itself.
 */
export class TickAnswers extends Context.Service<TickAnswers, Answers<TickQuestions, StoreUnreadable, never>>()(
  "mesh-core/gate/TickAnswers",
) {
  static readonly layer = Layer.effect(
    TickAnswers,
    Effect.gen(function* () {
      const names = deliveryNames((yield* ControllerSettings).busPrefix)
      return TickAnswers.of(yield* tickAnswers(names, yield* gateSay))
    }),
  )
}
