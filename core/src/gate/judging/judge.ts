// Judging a build's first machines (seed 003's judgeHealth, aboutTheMachine and judgeMoves).
//
// **"Reported applied" is not enough** (ADR 0236): a build that applies and then does nothing,
// crashes, serves no tools, or breaks the machine's word to the mesh passed that test. The first
// machine is judged by the component's health, passing gatePasses times over at least gateSettle,
// within gateBound of the apply; only then are the rest sent.
import { formatDuration, rfc3339, roundToSecond } from "../../duration.ts"
import {
  ComponentController,
  ComponentEngine,
  ComponentNodeTools,
  coreComponent,
  firstLine,
  type Decided,
  type GateFacts,
  type GateRecord,
  type Manifest,
  type Pair,
  noManifest,
  own,
  type ResourceHealth,
  short,
  type Statement,
} from "./facts.ts"
export type { Pair } from "./facts.ts"
import {
  aboutTheMachine,
  type FirstCondition,
  indexConditions,
  type MachineWord,
  scanConditions,
} from "./conditions.ts"

export type Health = 0 | 1 | 2
export const healthGood: Health = 0
export const healthNotYet: Health = 1
export const healthBroken: Health = 2

export interface Word {
  readonly health: Health
  readonly why: string
}

const good: Word = { health: healthGood, why: "" }
const notYet = (why: string): Word => ({ health: healthNotYet, why })
const broken = (why: string): Word => ({ health: healthBroken, why })

/**
 * What the module's long-running resources on the machine are stated as (ADR 0240 §4): healthy only
 * when every one is stated healthy in a statement heard since the send; one still starting waits. An
 * engine that states nothing is judged as before.
 */
export const moduleHealthWord = (module: string, machine: string, since: number, f: GateFacts): Word => {
  if (!f.health.ok) return notYet(`what ${machine} states of what it runs cannot be read: ${firstLine(f.health.why)}`)
  const s = own(f.health.value, machine)
  if (s === undefined) return good
  if (s.at < since) return notYet(`${machine} has stated nothing of what it runs since it was sent`)
  const r = wantingOf(s).get(module)
  if (r === undefined) return good
  if (r.state === "unhealthy")
    return notYet(`${r.resource} of ${module} on ${machine} is stated unhealthy: ${r.reason ?? "no reason given"}`)
  return notYet(`${r.resource} of ${module} on ${machine} is still starting`)
}

// Each statement's first resource not healthy, by module, worked out once per statement: a
// judging asks it for every module on the machine.
const wanting = new WeakMap<Statement, ReadonlyMap<string, ResourceHealth>>()
const wantingOf = (s: Statement): ReadonlyMap<string, ResourceHealth> => {
  let byModule = wanting.get(s)
  if (byModule === undefined) {
    const m = new Map<string, ResourceHealth>()
    for (const r of s.resources) if (r.state !== "healthy" && !m.has(r.module)) m.set(r.module, r)
    wanting.set(s, (byModule = m))
  }
  return byModule
}

/**
 * One machine's health for a module's new build: healthy, not yet (with what is wanting), or broken
 * (a witness put it back, or the machine refused or failed what it was sent). `first` finds the open
 * condition that is evidence about it: from the index, or by reading every one (the seed's way).
 */
