// The gate's answers (issue 25): every question of core/src/gate/questions.ts answered with the
// gate's services: the store's plans, conditions, verdicts and builds, the bus's discovery and events,
// sends through the delivery shell. What to judge, what a verdict means, how a rollback ends and what
// is said are the programs'; this only reads, writes, sends and waits (issue 8). Every read or act
// that fails is answered to the program as not done, with why, as the catalogue says; the health
// statements are answered inside the follower's transaction, which a failing store fails whole.
import { reportedFacts } from "@mesh-core/core/gate/gathered"
import { done, type Outcome } from "@mesh-core/core/outcome"
import type { AnswerOf, KindOf, QuestionOf } from "@mesh-core/core/program"
import type { GateQuestions } from "@mesh-core/core/gate/questions"
import type { GateFactsRecord } from "@mesh-core/core/gate/records"
import type { setAsideQuestions } from "@mesh-core/core/standings/questions"
import { Clock, Effect } from "effect"
import { MeshBus } from "../bus/mesh-bus.ts"
import { holderList as pushHolderList, push } from "../delivery/push.ts"
import type { DeliveryNames } from "../delivery/wire.ts"
import { Bus } from "../bus/nats.ts"
import { Journal } from "../journal.ts"
import type { Answers } from "../program/drive.ts"
import { runSql, type Sql, Store, StoreUnreadable } from "../store/postgres.ts"
import { loadRecords } from "../store/delivery.ts"
import { engineBuilds, manifestsOf, recordBuild } from "../store/gate.ts"
import { leaseHolderFact } from "../lease/read.ts"
import { leaseBucketName } from "../lease/bucket.ts"
import { ActGuard } from "./guard.ts"
import { DeliveryStore } from "../store/delivery.ts"
import { GateStore } from "../store/gate.ts"
import { setAsideAnswers } from "../standings/answers.ts"


/** A question no program asks where these answers are given: asked, it is a defect of the wiring. */
const notAnswered = <K extends KindOf<GateQuestions>>(kind: K) => (_q: QuestionOf<GateQuestions, K>): Effect.Effect<AnswerOf<GateQuestions, K>> =>
  Effect.die(new Error(`the program asked ${kind}, which this worker does not answer`))

/** Every gate question unanswered: what a worker answering a few of them starts from. */
export const unanswered: Answers<GateQuestions, never, never> = {
  "plans-in-flight": notAnswered("plans-in-flight"), "gate-facts": notAnswered("gate-facts"), now: notAnswered("now"),
  manifests: notAnswered("manifests"), "engine-builds": notAnswered("engine-builds"), "witness-verdicts": notAnswered("witness-verdicts"),
  builds: notAnswered("builds"), "among-kept": notAnswered("among-kept"), "record-verdict": notAnswered("record-verdict"),
  "verdict-of": notAnswered("verdict-of"), "set-build": notAnswered("set-build"), "set-rollback": notAnswered("set-rollback"),
  "send-plan": notAnswered("send-plan"), "holder-list": notAnswered("holder-list"), publish: notAnswered("publish"),
  "save-plan": notAnswered("save-plan"), "latest-verdicts": notAnswered("latest-verdicts"), "probe-conditions": notAnswered("probe-conditions"),
  "raise-condition": notAnswered("raise-condition"), "clear-condition": notAnswered("clear-condition"), "lease-holder": notAnswered("lease-holder"),
  "plan-of": notAnswered("plan-of"), "reopen-plan": notAnswered("reopen-plan"), "mesh-records": notAnswered("mesh-records"),
  "record-build": notAnswered("record-build"), "kept-statement": notAnswered("kept-statement"), "write-statement": notAnswered("write-statement"),
}

/** Some of the gate's questions answered (a test's, a worker's): any other asked is a defect of the wiring. */
export const answering = <E, R>(some: Partial<Answers<GateQuestions, E, R>>): Answers<GateQuestions, E, R> => ({ ...unanswered, ...some })

/**
 * A machine's health statement kept (core/src/gate/statements.ts), in the follower's transaction:
 * a store that fails any of it fails the whole, and the statement comes again.
 */
export type StatementQuestions = GateQuestions & typeof setAsideQuestions

