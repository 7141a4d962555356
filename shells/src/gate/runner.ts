// The gate runner: on a schedule, runs the core's gate program (core/src/controller/gate.ts) and
// answers each question it asks by doing the I/O: the store's plans, conditions, verdicts and
// builds, the bus's discovery and events, sends through the delivery shell. What to judge, what a
// verdict means, how a rollback ends and what is said are the program's; this only reads, writes,
// sends and waits (issue 8).
import { jetstream } from "@nats-io/jetstream"
import { gateTick } from "@mesh-core/core/controller/gate"
import type { Program, Yielded } from "@mesh-core/core/controller/program"
import type { Answers, Question } from "@mesh-core/core/controller/questions"
import { gateOf, gateRecordOf, type GateFactsRecord, type PlanRecord } from "@mesh-core/core/controller/records"
import type { GateSettings } from "@mesh-core/core/gate/judge"
import { Clock, Duration, Effect } from "effect"
import { Bus } from "../bus/nats.ts"
import { servedOnTheBus } from "../bus/discovery.ts"
import { push } from "../delivery/push.ts"
import type { DeliveryNames } from "../delivery/wire.ts"
import { Journal, say } from "../journal.ts"
import { amongKept, buildOf, clearIn, openConditions, type PlanRow, plans, raiseIn, recordVerdict, savePlan, setRollback, statements } from "../store/gate.ts"
import { loadRecords, reportsAll, saveRecords, sentAll } from "../store/delivery.ts"
import { Store } from "../store/postgres.ts"

const reasonOf = (e: unknown): string => (e instanceof Error ? e.message : String(e))

const io = <A>(f: () => Promise<A>) => Effect.tryPromise({ try: f, catch: (e) => reasonOf(e) })
const outcome = <A>(f: () => Promise<A>) =>
  io(f).pipe(Effect.as({ ok: true as const }), Effect.catch((why: string) => Effect.succeed({ ok: false as const, why })))
const readable = <A>(f: () => Promise<A>) =>
  io(f).pipe(Effect.map((value) => ({ ok: true as const, value })), Effect.catch((why: string) => Effect.succeed({ ok: false as const, why })))

const recordOf = (p: PlanRow): PlanRecord => ({
  id: p.id, module: p.module, build: p.build, commit: p.commit, previous: p.previous, machines: p.machines, rest: p.rest,
  sentAt: p.sentAt, state: p.state, note: p.note,
  ...(p.previousBuild === undefined ? {} : { previousBuild: p.previousBuild }),
  ...(p.gate === undefined ? {} : { gate: gateRecordOf(p.gate) }),
})

const rowOf = (p: PlanRecord): PlanRow => ({
  id: p.id, module: p.module, build: p.build, commit: p.commit, previous: p.previous, previousBuild: p.previousBuild, machines: p.machines,
  rest: p.rest, sentAt: p.sentAt, state: p.state, gate: p.gate === undefined ? undefined : gateOf(p.gate), note: p.note,
})

/** What one judging reads, gathered once for every plan judged. Unreadable is said, never healthy. */
export const gatherFacts = (names: DeliveryNames) =>
  Effect.gen(function*() {
    const { sql } = yield* Store
    const { nc } = yield* Bus
    const now = yield* Clock.currentTimeMillis
    const both = yield* readable(() => Promise.all([reportsAll(sql), sentAll(sql)]))
    const reports: Record<string, GateFactsRecord["reports"][string]> = {}
    if (both.ok) {
      const [rs, sent] = both.value
      for (const [node, r] of rs) reports[node] = { at: r.at, current: sent.get(node)?.digest === r.digest, outcome: r.outcome }
    }
    const served = yield* readable(async () =>
      Object.fromEntries([...(await servedOnTheBus(nc, names.mesh))].map(([m, s]) => [m, { runtime: s.runtime, tools: [...s.tools] }])))
    const open = yield* readable(async () =>
      (await openConditions(sql)).map((c) => ({
        key: c.key, source: c.source, raised: c.raised, scope: c.scope, id: c.id, also: c.also, kind: c.kind, summary: c.summary,
        ...(c.machine === undefined ? {} : { machine: c.machine }),
      })))
    const health = yield* readable(async () =>
      Object.fromEntries([...(await statements(sql))].map(([m, s]) => [m, {
        machine: s.machine, at: s.at,
        resources: s.resources.map((r) => ({ resource: r.resource, module: r.module, state: r.state, ...(r.reason === undefined ? {} : { reason: r.reason }) })),
      }])))
    const facts: GateFactsRecord = { now, reports, engines: {}, served, open, rolledBack: {}, holder: { ok: true, value: null }, health }
    return facts
  })

