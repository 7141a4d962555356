// Plans move on events (seed 004, ADR 0406 §5, issue 974): the gate woken only by what happens and by
// the wake-ups it schedules reaches the same ends as a gate judging on a fine timer, as soon, with far
// fewer judgings; and a wake moves exactly the plans it touches.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { Question } from "@mesh-core/core/controller/catalogue"
import type { PlanRecord } from "@mesh-core/core/gate/plan/records"
import type { GateFactsRecord } from "@mesh-core/core/gate/judging/facts"
import { gateTick, type TickResult } from "@mesh-core/core/gate/tick/tick"
import {
  type GateWake,
  type Heard,
  lookAt,
  nextDue,
  plansWoken,
  slowLookEvery,
  wakeKey,
  worthAPass,
} from "@mesh-core/core/gate/plan/wake"
import { runPure } from "@mesh-core/core/program"
import type { VerdictRecord } from "@mesh-core/core/gate/plan/records"
import { basePlan, keptAnswer, settings } from "./gate-world.ts"

/** A world whose machines say the same thing all along: applied and healthy, or never reported. */
const world = (healthy: boolean) => {
  let plan: PlanRecord = { ...basePlan, tiers: [["hq-1"]], rest: [], sent: ["hq-1"], triedAt: 0 }
  const verdicts: Array<VerdictRecord> = []
  let judgings = 0
  const answer =
    (now: number) =>
    (q: Question): unknown => {
      switch (q.q) {
        case "plans-in-flight":
          return { ok: true, value: ["open", "sending", "rolling-back"].includes(plan.state) ? [plan] : [] }
        case "now":
          return now
        case "gate-facts": {
          judgings += 1
          const facts: GateFactsRecord = {
            now,
            reports: healthy ? { "hq-1": { at: 1, current: true, outcome: "applied" } } : {},
            engines: {},
            served: { ok: true, value: {} },
            open: { ok: true, value: [] },
            rolledBack: {},
            holder: { ok: true, value: null },
            health: { ok: true, value: {} },
          }
          return facts
        }
        case "send-plan":
          return { told: q.machines }
        case "save-plan":
          plan = q.plan
          return { ok: true }
        case "verdict-of":
          return { ok: true, value: null }
        default:
          return keptAnswer(q, verdicts) ?? { ok: true }
      }
    }
  const tick = (now: number, wakes?: ReadonlyArray<GateWake>): TickResult =>
    runPure(gateTick(settings, wakes), answer(now)).result
  return { tick, plan: () => plan, judgings: () => judgings }
}

/** When the plan ended (passed, sending or failed), judged on a timer every `step` ms until `until`. */
const onTimer = (healthy: boolean, step: number, until: number) => {
  const w = world(healthy)
  for (let t = 0; t <= until; t += step) {
    w.tick(t)
    if (w.plan().state !== "open") return { at: t, state: w.plan().state, judgings: w.judgings() }
  }
  return { at: undefined, state: w.plan().state, judgings: w.judgings() }
}

/** The same, woken first as a new holder would be, then only at the wake-ups the gate schedules. */
const onWakes = (healthy: boolean, until: number) => {
  const w = world(healthy)
  let r = w.tick(0, [{ kind: "lease" }])
  let t = 0
  for (let n = 0; w.plan().state === "open" && r.wakeAt !== undefined && r.wakeAt <= until; n++) {
    if (n > 1_000) throw new Error(`woken 1,000 times at ${t}: ${JSON.stringify(w.plan())}`)
    t = Math.max(t, r.wakeAt)
    r = w.tick(t, [{ kind: "due" }])
  }
  return { at: w.plan().state === "open" ? undefined : t, state: w.plan().state, judgings: w.judgings() }
}