export const statementAnswers = Effect.gen(function*() {
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

/**
 * A plan's own send (`send-plan`): a push of exactly these machines through the delivery shell, as the
 * plan's own request, so what other plans hold still holds (issue 9); `told` are the machines whose
 * declaration went out, so a machine a send did not reach is tried again by the gate. A dry run's
 * build (issue 10) is composed on its machines without being registered.
 */
export const sendPlan = (names: DeliveryNames, q: QuestionOf<GateQuestions, "send-plan">, say: (line: string) => Effect.Effect<void>, epoch?: number) =>
  push({
    machines: q.machines, node: undefined, behind: false, wait: 0, names, say, ...(epoch === undefined ? {} : { epoch }),
    request: { kind: "plan", plan: q.plan, why: q.why, machines: q.machines },
    ...(q.build === undefined ? {} : { dryRun: { module: q.module, build: q.build } }),
  }).pipe(
    Effect.map((r) => {
      const told = q.machines.filter((m) => r.told.some((t) => t.node === m))
      return r.error === undefined && told.length === q.machines.length ? { told } : { told, error: r.error ?? "not every machine was told" }
    }),
    Effect.catch((e) => Effect.succeed({ told: [] as Array<string>, error: e.message })),
  )

/**
 * Every question of the gate's programs (the tick, release, the verbs) answered with the services; an
 * act only under the lease (ActGuard). `lease-holder` is answered only where a controller holds a
 * lease (serve's verbs): elsewhere no program asks it.
 */
export const gateAnswers = (
  names: DeliveryNames, sayLine: (line: string) => Effect.Effect<void>, leaseHolder: Answers<GateQuestions, StoreUnreadable, never>["lease-holder"] = notAnswered("lease-holder"),
) =>
  Effect.gen(function*() {
    const gates = yield* GateStore
    const delivery = yield* DeliveryStore
    const bus = yield* MeshBus
    const store = yield* Store
    const connection = yield* Bus
    const guard = yield* ActGuard
    const withStore = <A, E>(e: Effect.Effect<A, E, Store | Bus>) => e.pipe(Effect.provideService(Store, store), Effect.provideService(Bus, connection))
    // A read of the store's own tables, failed as the store's typed error, said with what it was for.
    const sql = <A>(what: string, f: (sql: Sql) => Promise<A>) =>
      runSql(store, "Gate.sql")(f).pipe(
        Effect.mapError((e) => new StoreUnreadable({ url: e.url, reason: `${what}: ${e.reason}` })),
      )
    const answers: Answers<GateQuestions, StoreUnreadable, never> = {
      "plans-in-flight": () => readable(Effect.map(gates.plansInFlight, (value) => [...value])),
      "plan-of": (q) => readable(gates.planOf(q.id)),
      now: () => Clock.currentTimeMillis,
      "gate-facts": () => gatherFacts(names).pipe(Effect.provideService(GateStore, gates), Effect.provideService(DeliveryStore, delivery), Effect.provideService(MeshBus, bus), Effect.provideService(Bus, connection)),
      builds: (q) => Effect.map(readable(gates.builds(q.builds)), (r) => (r.ok ? { ok: true as const, value: [...r.value] } : r)),
      "among-kept": (q) => readable(gates.amongKept(q.module, q.build, q.kept)),
      "record-verdict": (q) =>
        guard.write(gates.recordVerdict(q.verdict)).pipe(
          Effect.map((mine) => ({ ok: true as const, mine })),
          Effect.catch((e) => Effect.succeed({ ok: false as const, why: e.message })),
        ),
      "verdict-of": (q) => readable(gates.verdictOf(q.build)),
      "latest-verdicts": () => readable(Effect.map(gates.latestVerdicts, (v) => [...v])),
      // No machine's witnesses say what they decided yet (issue 9: "once they exist").
      "witness-verdicts": () => Effect.succeed({ ok: true as const, value: {} }),
      "probe-conditions": (q) => readable(Effect.map(gates.probeConditions(q.source), (v) => [...v])),
      "engine-builds": () => readable(sql("which build each node-engine runs cannot be read", (s) => engineBuilds(s))),
      manifests: (q) => readable(sql("the modules' records cannot be read", async (s) => manifestsOf(await loadRecords(s), q.modules))),
      "holder-list": () => readable(pushHolderList.pipe(Effect.provideService(Store, store))),
      "mesh-records": () => readable(sql("the mesh's records cannot be read", async (s) => (await loadRecords(s)) ?? null)),
      "record-build": (q) => outcome(guard.write(sql("the build cannot be recorded", (s) => recordBuild(s, q.build)))),
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
      "lease-holder": leaseHolder,
      "kept-statement": (q) => gates.keptStatement(q.machine),
      "write-statement": (q) => outcome(guard.write(gates.writeStatement(q.statement, q.streaks))),
    }
    return answers
  })

/** The gate program's questions, answered with the services, its sends said as the gate's. */
export const gateAnswersSaid = (names: DeliveryNames, leaseHolder?: Answers<GateQuestions, StoreUnreadable, never>["lease-holder"]) =>
  Effect.gen(function*() {
    const journal = yield* Journal
    return yield* gateAnswers(names, (l) => journal.say(`[gate] ${l}`), leaseHolder)
  })

