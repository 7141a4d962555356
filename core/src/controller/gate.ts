// The release gate as the controller runs it (seed 003, novox/hq ADR 0236): on every tick, each open
// plan is judged with the facts of that tick, and its verdict is acted on. Passed, the verdict is
// kept once per build and the rest are sent; failed, the rollback is decided in the seed's order
// (rollback.ts), the registered build is put back and sent, the condition is raised and the event
// `rolled-back` said. Every read and act is a question this program asks, so the live runner and a
// replayed day run this one code path (issue 8: the replay used to keep its own copy of it).
import { short } from "../gate/facts.ts"
import { type Gate, type GateSettings, judgeMoves, openGate } from "../gate/judge.ts"
import { gateLine, gateObservation, type Observation, rolledBackEvent } from "../gate/observations.ts"
import { batchRollbacks, decideRollback, keptBuilds, notAmongKept, type RollbackFacts, unchangedBy } from "../gate/rollback.ts"
import { ask, type Program, say } from "./program.ts"
import { gateFactsOf, gateOf, gateRecordOf, type ObservationRecord, type PlanRecord } from "./records.ts"

const observationRecord = (o: Observation): ObservationRecord => {
  const { resolver, ...rest } = o
  return resolver === undefined ? rest : { ...rest, resolver }
}

/** What the tick did, for whoever counts: plans judged and verdicts given. */
export interface TickResult {
  readonly judged: number
  readonly verdicts: ReadonlyArray<{ readonly plan: string; readonly verdict: "passed" | "failed" }>
}

/** One tick of the gate: every open plan judged with the facts read once for all of them. */
export function* gateTick(settings: GateSettings): Program<TickResult> {
  const open = yield* ask({ q: "open-plans" })
  if (!open.ok) {
    yield* say(`[gate] the open plans cannot be read, so none is judged this time: ${open.why}`)
    return { judged: 0, verdicts: [] }
  }
  if (open.value.length === 0) return { judged: 0, verdicts: [] }
  const facts = gateFactsOf(yield* ask({ q: "gate-facts" }))
  let judged = 0
  const verdicts: Array<TickResult["verdicts"][number]> = []
  for (const plan of open.value) {
    const gate = plan.gate === undefined ? openGate(plan.module, plan.machines, plan.previous, plan.commit, plan.sentAt) : gateOf(plan.gate)
    const r = judgeMoves(gate, plan.machines.map((node) => ({ module: plan.module, node })), facts, new Map(), settings)
    if (!r.judged) continue
    judged += 1
    yield* say(`[gate] ${plan.id}: ${plan.module}: ${gateLine(r.gate, settings)}`)
    const next = r.gate.verdict === "passed"
      ? yield* passed(plan, r.gate, facts.now)
      : r.gate.verdict === "failed"
      ? yield* failed(plan, r.gate, facts.now)
      : { ...plan, gate: gateRecordOf(r.gate) }
    // Another controller kept this verdict and acts on it: its record of the plan is the one kept.
    if (next === undefined) continue
    if (r.gate.verdict !== "") verdicts.push({ plan: plan.id, verdict: r.gate.verdict })
    const saved = yield* ask({ q: "save-plan", plan: next })
    if (!saved.ok) yield* say(`[gate] ${plan.id}: the plan could not be kept: ${saved.why}`)
  }
  return { judged, verdicts }
}

const verdictOf = (plan: PlanRecord, g: Gate, verdict: "passed" | "failed", rollback: string) => ({
  build: plan.build, module: plan.module, commit: plan.commit, previous: plan.previous, plan: plan.id, machines: g.machines,
  verdict, rollback, why: g.why, component: g.component, judgingFrom: g.since,
})

/**
 * A pass: kept like any verdict, once per build; only the controller whose verdict the store kept
 * acts on it, so two controllers judging at once do not both send the rest. A newer build that
 * passes clears what an earlier one's failure raised.
 */
function* passed(plan: PlanRecord, g: Gate, now: number): Program<PlanRecord | undefined> {
  const kept = yield* ask({ q: "record-verdict", verdict: verdictOf(plan, g, "passed", "") })
  if (!kept.ok) {
    yield* say(`[gate] ${plan.id}: its verdict could not be kept, so nothing is acted on yet: ${kept.why}`)
    return undefined
  }
  if (!kept.mine) return undefined
  for (const rollback of ["rolled-back", "not-rolled-back"]) {
    const o = gateObservation(plan.module, g.component, g.machines, rollback, "", "", plan.commit, plan.previous)
    yield* ask({ q: "clear-condition", key: o.key, by: "DG" })
  }
  let note = `${plan.module} passed its gate on ${plan.machines.join(", ")} (${g.why}); the rest are sent`
  if (plan.rest.length > 0) {
    const sent = yield* ask({ q: "send", machines: plan.rest, why: "rest", module: plan.module })
    if (sent.error !== undefined) note = `passed; sending the rest failed: ${sent.error}`
  }
  void now
  return { ...plan, state: "passed", gate: gateRecordOf(g), note }
}

