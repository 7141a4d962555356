// Replaying a recorded rollout through the gate (`simulate` on a log of area "gate"): the facts keep
// a picture of the machines as the runner saw them; statements go through module health, which
// raises and clears its conditions; each judging fact judges the gate; a failed verdict decides the
// rollback from the facts the header recorded, and the one send per machine it makes.
import type { GateFactLine, GateHeader } from "../facts/gate-log.ts"
import { parseDuration } from "../duration.ts"
import { type Condition, type GateFacts, type LeaseHolder, type Manifest, type Readable, type Reported, type Served, type WitnessVerdict } from "./facts.ts"
import { freshHealth, type HealthMemory, hearStatement } from "./health.ts"
import { defaultGateSettings, type Gate, type GateSettings, judgeMoves, openGate, type Pair } from "./judge.ts"
import { gateObservation, type Observation, rolledBackEvent } from "./observations.ts"
import { batchRollbacks, decideRollback, notAmongKept, type RollbackFacts } from "./rollback.ts"

export type GateDecision =
  | { readonly at: number; readonly kind: "sent"; readonly module: string; readonly commit: string; readonly machines: ReadonlyArray<string> }
  | { readonly at: number; readonly kind: "condition"; readonly action: "raised" | "cleared"; readonly key: string; readonly summary: string }
  | {
    readonly at: number; readonly kind: "judging"; readonly passes: number; readonly of: number; readonly wanting: string
    readonly failing: ReadonlyArray<string>; readonly verdict: "" | "passed" | "failed"; readonly why: string; readonly took: string
  }
  | {
    readonly at: number; readonly kind: "rollback"; readonly rollback: string; readonly said: string
    readonly sends: ReadonlyArray<{ readonly machine: string; readonly modules: ReadonlyArray<{ readonly module: string; readonly build: string }> }>
    readonly observation: Observation; readonly event: Record<string, unknown>
  }

export interface GateReplay {
  readonly header: GateHeader
  readonly settings: GateSettings
  readonly gate: Gate | undefined
  readonly reports: ReadonlyMap<string, Reported>
  readonly engines: ReadonlyMap<string, string>
  readonly served: Readable<ReadonlyMap<string, Served>>
  readonly open: ReadonlyMap<string, Condition>
  readonly witnesses: ReadonlyMap<string, ReadonlyArray<WitnessVerdict>>
  readonly holder: Readable<LeaseHolder | undefined>
  readonly health: HealthMemory
  readonly judgings: number
}

export const gateSettingsOf = (h: GateHeader, base: GateSettings = defaultGateSettings): GateSettings => ({
  settle: h.settings?.settle === undefined ? base.settle : parseDuration(h.settings.settle)!,
  bound: h.settings?.bound === undefined ? base.bound : parseDuration(h.settings.bound)!,
  every: h.settings?.every === undefined ? base.every : parseDuration(h.settings.every)!,
  passes: h.settings?.passes ?? base.passes,
})

export const startGateReplay = (header: GateHeader, settings: GateSettings): GateReplay => ({
  header, settings, gate: undefined, reports: new Map(), engines: new Map(),
  served: { ok: false, why: "the bus's discovery was not asked" }, open: new Map(), witnesses: new Map(),
  holder: { ok: true, value: undefined }, health: freshHealth, judgings: 0,
})

const factsOf = (s: GateReplay, now: number): GateFacts => ({
  now, reports: s.reports, engines: s.engines, served: s.served, open: { ok: true, value: [...s.open.values()] },
  rolledBack: s.witnesses, holder: s.holder, health: { ok: true, value: s.health.statements },
})

const rollbackOf = (s: GateReplay, g: Gate, at: number): GateDecision => {
  const h = s.header.gate
  const move = { module: h.module, machines: g.machines, build: h.build, previous: h.previous, commit: h.commit }
  let facts: RollbackFacts = { unchanged: s.header.rollback.unchanged, recorded: undefined, previousBuild: undefined }
  let d = decideRollback(move, g.why, facts)
  while (!d.decided) {
    if (d.ask === "record-verdict") facts = { ...facts, recorded: s.header.rollback.verdictKept ? "already-kept" : "recorded" }
    else {
      const p = s.header.rollback.previousBuild
      facts = { ...facts, previousBuild: p === null ? { found: false, why: notAmongKept(h.module, h.previous) } : { found: true, ...p } }
    }
    d = decideRollback(move, g.why, facts)
  }
  const event = (rollback: string, notWhy: string, observation: Observation) => rolledBackEvent(at, h.module, g, rollback, notWhy, observation.key)
  if (d.rollback === "restore") {
    const observation = gateObservation(h.module, g.component, g.machines, "rolled-back", g.why, "", h.commit, h.previous)
    return {
      at, kind: "rollback", rollback: "rolled-back", said: `put back to ${d.commit.slice(0, 7)} (${d.build}) on ${g.machines.join(", ")}`,
      sends: batchRollbacks([{ module: h.module, machines: g.machines, build: d.build }]), observation, event: event("rolled-back", "", observation),
    }
  }
  const notWhy = d.rollback === "not-rolled-back" ? d.said : ""
  const observation = gateObservation(h.module, g.component, g.machines, "not-rolled-back", g.why, notWhy, h.commit, h.previous)
  return { at, kind: "rollback", rollback: d.rollback, said: d.said, sends: [], observation, event: event("not-rolled-back", notWhy, observation) }
}