/** The module's registered build, and the commit it was made from, put back. */
const setBuild = (module: string, build: string, commit: string) =>
  Effect.gen(function*() {
    const { sql } = yield* Store
    return yield* outcome(async () => {
      const records = await loadRecords(sql)
      if (records === undefined) throw new Error("the mesh has no records")
      await saveRecords(sql, { ...records, modules: records.modules.map((m) => (m.name === module ? { ...m, build, commit } : m)) })
    })
  })

/** Answers one question of the gate program by doing what it asks. */
const answer = (q: Question, names: DeliveryNames): Effect.Effect<Answers[keyof Answers], never, Store | Bus | Journal> =>
  Effect.gen(function*() {
    const { sql } = yield* Store
    const { nc } = yield* Bus
    const journal = yield* Journal
    switch (q.q) {
      case "open-plans":
        return yield* readable(async () => (await plans(sql, "open")).map(recordOf))
      case "gate-facts":
        return yield* gatherFacts(names)
      case "builds":
        return yield* readable(async () => {
          const found = await Promise.all(q.builds.map((b) => buildOf(sql, b)))
          return found.flatMap((b) => (b === undefined ? [] : [{ build: b.build, module: b.module, commit: b.commit, ...(b.source === undefined ? {} : { source: b.source }) }]))
        })
      case "among-kept":
        return yield* readable(() => amongKept(sql, q.module, q.build, q.kept))
      case "record-verdict":
        return yield* io(() => recordVerdict(sql, q.verdict)).pipe(
          Effect.map((mine) => ({ ok: true as const, mine })),
          Effect.catch((why: string) => Effect.succeed({ ok: false as const, why })),
        )
      case "set-build":
        return yield* setBuild(q.module, q.build, q.commit)
      case "send": {
        const error = yield* push({ machines: q.machines, node: undefined, behind: false, wait: 0, names, say: (l) => journal.say(`[gate] ${l}`) }).pipe(
          Effect.map((r) => r.error),
          Effect.catch((e) => Effect.succeed(e.message)),
        )
        return error === undefined ? { told: q.machines } : { told: [], error }
      }
      case "set-rollback":
        return yield* outcome(() => setRollback(sql, q.build, q.rollback))
      case "raise-condition":
        return yield* outcome(() => raiseIn(sql, { ...q.observation, resolver: q.observation.resolver }, q.at))
      case "clear-condition":
        return yield* outcome(() => clearIn(sql, q.key, q.by))
      case "publish":
        return yield* outcome(() => jetstream(nc).publish(names.eventSubject(q.event), JSON.stringify(q.body)))
      case "save-plan":
        return yield* outcome(() => savePlan(sql, rowOf(q.plan)))
      default:
        return yield* Effect.die(new Error(`the gate program asked ${q.q}, which the gate runner does not answer`))
    }
  })

/** Drives a core program live: each question answered by I/O, each word said. */
export const drive = <R>(program: Program<R>, names: DeliveryNames) =>
  Effect.gen(function*() {
    let next: IteratorResult<Yielded, R> = program.next(undefined)
    while (next.done !== true) {
      const y = next.value
      if (y.q === "say") {
        yield* say(y.line)
        next = program.next(undefined)
        continue
      }
      next = program.next(yield* answer(y, names))
    }
    return next.value
  })

/** Judges every open plan on a schedule, until interrupted. */
export const runGates = (names: DeliveryNames, settings: GateSettings, tick: number) =>
  Effect.gen(function*() {
    yield* say(`[gate] judging open plans every ${tick}ms (settle ${settings.settle}ms, bound ${settings.bound}ms, ${settings.passes} passes ${settings.every}ms apart)`)
    for (;;) {
      yield* drive(gateTick(settings), names).pipe(Effect.catchCause((c) => say(`[gate] the open plans could not be judged: ${String(c)}`)))
      yield* Effect.sleep(Duration.millis(tick))
    }
  })
