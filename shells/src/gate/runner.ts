// The gate runner: over the open release plans, judges each on a schedule with the facts it gathers
// (the machines' reports, the open conditions, their health statements, who serves what on the bus),
// and acts on the verdict: passed, the rest of the machines are sent; failed, the rollback the core
// decides is carried out through the delivery shell, once per build (the store refuses a second
// verdict), said as a condition and as the event `rolled-back`.
import { jetstream } from "@nats-io/jetstream"
import type { GateFacts, Reported } from "@mesh-core/core/gate/facts"
import { type Gate, type GateSettings, judgeMoves, openGate } from "@mesh-core/core/gate/judge"
import { gateLine, gateObservation, rolledBackEvent } from "@mesh-core/core/gate/observations"
import { batchRollbacks, decideRollback, keptBuilds, notAmongKept, type RollbackFacts, unchangedBy } from "@mesh-core/core/gate/rollback"
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

const readable = <A>(f: () => Promise<A>) =>
  Effect.tryPromise({ try: f, catch: (e) => reasonOf(e) }).pipe(
    Effect.map((value) => ({ ok: true as const, value })),
    Effect.catch((why: string) => Effect.succeed({ ok: false as const, why })),
  )

/** What one judging reads, gathered once for every machine it judges. Unreadable is said, never healthy. */
export const gatherFacts = (names: DeliveryNames) =>
  Effect.gen(function*() {
    const { sql } = yield* Store
    const { nc } = yield* Bus
    const now = yield* Clock.currentTimeMillis
    const [reports, sent] = yield* Effect.promise(() => Promise.all([reportsAll(sql), sentAll(sql)]))
    const reported = new Map<string, Reported>()
    for (const [node, r] of reports) reported.set(node, { at: r.at, current: sent.get(node)?.digest === r.digest, outcome: r.outcome })
    const facts: GateFacts = {
      now, reports: reported, engines: new Map(),
      served: yield* readable(() => servedOnTheBus(nc, names.mesh)),
      open: yield* readable(() => openConditions(sql)),
      rolledBack: new Map(), holder: { ok: true, value: undefined },
      health: yield* readable(() => statements(sql)),
    }
    return facts
  })

/** The module's registered build, and the commit it was made from, put back. */
const setBuild = (sql: Parameters<typeof saveRecords>[0], module: string, build: string, commit: string) =>
  Effect.promise(async () => {
    const records = await loadRecords(sql)
    if (records === undefined) throw new Error("the mesh has no records")
    await saveRecords(sql, { ...records, modules: records.modules.map((m) => (m.name === module ? { ...m, build, commit } : m)) })
  })

const rollBack = (plan: PlanRow, g: Gate, names: DeliveryNames) =>
  Effect.gen(function*() {
    const { sql } = yield* Store
    const { nc } = yield* Bus
    const journal = yield* Journal
    const move = { module: plan.module, machines: g.machines, build: plan.build, previous: plan.previous, commit: plan.commit }
    const [now, prev] = yield* Effect.promise(() => Promise.all([buildOf(sql, plan.build), plan.previousBuild === undefined ? undefined : buildOf(sql, plan.previousBuild)]))
    const sources = new Map<string, string>()
    if (now?.source !== undefined) sources.set(plan.commit, now.source)
    if (prev?.source !== undefined) sources.set(plan.previous, prev.source)
    let facts: RollbackFacts = { unchanged: unchangedBy(plan.previous, plan.commit, { sourceFingerprint: sources, artifacts: new Map() }), recorded: undefined, previousBuild: undefined }
    let d = decideRollback(move, g.why, facts)
    while (!d.decided) {
      if (d.ask === "record-verdict") {
        const recorded = yield* Effect.result(Effect.tryPromise(() => recordVerdict(sql, {
          build: plan.build, module: plan.module, commit: plan.commit, previous: plan.previous, plan: plan.id, machines: g.machines,
          verdict: "failed", rollback: "rolling-back", why: g.why, component: g.component, judgingFrom: g.since,
        })))
        facts = { ...facts, recorded: recorded._tag === "Failure" ? { error: reasonOf(recorded.failure) } : recorded.success ? "recorded" : "already-kept" }
      } else {
        const kept = prev !== undefined && (yield* Effect.promise(() => amongKept(sql, plan.module, prev.build, keptBuilds)))
        facts = { ...facts, previousBuild: kept && prev !== undefined ? { found: true, build: prev.build, commit: prev.commit } : { found: false, why: notAmongKept(plan.module, plan.previous) } }
      }
      d = decideRollback(move, g.why, facts)
    }
    if (d.rollback === "already-kept") return { rollback: "already-kept", note: d.said }
    let rollback = "not-rolled-back"
    let note = d.rollback === "restore" ? "" : d.said
    if (d.rollback === "restore") {
      // Every module this send put back, in one send per machine (issue 281).
      const sends = batchRollbacks([{ module: plan.module, machines: g.machines, build: d.build }])
      yield* setBuild(sql, plan.module, d.build, d.commit)
      const sentBack = yield* push({ machines: sends.map((s) => s.machine), node: undefined, behind: false, wait: 0, names, say: (l) => journal.say(`[gate] ${l}`) }).pipe(
        Effect.map((r) => r.error),
        Effect.catch((e) => Effect.succeed(e.message)),
      )
      rollback = sentBack === undefined ? "rolled-back" : "not-rolled-back"
      note = sentBack === undefined
        ? `put back to ${d.commit.slice(0, 7)} (${d.build}) on ${sends.map((s) => s.machine).join(", ")}, in one send per machine`
        : `its registered build is back at ${d.commit.slice(0, 7)}, and sending it was refused: ${sentBack} — \`push ${g.machines[0]}\` sends it`
    }
    if (d.rollback !== "unchanged") {
      yield* Effect.promise(() => setRollback(sql, plan.build, rollback))
      const o = gateObservation(plan.module, g.component, g.machines, rollback, g.why, rollback === "rolled-back" ? "" : note, plan.commit, plan.previous)
      yield* Effect.promise(() => raiseIn(sql, o, Date.now()))
      yield* say(`[gate] ${o.summary}`)
      const event = rolledBackEvent(Date.now(), plan.module, g, rollback, rollback === "rolled-back" ? "" : note, o.key)
      yield* Effect.tryPromise({ try: () => jetstream(nc).publish(names.eventSubject("rolled-back"), JSON.stringify(event)), catch: (e) => e }).pipe(
        Effect.catch((e) => say(`[gate] ${plan.module}'s rollback could NOT be said on the bus: ${reasonOf(e)}`)),
      )
    }
    return { rollback: d.rollback === "unchanged" ? "unchanged" : rollback, note }
  })

