// npm run bench:gate-cost: what the gate reads for a mesh whose machines state their health every 10 s
// (issue 41), over 1,000 and 10,000 machines, idle (no plan in flight) and with 5 plans open, for three
// runners driving the core's own gate program over the same simulated world in the same run:
//   - on what changes (now): what is heard runs a pass only when the core's wake rule finds it worth one
//     (worthAPass over the plans the last pass left), or a wake-up it scheduled falls due;
//   - every event (before): every statement heard wakes a pass, as the gate ran before issue 41;
//   - timer: a pass every 40 s, as before plans moved on events.
// Wakes heard within 100 ms of each other are one pass (a pass takes about that on a loaded store). The
// five plans count passes `every` 40 s apart (never decided within the window); once a minute one plan's
// machine states a resource starting and, 10 s later, healthy again (two inputs changed a minute).
// Prints figures per minute; asserts nothing.
import type { Question } from "@mesh-core/core/controller/catalogue"
import { defaultGateSettings } from "@mesh-core/core/gate/judging/judge"
import type { StatementRecord } from "@mesh-core/core/gate/judging/facts"
import type { PlanRecord } from "@mesh-core/core/gate/plan/records"
import { gateTick, type TickResult } from "@mesh-core/core/gate/tick/tick"
import { type GateWake, type Heard, lookAt, readsPlansFirst, worthAPass } from "@mesh-core/core/gate/plan/wake"
import { runPure } from "@mesh-core/core/program"
import { gateFacts } from "../support/gate-facts.ts"

const s = { ...defaultGateSettings, passes: 1_000 }
const minutes = 8
const span = minutes * 60_000
const quantum = 100
const stateEvery = 10_000
const reads = new Set([
  "plans-in-flight",
  "gate-facts",
  "witness-verdicts",
  "engine-builds",
  "manifests",
  "latest-verdicts",
  "probe-conditions",
])

const planOf = (i: number): PlanRecord => ({
  id: `letta${i}-2`,
  module: `letta${i}`,
  build: `letta${i}-2`,
  commit: "5e1f0c2a9b",
  previous: "a71c3d09e4",
  previousBuild: `letta${i}-1`,
  machines: [`m${i}`],
  rest: [],
  sentAt: 0,
  state: "open",
  note: "",
  tiers: [[`m${i}`]],
  tier: 0,
  sent: [`m${i}`],
  triedAt: 0,
})

/** What machine `m` states at `at`: healthy, but for a plan's machine in the 10 s after its change of the minute. */
const statementOf = (m: number, at: number, plans: number): StatementRecord => {
  const minute = Math.floor(at / 60_000)
  const starting = plans > 0 && m === minute % plans && at % 60_000 >= 30_000 && at % 60_000 < 40_000
  return {
    machine: `m${m}`,
    at,
    resources: [{ resource: "api", module: `letta${m}`, state: starting ? "starting" : "healthy" }],
  }
}

interface Cost {
  passes: number
  judgings: number
  reads: number
  discoveries: number
}

const world = (plans: number, cost: Cost) => {
  const byId = new Map(Array.from({ length: plans }, (_, i) => [planOf(i).id, planOf(i)] as const))
  const health = new Map<string, StatementRecord>()
  const answer =
    (now: number) =>
    (q: Question): unknown => {
      if (reads.has(q.q)) cost.reads += 1
      switch (q.q) {
        case "plans-in-flight":
          return { ok: true, value: [...byId.values()].filter((p) => p.state === "open") }
        case "now":
          return now
        case "gate-facts":
          cost.discoveries += 1
          return gateFacts(
            now,
            Object.fromEntries(
              [...byId.values()].map((p) => [p.machines[0]!, { at: 1, current: true, outcome: "applied" }]),
            ),
            { health: { ok: true, value: Object.fromEntries(health) } },
          )
        case "save-plan":
          byId.set(q.plan.id, q.plan)
          return { ok: true }
        case "builds":
        case "latest-verdicts":
        case "probe-conditions":
          return { ok: true, value: [] }
        case "witness-verdicts":
        case "engine-builds":
        case "manifests":
          return { ok: true, value: {} }
        default:
          return { ok: true }
      }
    }
  const pass = (now: number, wakes?: ReadonlyArray<GateWake>): TickResult => {
    cost.passes += 1
    const r = runPure(gateTick(s, wakes), answer(now)).result
    cost.judgings += r.judgings.length
    return r
  }
  return { pass, health, inFlight: () => [...byId.values()].filter((p) => p.state === "open") }
}