export const judgeHealth = (
  module: string,
  component: string,
  m: Manifest,
  machine: string,
  since: number,
  f: GateFacts,
  first: FirstCondition = scanConditions(f.open?.ok === true ? f.open.value : []),
): Word => {
  // A witness's verdict made since the build was sent: the build failed its health there. One that
  // could not judge at all (unwitnessed) is not a verdict on the build.
  for (const r of own(f.rolledBack, machine) ?? []) {
    if (component === "" || r.component !== component || r.outcome === "unwitnessed" || r.at < since) continue
    return broken(`the witness on ${machine} judged the ${r.component} ${short(r.from)} and ${r.outcome}: ${r.why}`)
  }
  // Reports that could not be read are not "it has not reported" (003-3): the tick ends that judging.
  if (f.reportsUnread !== undefined)
    return notYet(`what ${machine} reported cannot be read: ${firstLine(f.reportsUnread)}`)
  const r = own(f.reports, machine)
  if (r === undefined || r.at === null || !r.current) return notYet(`${machine} has not reported on what it was sent`)
  if (r.outcome === "failed" || r.outcome === "refused") return broken(`${machine} ${r.outcome} what it was sent`)
  if (r.outcome !== "applied") return notYet(`${machine} reported "${r.outcome}"`)
  // No new condition about it, on the machine itself or naming the module there, raised since the
  // send. The gate's own are not evidence about the build.
  if (f.open !== undefined) {
    if (!f.open.ok)
      return notYet(
        `what is wrong cannot be read, so whether the build made anything wrong is not known: ${firstLine(f.open.why)}`,
      )
    const c = first(module, machine, since)
    if (c !== undefined) return notYet(`raised since it was sent: ${c.key} — ${c.summary}`)
  }
  switch (component) {
    case ComponentEngine: {
      // A send of the engine that delivers no build of it has nothing to compare.
      const want = m.deliveredVersions
      if (want.length === 0) return good
      if (f.enginesUnread !== undefined)
        return notYet(`which build ${machine}'s node-engine reports cannot be read: ${firstLine(f.enginesUnread)}`)
      const have = own(f.engines, machine)
      if (have !== undefined && want.includes(have)) return good
      return notYet(`${machine}'s node-engine reports build ${have ?? "(not known)"}, not the new ${want.join(" or ")}`)
    }
    case ComponentNodeTools:
      if (!f.served.ok) return notYet(`whether the node tools answer cannot be asked: ${firstLine(f.served.why)}`)
      if (own(f.served.value, machine)?.runtime !== true)
        return notYet(`the node tools on ${machine} do not answer the bus`)
      return good
    case ComponentController: {
      if (!f.holder.ok) return notYet(`who holds the controller lease cannot be read: ${firstLine(f.holder.why)}`)
      const h = f.holder.value
      if (h === null) return notYet("no controller holds the lease")
      if (h.taken < since - 60_000)
        return notYet(`the lease is held since ${rfc3339(h.taken)}, by a controller older than the new build`)
      if (h.ready === true) return good
      return notYet(`the controller holding the lease does not say it is ready${h.why ? `: ${h.why}` : ""}`)
    }
    default: {
      // A module's tools answer, where it has any and the machine runs the node tools that serve them.
      if (m.tools.length > 0) {
        if (!f.served.ok) return notYet(`whether its tools are served cannot be asked: ${firstLine(f.served.why)}`)
        const s = own(f.served.value, machine)
        if (s?.runtime === true && !s.tools.includes(module))
          return notYet(`the node tools on ${machine} do not serve ${module}'s tools`)
      }
      return moduleHealthWord(module, machine, since, f)
    }
  }
}

export interface GateSettings {
  /** How long the first machine must stay healthy, at the least. */
  readonly settle: number
  /** How long after the apply the build may take to become healthy. */
  readonly bound: number
  /** How many consecutive judgings must find it healthy, `every` apart at the least. */
  readonly passes: number
  readonly every: number
  /**
   * How many judgings in a row may fail to ask (the store or the bus unreadable) before the plan is
   * paused and said (issue 10, Argo's consecutiveErrorLimit); `MESH_GATE_ERROR_LIMIT`, 4 when unset.
   */
  readonly errorLimit?: number | undefined
}

/** Judgings in a row that could not ask, after which a plan is paused. */
export const defaultErrorLimit = 4

export const defaultGateSettings: GateSettings = { settle: 120_000, bound: 600_000, passes: 3, every: 40_000 }

/** A gate: its record is what a judging reads and gives (facts.ts). */
export type Gate = GateRecord

export const openGate = (
  module: string,
  machines: ReadonlyArray<string>,
  from: string,
  to: string,
  since: number,
  carried: ReadonlyArray<Pair> = [],
): Gate => ({
  component: coreComponent(module),
  machines,
  from,
  to,
  since,
  passes: 0,
  last: "",
  failing: [],
  verdict: "",
  why: "",
  took: "",
  carried,
  rollback: "",
})