export const feedGateFact = (s: GateReplay, f: GateFactLine & { readonly atMs: number }): { readonly state: GateReplay; readonly decisions: ReadonlyArray<GateDecision> } => {
  const at = f.atMs
  const h = s.header.gate
  switch (f.fact) {
    case "send": {
      if (s.gate !== undefined) return { state: s, decisions: [] }
      const carried: ReadonlyArray<Pair> = h.carried ?? []
      const gate = openGate(h.module, f.machines, h.previous, h.commit, at, carried)
      return { state: { ...s, gate }, decisions: [{ at, kind: "sent", module: h.module, commit: h.commit, machines: f.machines }] }
    }
    case "report":
      return { state: { ...s, reports: new Map(s.reports).set(f.machine, { at, current: f.current, outcome: f.outcome }) }, decisions: [] }
    case "engine":
      return { state: { ...s, engines: new Map(s.engines).set(f.machine, f.build) }, decisions: [] }
    case "holder":
      return { state: { ...s, holder: { ok: true, value: { taken: Date.parse(f.taken), ready: f.ready, why: f.why } } }, decisions: [] }
    case "discovery": {
      const served: GateReplay["served"] = f.error !== undefined
        ? { ok: false, why: f.error }
        : { ok: true, value: new Map(Object.entries(f.served ?? {}).map(([m, v]) => [m, { runtime: v.runtime, tools: new Set(v.tools) }])) }
      return { state: { ...s, served }, decisions: [] }
    }
    case "witness": {
      const list = [...(s.witnesses.get(f.machine) ?? []), { component: f.component, outcome: f.outcome, from: f.from, to: f.to, why: f.why, at }]
      return { state: { ...s, witnesses: new Map(s.witnesses).set(f.machine, list) }, decisions: [] }
    }
    case "condition": {
      const open = new Map(s.open)
      if (f.action === "clear") {
        open.delete(f.key)
        return { state: { ...s, open }, decisions: [{ at, kind: "condition", action: "cleared", key: f.key, summary: "" }] }
      }
      open.set(f.key, {
        key: f.key, source: f.source ?? "", raised: at, scope: f.scope ?? "machine", id: f.id ?? f.machine ?? "", machine: f.machine,
        also: f.also ?? [], kind: f.kind ?? "", summary: f.summary ?? "",
      })
      return { state: { ...s, open }, decisions: [{ at, kind: "condition", action: "raised", key: f.key, summary: f.summary ?? "" }] }
    }
    case "statement": {
      const words = hearStatement(s.health, { machine: f.machine, at, resources: f.resources.map((r) => ({ ...r, reason: r.reason })) })
      const open = new Map(s.open)
      const decisions: Array<GateDecision> = []
      for (const r of words.raise) {
        open.set(r.key, { key: r.key, source: "DH", raised: r.at, scope: "module", id: `${r.module}.${r.machine}`, machine: r.machine, also: [], kind: "unhealthy", summary: r.summary })
        decisions.push({ at, kind: "condition", action: "raised", key: r.key, summary: r.summary })
      }
      for (const key of words.clear) {
        open.delete(key)
        decisions.push({ at, kind: "condition", action: "cleared", key, summary: "" })
      }
      return { state: { ...s, health: words.memory, open }, decisions }
    }
    case "judge": {
      const g = s.gate
      if (g === undefined || g.verdict !== "") return { state: s, decisions: [] }
      const pairs = g.machines.map((node) => ({ module: h.module, node }))
      const manifests = new Map(Object.entries(h.manifests ?? {}) as Array<[string, Manifest]>)
      const r = judgeMoves(g, pairs, factsOf(s, at), manifests, s.settings)
      if (!r.judged) return { state: { ...s, gate: r.gate }, decisions: [] }
      const next = r.gate
      const decisions: Array<GateDecision> = [{
        at, kind: "judging", passes: next.passes, of: s.settings.passes, wanting: next.last, failing: next.failing,
        verdict: next.verdict, why: next.why, took: next.took,
      }]
      let gate = next
      if (next.verdict === "failed") {
        const rb = rollbackOf(s, next, at)
        if (rb.kind === "rollback") gate = { ...next, rollback: rb.rollback }
        decisions.push(rb)
      }
      return { state: { ...s, gate, judgings: s.judgings + 1 }, decisions }
    }
  }
}