type Runner = "now" | "before" | "timer"

const run = (machines: number, plans: number, runner: Runner): Cost => {
  const cost: Cost = { passes: 0, judgings: 0, reads: 0, discoveries: 0 }
  const w = world(plans, cost)
  // What each machine said last, for a statement saying the same.
  const said = new Map<number, StatementRecord>()
  let last = w.pass(0, runner === "timer" ? undefined : [{ kind: "lease" }])
  let at = lookAt(last.wakeAt, 0, s)
  // Counted after the first look (a new holder's, which reads every plan once).
  Object.assign(cost, { passes: 0, judgings: 0, reads: 0, discoveries: 0 })
  let nextTimer = 40_000
  for (let t = quantum; t < span; t += quantum) {
    const heard: Array<Heard> = []
    // The machines whose phase falls in (t - quantum, t]: each states once every 10 s.
    const from = Math.floor((((t - quantum) % stateEvery) * machines) / stateEvery)
    const to = Math.floor(((((t - 1) % stateEvery) + 1) * machines) / stateEvery)
    for (let m = from; m < to; m++) {
      const st = statementOf(m, t, plans)
      const was = said.get(m)
      said.set(m, st)
      if (m < plans) w.health.set(st.machine, st)
      const same = was !== undefined && JSON.stringify(was.resources) === JSON.stringify(st.resources)
      heard.push(
        same
          ? { kind: "machine", machine: st.machine, by: "statement", same: was.at }
          : { kind: "machine", machine: st.machine, by: "statement" },
      )
    }
    if (runner === "timer") {
      if (t >= nextTimer) {
        w.pass(t)
        nextTimer += 40_000
      }
      continue
    }
    if (runner === "before") {
      const due = at !== undefined && t >= at
      if (heard.length > 0 || due) {
        last = w.pass(t, [
          ...heard.map((h): GateWake => ({ kind: "machine", machine: h.kind === "machine" ? h.machine : "" })),
          ...(due ? [{ kind: "due" } as const] : []),
        ])
        at = lookAt(last.wakeAt, t, s)
      }
      continue
    }
    const due: ReadonlyArray<Heard> = at !== undefined && t >= at ? [{ kind: "due" }] : []
    let known = last.plans ?? []
    if (readsPlansFirst([...heard, ...due], known)) {
      cost.reads += 1
      known = w.inFlight()
    }
    const woke = worthAPass([...heard, ...due], known, t, s)
    if (woke.length === 0 && due.length > 0) at = lookAt(undefined, t, s)
    if (woke.length > 0) {
      last = w.pass(t, woke)
      at = lookAt(last.wakeAt, t, s)
    }
  }
  return cost
}

const perMinute = (n: number) => (n / minutes).toFixed(1)
console.log(
  `gate: machines stating their health every 10 s, ${minutes} minutes simulated after the first look (every ${s.every / 1_000} s; wakes within ${quantum} ms are one pass)`,
)
console.log(
  "| machines | plans open | runner | passes a minute | judgings a minute | reads a minute | discoveries a minute |",
)
console.log("| --- | --- | --- | --- | --- | --- | --- |")
for (const machines of [1_000, 10_000]) {
  for (const plans of [0, 5]) {
    for (const runner of ["now", "before", "timer"] as const) {
      const c = run(machines, plans, runner)
      const name =
        runner === "now" ? "on what changes" : runner === "before" ? "every event (before)" : "timer every 40 s"
      console.log(
        `| ${machines.toLocaleString("en")} | ${plans} | ${name} | ${perMinute(c.passes)} | ${perMinute(c.judgings)} | ${perMinute(c.reads)} | ${perMinute(c.discoveries)} |`,
      )
    }
  }
}
console.log("")
console.log(
  `target (on what changes): idle 0 judgings; 5 plans at most 5 x 60/${s.every / 1_000} = ${(5 * 60_000) / s.every} plus the 2 inputs changed a minute`,
)