describe("the gate woken by events and its own wake-ups", () => {
  it("a healthy build passes as soon as on a fine timer, judged only when a pass can count", () => {
    const timer = onTimer(true, 50, 20_000)
    const woken = onWakes(true, 20_000)
    expect(woken.state).toBe(timer.state)
    expect(woken.state).toBe("passed")
    expect(woken.at!).toBeLessThanOrEqual(timer.at!)
    // Two passes at least 1 s apart and a settle of 2 s: judged at the send and at the settle, against
    // one every 50 ms on the timer.
    expect(woken.judgings).toBe(2)
    expect(timer.judgings).toBeGreaterThan(30)
  })

  it("a build that never reports fails at its bound, judged at the send and at the bound only", () => {
    const timer = onTimer(false, 50, 20_000)
    const woken = onWakes(false, 20_000)
    expect(woken.state).toBe("failed")
    expect(timer.state).toBe("failed")
    expect(woken.at!).toBeLessThanOrEqual(timer.at!)
    expect(woken.judgings).toBe(2)
  })

  it("a wake moves exactly the plans it touches: a machine its judging plans, a plan itself, the lease all, a due wake-up those due", () => {
    const plan = (id: string, machines: ReadonlyArray<string>, triedAt: number): PlanRecord => ({
      ...basePlan,
      id,
      tiers: [machines],
      machines,
      rest: [],
      sent: [],
      triedAt,
      tries: 1,
    })
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(fc.subarray(["hq-1", "hq-2", "hq-3"], { minLength: 1 }), fc.integer({ min: 0, max: 5_000 })),
          {
            minLength: 1,
            maxLength: 5,
          },
        ),
        fc.constantFrom("hq-1", "hq-2", "hq-3"),
        fc.integer({ min: 0, max: 10_000 }),
        (specs, machine, now) => {
          const plans = specs.map(([ms, tried], i) => plan(`p${i}`, ms, tried))
          const ids = (ps: ReadonlyArray<PlanRecord>) => new Set(ps.map((p) => p.id))
          expect(plansWoken([{ kind: "lease" }], plans, now, settings)).toEqual(ids(plans))
          // Their tiers not sent yet: a machine wakes none of them (only the retry policy sends again).
          expect(plansWoken([{ kind: "machine", machine }], plans, now, settings)).toEqual(new Set())
          const judging = plans.map((p) => ({ ...p, sent: p.machines }))
          expect(plansWoken([{ kind: "machine", machine }], judging, now, settings)).toEqual(
            ids(judging.filter((p) => p.machines.includes(machine))),
          )
          expect(plansWoken([{ kind: "plan", plan: "p0" }], plans, now, settings)).toEqual(new Set(["p0"]))
          // Unsent tiers are due once the retry policy allows another send (tried once: `every` later).
          expect(plansWoken([{ kind: "due" }], plans, now, settings)).toEqual(
            ids(plans.filter((p) => now - p.triedAt! >= settings.every)),
          )
          expect(plansWoken([], plans, now, settings)).toEqual(new Set())
        },
      ),
    )
  })

  it("a paused plan, or one ended, has no wake-up of its own", () => {
    expect(nextDue({ ...basePlan, paused: { by: "ana", at: 0, why: "" } }, settings)).toBeUndefined()
    for (const state of ["passed", "failed"] as const) expect(nextDue({ ...basePlan, state }, settings)).toBeUndefined()
  })

  it("looks at its next wake-up; while plans are in flight no later than the slow look, with none in flight only at its wake-up", () => {
    const span = slowLookEvery * settings.every
    fc.assert(
      fc.property(
        fc.option(fc.nat(10_000_000), { nil: undefined }),
        fc.nat(10_000_000),
        fc.constantFrom("open", "sending", "rolling-back", "passed", "failed", "none"),
        (wakeAt, now, state) => {
          const plans = state === "none" ? [] : [{ ...basePlan, state } as PlanRecord]
          const at = lookAt(wakeAt, now, settings, plans)
          if (state === "none" || state === "passed" || state === "failed") expect(at).toBe(wakeAt)
          // Its wake-up when that comes first, else the slow look's whole span from now.
          else expect(at).toBe(wakeAt !== undefined && wakeAt - now <= span ? wakeAt : now + span)
        },
      ),
    )
  })

  it("one key per distinct wake: the same wake heard twice is one, a statement saying the same is kept apart from one that changes", () => {
    const distinct: ReadonlyArray<Heard> = [
      { kind: "lease" },
      { kind: "conditions" },
      { kind: "due" },
      { kind: "plan", plan: "p0" },
      { kind: "plan", plan: "p1" },
      { kind: "plan", plan: "hq-1" },
      { kind: "machine", machine: "hq-1" },
      { kind: "machine", machine: "hq-2" },
      { kind: "machine", machine: "hq-1", by: "statement" },
      { kind: "machine", machine: "hq-1", by: "statement", same: 5 },
      { kind: "machine", machine: "hq-2", by: "statement", same: 5 },
    ]
    expect(new Set(distinct.map(wakeKey)).size).toBe(distinct.length)
    for (const w of distinct) expect(wakeKey(JSON.parse(JSON.stringify(w)))).toBe(wakeKey(w))
    // Since when it said the same is not what makes it another wake: the first heard is kept.
    expect(wakeKey({ kind: "machine", machine: "hq-1", by: "statement", same: 9 })).toBe(
      wakeKey({ kind: "machine", machine: "hq-1", by: "statement", same: 5 }),
    )
  })
})

/**
 * The plans a pass could be for, by what they are doing (the model of worthAPass): whether a statement
 * of one of its tier's machines, or a condition, moves it, said per situation rather than computed.
 */
