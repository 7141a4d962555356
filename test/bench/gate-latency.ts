// npm run bench:gate-latency: plans moved on events (core/src/gate/plan/wake.ts) beside the 40 s timer the
// gate ran on before (the anchor), both through the core's own gate program over the same world, in
// the same run, under the default settings (settle 2m, bound 10m, 3 passes 40 s apart).
//
// 1. From the instant a tier becomes decidable (its last pass may be counted and its settle has passed)
//    to its verdict, over 50 sends at random phases of the timer: the virtual delay, and the real time
//    the deciding judging took on this machine.
// 2. Judgings a minute with 100 open plans and nothing changing (their machines have not reported yet,
//    their bound far off), over ten minutes after the first look.
import type { Question } from "@mesh-core/core/controller/catalogue"
import { defaultGateSettings as s } from "@mesh-core/core/gate/judging/judge"
import type { PlanRecord, VerdictRecord } from "@mesh-core/core/gate/plan/records"
import { gateTick, type TickResult } from "@mesh-core/core/gate/tick/tick"
import type { GateWake } from "@mesh-core/core/gate/plan/wake"
import { runPure } from "@mesh-core/core/program"
import { gateFacts } from "../support/gate-facts.ts"

const planOf = (i: number, sentAt: number): PlanRecord => ({
  id: `letta-${i}`,
  module: `letta${i}`,
  build: `letta${i}-2`,
  commit: "5e1f0c2a9b",
  previous: "a71c3d09e4",
  previousBuild: `letta${i}-1`,
  machines: [`hq-${i}`],
  rest: [],
  sentAt,
  state: "open",
  note: "",
  tiers: [[`hq-${i}`]],
  tier: 0,
  sent: [`hq-${i}`],
  triedAt: sentAt,
})

/** The plans in flight, machines that report (healthy) or not, and a count of judgings. */
const world = (plans: ReadonlyArray<PlanRecord>, healthy: boolean) => {
  const byId = new Map(plans.map((p) => [p.id, p]))
  const verdicts: Array<VerdictRecord> = []
  let judgings = 0
  const answer =
    (now: number) =>
    (q: Question): unknown => {
      switch (q.q) {
        case "plans-in-flight":
          return { ok: true, value: [...byId.values()].filter((p) => p.state === "open") }
        case "now":
          return now
        case "gate-facts": {
          return gateFacts(
            now,
            healthy
              ? Object.fromEntries(
                  plans.map((p) => [p.machines[0]!, { at: p.sentAt, current: true, outcome: "applied" }]),
                )
              : {},
          )
        }
        case "save-plan":
          if (q.plan.gate !== byId.get(q.plan.id)?.gate) judgings += 1
          byId.set(q.plan.id, q.plan)
          return { ok: true }
        case "record-verdict":
          verdicts.push(q.verdict)
          return { ok: true, mine: true }
        case "send-plan":
          return { told: q.machines }
        case "verdict-of":
          return { ok: true, value: null }
        case "builds":
        case "latest-verdicts":
        case "probe-conditions":
        case "witness-verdicts":
        case "engine-builds":
        case "manifests":
          return {
            ok: true,
            value: q.q === "builds" || q.q === "latest-verdicts" || q.q === "probe-conditions" ? [] : {},
          }
        default:
          return { ok: true }
      }
    }
  const tick = (now: number, wakes?: ReadonlyArray<GateWake>): TickResult =>
    runPure(gateTick(s, wakes), answer(now)).result
  return { tick, plan: (id: string) => byId.get(id)!, judgings: () => judgings }
}

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const fmt = (ms: number) => (ms >= 1_000 ? `${(ms / 1_000).toFixed(1)} s` : `${ms.toFixed(2)} ms`)

// 1. Decidable to verdict.
const phases = Array.from({ length: 50 }, (_, k) => Math.round((k * 37_813) % s.every) + 1)
const timerDelay: Array<number> = []
const wakeDelay: Array<number> = []
const wakeReal: Array<number> = []
const timerReal: Array<number> = []
for (const sentAt of phases) {
  // Decidable: the last of `passes` passes `every` apart, and the settle, both reached.
  const decidable = sentAt + Math.max((s.passes - 1) * s.every, s.settle)
  const onTimer = world([planOf(0, sentAt)], true)
  for (let t = 0; ; t += s.every) {
    if (t < sentAt) continue
    const began = performance.now()
    onTimer.tick(t)
    const took = performance.now() - began
    if (onTimer.plan("letta-0").state !== "open") {
      timerDelay.push(t - decidable)
      timerReal.push(took)
      break
    }
  }
  const woken = world([planOf(0, sentAt)], true)
  let r = woken.tick(sentAt, [{ kind: "plan", plan: "letta-0" }])
  for (;;) {
    const at = r.wakeAt!
    const began = performance.now()
    r = woken.tick(at, [{ kind: "due" }])
    const took = performance.now() - began
    if (woken.plan("letta-0").state !== "open") {
      wakeDelay.push(at - decidable)
      wakeReal.push(took)
      break
    }
  }
}

// 2. 100 open plans, nothing changing: judgings a minute over ten minutes after the first look.
const idle = Array.from({ length: 100 }, (_, i) => planOf(i, 0))
const span = 10 * 60_000
const timerIdle = world(idle, false)
timerIdle.tick(0)
const timerFirst = timerIdle.judgings()
for (let t = s.every; t < span; t += s.every) timerIdle.tick(t)
const wakeIdle = world(idle, false)
let r = wakeIdle.tick(0, [{ kind: "lease" }])
const wakeFirst = wakeIdle.judgings()
let wakes = 0
while (r.wakeAt !== undefined && r.wakeAt < span) {
  r = wakeIdle.tick(r.wakeAt, [{ kind: "due" }])
  wakes += 1
}
const perMinute = (n: number) => (n / (span / 60_000)).toFixed(1)

console.log("gate: decidable to verdict, 50 sends at random phases (defaults: settle 2m, 3 passes 40 s apart)")
console.log("| runner | delay min | median | max | real time of the deciding judging (median) |")
console.log("| --- | --- | --- | --- | --- |")
console.log(
  `| on events (wake-ups) | ${fmt(Math.min(...wakeDelay))} | ${fmt(median(wakeDelay))} | ${fmt(Math.max(...wakeDelay))} | ${fmt(median(wakeReal))} |`,
)
console.log(
  `| anchor: timer every 40 s | ${fmt(Math.min(...timerDelay))} | ${fmt(median(timerDelay))} | ${fmt(Math.max(...timerDelay))} | ${fmt(median(timerReal))} |`,
)
console.log("")
console.log("gate: 100 open plans, nothing changing, the 10 minutes after the first look (which judges each once)")
console.log("| runner | first look | judgings after it | a minute | wakes after it |")
console.log("| --- | --- | --- | --- | --- |")
const after = (w: { judgings: () => number }, first: number) => w.judgings() - first
console.log(
  `| on events (wake-ups) | ${wakeFirst} | ${after(wakeIdle, wakeFirst)} | ${perMinute(after(wakeIdle, wakeFirst))} | ${wakes} |`,
)
console.log(
  `| anchor: timer every 40 s | ${timerFirst} | ${after(timerIdle, timerFirst)} | ${perMinute(after(timerIdle, timerFirst))} | ${span / s.every - 1} |`,
)