/** A failure: the rollback decided in the seed's order, carried out, and said. */
function* failed(plan: PlanRecord, g: Gate, now: number): Program<PlanRecord | undefined> {
  const rb = yield* rollBack(plan, g, now)
  if (rb.rollback === "already-kept") return undefined
  const note = `${plan.module} failed its gate on ${g.machines.join(", ")}: ${g.why}; ${rb.note}`
  yield* say(`[gate] ${plan.id}: ${note}`)
  return { ...plan, state: "failed", gate: gateRecordOf({ ...g, rollback: rb.rollback }), note }
}

function* rollBack(plan: PlanRecord, g: Gate, now: number): Program<{ readonly rollback: string; readonly note: string }> {
  const move = { module: plan.module, machines: g.machines, build: plan.build, previous: plan.previous, commit: plan.commit }
  const wanted = plan.previousBuild === undefined ? [plan.build] : [plan.build, plan.previousBuild]
  const builds = yield* ask({ q: "builds", builds: wanted })
  const known = builds.ok ? builds.value : []
  const newBuild = known.find((b) => b.build === plan.build)
  const prev = known.find((b) => b.build === plan.previousBuild)
  const sources = new Map<string, string>()
  if (newBuild?.source !== undefined) sources.set(plan.commit, newBuild.source)
  if (prev?.source !== undefined) sources.set(plan.previous, prev.source)
  let facts: RollbackFacts = {
    unchanged: unchangedBy(plan.previous, plan.commit, { sourceFingerprint: sources, artifacts: new Map() }),
    recorded: undefined, previousBuild: undefined,
  }
  let d = decideRollback(move, g.why, facts)
  while (!d.decided) {
    if (d.ask === "record-verdict") {
      const kept = yield* ask({ q: "record-verdict", verdict: verdictOf(plan, g, "failed", "rolling-back") })
      facts = { ...facts, recorded: kept.ok ? (kept.mine ? "recorded" : "already-kept") : { error: kept.why } }
    } else {
      const among = prev === undefined ? undefined : yield* ask({ q: "among-kept", module: plan.module, build: prev.build, kept: keptBuilds })
      const found = prev !== undefined && among !== undefined && among.ok && among.value
      facts = { ...facts, previousBuild: found ? { found: true, build: prev.build, commit: prev.commit } : { found: false, why: notAmongKept(plan.module, plan.previous) } }
    }
    d = decideRollback(move, g.why, facts)
  }
  if (d.rollback === "already-kept") return { rollback: "already-kept", note: d.said }
  if (d.rollback === "unchanged") return { rollback: "unchanged", note: d.said }
  let rollback = "not-rolled-back"
  let note = d.rollback === "restore" ? "" : d.said
  if (d.rollback === "restore") {
    // Every module this send put back, in one send per machine (issue 281).
    const sends = batchRollbacks([{ module: plan.module, machines: g.machines, build: d.build }])
    const machines = sends.map((s) => s.machine)
    const back = yield* ask({ q: "set-build", module: plan.module, build: d.build, commit: d.commit })
    const sent = back.ok ? yield* ask({ q: "send", machines, why: "rollback", module: plan.module }) : { told: [], error: back.why }
    rollback = sent.error === undefined ? "rolled-back" : "not-rolled-back"
    note = sent.error === undefined
      ? `put back to ${short(d.commit)} (${d.build}) on ${machines.join(", ")}, in one send per machine`
      : `its registered build is back at ${short(d.commit)}, and sending it was refused: ${sent.error} — \`push ${g.machines[0]}\` sends it`
  }
  yield* ask({ q: "set-rollback", build: plan.build, rollback })
  const notWhy = rollback === "rolled-back" ? "" : note
  const o = gateObservation(plan.module, g.component, g.machines, rollback, g.why, notWhy, plan.commit, plan.previous)
  yield* ask({ q: "raise-condition", observation: observationRecord(o), at: now })
  yield* say(`[gate] ${o.summary}`)
  const told = yield* ask({ q: "publish", event: "rolled-back", body: rolledBackEvent(now, plan.module, g, rollback, notWhy, o.key) })
  if (!told.ok) yield* say(`[gate] ${plan.module}'s rollback could NOT be said on the bus: ${told.why}`)
  return { rollback, note }
}