/** One judging of one open plan, and what its verdict asks for. */
export const judgePlan = (plan: PlanRow, names: DeliveryNames, settings: GateSettings) =>
  Effect.gen(function*() {
    const { sql } = yield* Store
    const journal = yield* Journal
    const gate = plan.gate ?? openGate(plan.module, plan.machines, plan.previous, plan.commit, plan.sentAt)
    const facts = yield* gatherFacts(names)
    const r = judgeMoves(gate, plan.machines.map((node) => ({ module: plan.module, node })), facts, new Map(), settings)
    if (!r.judged) return plan
    let next: PlanRow = { ...plan, gate: r.gate }
    yield* say(`[gate] ${plan.id}: ${plan.module}: ${gateLine(r.gate, settings)}`)
    if (r.gate.verdict === "passed") {
      // Kept like any verdict, once per build: only the controller whose verdict the store kept acts
      // on it, so two controllers judging at once do not both send the rest.
      const mine = yield* Effect.promise(() => recordVerdict(sql, {
        build: plan.build, module: plan.module, commit: plan.commit, previous: plan.previous, plan: plan.id, machines: r.gate.machines,
        verdict: "passed", rollback: "", why: r.gate.why, component: r.gate.component, judgingFrom: r.gate.since,
      }))
      if (!mine) return plan
      // A newer build that passes clears what an earlier one's failure raised.
      for (const rollback of ["rolled-back", "not-rolled-back"]) {
        const o = gateObservation(plan.module, r.gate.component, r.gate.machines, rollback, "", "", plan.commit, plan.previous)
        yield* Effect.promise(() => clearIn(sql, o.key, "DG"))
      }
      const sentRest = plan.rest.length === 0 ? undefined : yield* push({ machines: plan.rest, node: undefined, behind: false, wait: 0, names, say: (l) => journal.say(`[gate] ${l}`) }).pipe(
        Effect.map((x) => x.error), Effect.catch((e) => Effect.succeed(e.message)),
      )
      next = { ...next, state: "passed", note: sentRest === undefined ? `${plan.module} passed its gate on ${plan.machines.join(", ")} (${r.gate.why}); the rest are sent` : `passed; sending the rest failed: ${sentRest}` }
    } else if (r.gate.verdict === "failed") {
      const rb = yield* rollBack(plan, r.gate, names)
      // Another controller kept this verdict and acts on it; its record of the plan is the one kept.
      if (rb.rollback === "already-kept") return plan
      next = { ...next, state: "failed", gate: { ...r.gate, rollback: rb.rollback }, note: `${plan.module} failed its gate on ${r.gate.machines.join(", ")}: ${r.gate.why}; ${rb.note}` }
      yield* say(`[gate] ${plan.id}: ${next.note}`)
    }
    yield* Effect.promise(() => savePlan(sql, next))
    return next
  })

/** Judges every open plan on a schedule, until interrupted. */
export const runGates = (names: DeliveryNames, settings: GateSettings, tick: number) =>
  Effect.gen(function*() {
    const { sql } = yield* Store
    yield* say(`[gate] judging open plans every ${tick}ms (settle ${settings.settle}ms, bound ${settings.bound}ms, ${settings.passes} passes ${settings.every}ms apart)`)
    for (;;) {
      const open = yield* Effect.promise(() => plans(sql, "open")).pipe(Effect.catch(() => Effect.succeed([] as Array<PlanRow>)))
      for (const p of open) yield* judgePlan(p, names, settings).pipe(Effect.catchCause((c) => say(`[gate] ${p.id}: could not be judged: ${String(c)}`)))
      yield* Effect.sleep(Duration.millis(tick))
    }
  })
