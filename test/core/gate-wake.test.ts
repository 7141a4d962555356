// Plans move on events (seed 004, ADR 0406 §5, issue 974): the gate woken only by what happens and by
// the wake-ups it schedules reaches the same ends as a gate judging on a fine timer, as soon, with far
// fewer judgings; and a wake moves exactly the plans it touches.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { Question } from "@mesh-core/core/controller/catalogue"
import type { PlanRecord } from "@mesh-core/core/gate/plan/records"
import type { GateFactsRecord } from "@mesh-core/core/gate/judging/facts"
import { gateTick, type TickResult } from "@mesh-core/core/gate/tick/tick"
import { type GateWake, lookAt, nextDue, plansWoken, slowLookEvery } from "@mesh-core/core/gate/plan/wake"
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

  it("looks at its next wake-up, and with nothing heard no later than the slow look", () => {
    fc.assert(
      fc.property(fc.option(fc.nat(10_000_000), { nil: undefined }), fc.nat(10_000_000), (wakeAt, now) => {
        const at = lookAt(wakeAt, now, settings)
        expect(at).toBe(Math.min(wakeAt ?? Number.POSITIVE_INFINITY, now + slowLookEvery * settings.every))
        expect(at - now).toBeLessThanOrEqual(slowLookEvery * settings.every)
      }),
    )
  })
})