const situations = {
  // Ended, or paused: nothing it reads is judged.
  passed: { plan: { state: "passed", sent: ["hq-1"] }, statement: "never", conditions: false },
  failed: { plan: { state: "failed", sent: ["hq-1"] }, statement: "never", conditions: false },
  paused: {
    plan: { sent: ["hq-1"], paused: { by: "ana", at: 0, why: "" } },
    statement: "never",
    conditions: false,
  },
  // Saved by `release`, nothing recorded sent: its command may have sent it since it was read.
  "sent by its command": { plan: { sent: [] }, statement: "always", conditions: false },
  // A send moved on by its retry policy alone.
  "re-sending its tier": { plan: { tiers: [["hq-1", "hq-2"]], sent: ["hq-2"] }, statement: "never", conditions: false },
  "sending the rest": { plan: { state: "sending", sent: ["hq-1"] }, statement: "never", conditions: false },
  "rolling back": { plan: { state: "rolling-back", sent: ["hq-1"] }, statement: "never", conditions: false },
  // Judging: what changes is read; a statement saying the same only when the one before was stated before the send.
  "never judged": { plan: { sent: ["hq-1"] }, statement: "always", conditions: true },
  "not healthy yet": { plan: { sent: ["hq-1"], gate: "not-yet" }, statement: "since the send", conditions: true },
  // Counting passes: nothing is judged until `every` after the last (its judging is dropped unread).
  "a pass 999 ms ago": { plan: { sent: ["hq-1"], gate: 999 }, statement: "never", conditions: false },
  "a pass 1 s ago": { plan: { sent: ["hq-1"], gate: 1_000 }, statement: "since the send", conditions: true },
} as const

const sendAt = 50_000
const now = 60_000
const planIn = (name: keyof typeof situations, id: string): PlanRecord => {
  const { gate, ...given } = situations[name].plan as Partial<PlanRecord> & { gate?: "not-yet" | number }
  const g = {
    component: "",
    machines: ["hq-1"],
    from: "a",
    to: "b",
    since: sendAt,
    passes: 0,
    last: "",
    failing: [],
    verdict: "",
    why: "",
    took: "",
    carried: [],
    rollback: "",
  } as const
  return {
    ...basePlan,
    id,
    tiers: [["hq-1"]],
    machines: ["hq-1"],
    rest: ["hq-3"],
    triedAt: 0,
    ...given,
    ...(gate === undefined
      ? {}
      : { gate: gate === "not-yet" ? g : { ...g, passes: 1, lastPass: now - gate, judgedAt: now - gate } }),
  }
}

describe("what is worth a pass", () => {
  const names = Object.keys(situations) as Array<keyof typeof situations>
  const statementOf = (machine: string, same?: number): Heard =>
    same === undefined ? { kind: "machine", machine, by: "statement" } : { kind: "machine", machine, by: "statement", same }

  it("a statement or a condition only when a plan in flight reads what it may change; every other wake always; idle, none", () => {
    fc.assert(
      fc.property(
        fc.subarray(names),
        fc.constantFrom("hq-1", "hq-3", "hq-9"),
        fc.option(fc.constantFrom(sendAt - 1, sendAt, sendAt + 1), { nil: undefined }),
        (present, machine, same) => {
          const plans = present.map((n, i) => planIn(n, `p${i}`))
          const moved = (n: keyof typeof situations) => {
            const rule = situations[n].statement
            if (machine !== "hq-1" || rule === "never") return false
            return rule === "always" || same === undefined || same < sendAt
          }
          const statement = worthAPass([statementOf(machine, same)], plans, now, settings)
          expect(statement).toEqual(present.some(moved) ? [{ kind: "machine", machine }] : [])
          const conditions = worthAPass([{ kind: "conditions" }], plans, now, settings)
          expect(conditions).toEqual(present.some((n) => situations[n].conditions) ? [{ kind: "conditions" }] : [])
          // A report or a witness's verdict (a machine wake as such), a verb, the lease, a wake-up: always.
          const always: ReadonlyArray<GateWake> = [
            { kind: "machine", machine },
            { kind: "plan", plan: "p9" },
            { kind: "lease" },
            { kind: "due" },
          ]
          expect(worthAPass(always, plans, now, settings)).toEqual(always)
        },
      ),
    )
  })

  it("what is heard twice is one wake, a statement worth a pass handed on as its machine's wake", () => {
    const plans = [planIn("never judged", "p0")]
    const heard: ReadonlyArray<Heard> = [
      statementOf("hq-1"),
      statementOf("hq-1", sendAt + 1),
      { kind: "machine", machine: "hq-1" },
      { kind: "conditions" },
      { kind: "conditions" },
    ]
    expect(worthAPass(heard, plans, now, settings)).toEqual([{ kind: "machine", machine: "hq-1" }, { kind: "conditions" }])
    expect(worthAPass([], plans, now, settings)).toEqual([])
  })
})