export interface Judged {
  readonly gate: Gate
  /** False when it was too soon after the last pass to judge again, or a verdict was kept. */
  readonly judged: boolean
  readonly worst: Health
  readonly why: string
}

export const decide = (g: Gate, verdict: Decided, why: string, now: number): Gate => ({
  ...g,
  verdict,
  why,
  judgedAt: now,
  took: formatDuration(roundToSecond(now - g.since)),
})

/**
 * One judging of a gate over the modules it judges on their machines: a pass counted, a pass missed
 * (what is wanting, and which modules), or the verdict. A verdict once given is kept.
 */
export const judgeMoves = (
  g: Gate,
  given: ReadonlyArray<Pair>,
  f: GateFacts,
  manifests: ReadonlyMap<string, Manifest>,
  s: GateSettings = defaultGateSettings,
  rescan = false,
): Judged => {
  if (g.verdict !== "")
    return { gate: g, judged: false, worst: g.verdict === "passed" ? healthGood : healthBroken, why: g.why }
  const now = f.now
  if (g.lastPass !== undefined && now - g.lastPass < s.every)
    return { gate: g, judged: false, worst: healthGood, why: "" }
  // A carried pair also given is judged twice to the same word: the worst, its why and what is failing stay.
  const pairs = [...given, ...g.carried]
  const all = f.open?.ok === true ? f.open.value : []
  const index = rescan ? undefined : indexConditions(all)
  // What is wrong with a machine itself is the machine's (issue 281), read once for each machine.
  const words = new Map<string, { word: MachineWord; first: FirstCondition }>()
  for (const [node, on] of Map.groupBy(pairs, (p) => p.node)) {
    const about = index === undefined ? all : (index.aboutMachine.get(node) ?? [])
    const moved = on.map((p) => p.module)
    const word = aboutTheMachine(node, moved, g.since, f, about)
    words.set(node, { word, first: index === undefined ? scanConditions(word.conditions ?? []) : index.first })
  }
  // Judged on none of its machines (none runs the module: seed 003's running filter left them all
  // out): never a pass on no evidence; not yet, and failed at the bound like any build not seen healthy.
  let worst: Health = pairs.length === 0 ? healthNotYet : healthGood
  let why = pairs.length === 0 ? "none of its machines runs it, so there is nothing to judge it on" : ""
  const failing: Array<string> = []
  for (const p of pairs) {
    const { word: w, first } = words.get(p.node)!
    const m = manifests.get(p.module) ?? noManifest
    let word = judgeHealth(p.module, coreComponent(p.module), m, p.node, g.since, f, first)
    if (word.health === healthGood) {
      const on = w.on.get(p.module)
      if (on !== undefined) word = notYet(on)
      else if (w.whole !== "") word = notYet(w.whole)
    }
    if (word.health !== healthGood && !failing.includes(p.module)) failing.push(p.module)
    if (word.health > worst) {
      worst = word.health
      why = word.why
    }
  }
  const judged = (gate: Gate): Judged => ({ gate, judged: true, worst, why })
  // What broke is put back; what was only not yet healthy beside it is too: they moved together.
  if (worst === healthBroken) return judged(decide({ ...g, failing }, "failed", why, now))
  if (worst === healthNotYet) {
    const { lastPass: _, ...unpassed } = g
    const reset: Gate = { ...unpassed, passes: 0, last: why, failing }
    const late = `not healthy within ${formatDuration(s.bound)} of its apply: ${why}`
    return judged(now - g.since > s.bound ? decide(reset, "failed", late, now) : reset)
  }
  const passed: Gate = { ...g, passes: g.passes + 1, lastPass: now, last: "", failing: [] }
  const over = formatDuration(roundToSecond(now - g.since))
  const enough = passed.passes >= s.passes && now - g.since >= s.settle
  return judged(enough ? decide(passed, "passed", `healthy ${passed.passes} times over ${over}`, now) : passed)
}
