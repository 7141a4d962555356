// Plans move on events (seed 004, ADR 0406 §5, issue 974): the gate woken only by what happens and by
// the wake-ups it schedules reaches the same ends as a gate judging on a fine timer, as soon, with far
// fewer judgings; and a wake moves exactly the plans it touches.
import fc from "fast-check"
import { Option } from "effect"
import * as Schema from "effect/Schema"
import { describe, expect, it } from "vitest"
import type { Question } from "@mesh-core/core/controller/catalogue"
import type { HistoryEntry, PlanRecord } from "@mesh-core/core/gate/plan/records"
import { withEntry } from "@mesh-core/core/gate/plan/history"
import { sendDue } from "@mesh-core/core/gate/plan/plan"
import type { GateFactsRecord } from "@mesh-core/core/gate/judging/facts"
import { gateTick, type TickResult } from "@mesh-core/core/gate/tick/tick"
import {
  GateWake,
  type Heard,
  lookAt,
  nextDue,
  plansWoken,
  readsPlansFirst,
  slowLookEvery,
  wakeAt,
  wakeKey,
  worthAPass,
} from "@mesh-core/core/gate/plan/wake"
import { runPure } from "@mesh-core/core/program"
import type { VerdictRecord } from "@mesh-core/core/gate/plan/records"
import { basePlan, keptAnswer, settings } from "./gate-world.ts"
import { gateOpened } from "../support/plan-records.ts"

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

  it("looks at its next wake-up, and with nothing heard no later than the slow look's whole span", () => {
    const span = slowLookEvery * settings.every
    fc.assert(
      fc.property(fc.option(fc.nat(10_000_000), { nil: undefined }), fc.nat(10_000_000), (wakeAt, now) => {
        // Its wake-up when that comes first, else the slow look's whole span from now.
        expect(lookAt(wakeAt, now, settings)).toBe(wakeAt !== undefined && wakeAt - now <= span ? wakeAt : now + span)
      }),
    )
  })

  it("a look with no plan known in flight reads which plans are in flight first, and nothing else does", () => {
    const open = [{ ...basePlan }]
    const ended = [{ ...basePlan, state: "passed" } as PlanRecord]
    const due: Heard = { kind: "due" }
    const statement: Heard = { kind: "machine", machine: "hq-1", by: "statement" }
    expect(readsPlansFirst([due], [])).toBe(true)
    expect(readsPlansFirst([statement, due], ended)).toBe(true)
    expect(readsPlansFirst([due], open)).toBe(false)
    expect(readsPlansFirst([statement, { kind: "lease" }], [])).toBe(false)
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
  // Paused before that, or its first send tried again by a controller (which knows what it sent).
  "paused before its first send": {
    plan: { sent: [], paused: { by: "ana", at: 0, why: "" } },
    statement: "never",
    conditions: false,
  },
  "its first send tried again": { plan: { sent: [], tries: 1 }, statement: "never", conditions: false },
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
  const g = gateOpened({ component: "", from: "a", to: "b", since: sendAt })
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
    same === undefined
      ? { kind: "machine", machine, by: "statement" }
      : { kind: "machine", machine, by: "statement", same }

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
          // A report or a witness's verdict (a machine wake as such), a verb, the lease: always.
          const always: ReadonlyArray<GateWake> = [
            { kind: "machine", machine },
            { kind: "plan", plan: "p9" },
            { kind: "lease" },
          ]
          expect(worthAPass(always, plans, now, settings)).toEqual(always)
          // A wake-up due: while any plan is in flight (ended ones are not).
          const ended = present.every((n) => n === "passed" || n === "failed")
          expect(worthAPass([{ kind: "due" }], plans, now, settings)).toEqual(ended ? [] : [{ kind: "due" }])
        },
      ),
    )
  })

  it("each situation alone, every machine and every age of what a statement repeats", () => {
    for (const n of names)
      expect(worthAPass([{ kind: "conditions" }], [planIn(n, "p0")], now, settings), n).toEqual(
        situations[n].conditions ? [{ kind: "conditions" }] : [],
      )
    for (const n of names)
      for (const machine of ["hq-1", "hq-3", "hq-9"])
        for (const same of [undefined, sendAt - 1, sendAt, sendAt + 1]) {
          const rule = situations[n].statement
          const moved =
            machine === "hq-1" && rule !== "never" && (rule === "always" || same === undefined || same < sendAt)
          const w = worthAPass([statementOf(machine, same)], [planIn(n, "p0")], now, settings)
          expect(w, `${n}, ${machine}, ${same}`).toEqual(moved ? [{ kind: "machine", machine }] : [])
        }
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
    expect(worthAPass(heard, plans, now, settings)).toEqual([
      { kind: "machine", machine: "hq-1" },
      { kind: "conditions" },
    ])
    expect(worthAPass([], plans, now, settings)).toEqual([])
  })
})

/**
 * When a plan next falls due, case by case as docs/gate.md says it (settings: settle 2 s, bound 10 s,
 * 2 passes 1 s apart), each figure worked by hand: never in the past of what it waits for, never NaN.
 */
describe("when a plan falls due with nothing heard", () => {
  const since = 5_000
  const gate = (over: Partial<NonNullable<PlanRecord["gate"]>> = {}): NonNullable<PlanRecord["gate"]> =>
    gateOpened({ component: "", from: "a", to: "b", since, ...over })
  const judged = (at: number, word: "healthy" | "not-yet" | "could-not-ask", tier = 0) =>
    ({ kind: "judging", at, tier, word, why: "", passes: 0 }) as const
  const judgingPlan = (
    g: NonNullable<PlanRecord["gate"]>,
    entries: ReadonlyArray<HistoryEntry>,
    over: Partial<PlanRecord> = {},
  ) =>
    entries.reduce<PlanRecord>((p, e) => withEntry(p, e), {
      ...basePlan,
      tiers: [["hq-1"], ["hq-2"]],
      sent: ["hq-1"],
      triedAt: 0,
      gate: g,
      ...over,
    })

  it("a gate sent and never judged, or judged only before its send or in another tier, or a verdict kept with the plan left open: at once", () => {
    expect(nextDue({ ...basePlan, sent: ["hq-1"], tiers: [["hq-1"]] }, settings)).toBe(0)
    expect(nextDue(judgingPlan(gate(), []), settings)).toBe(0)
    expect(nextDue(judgingPlan(gate(), [judged(since - 1, "not-yet")]), settings)).toBe(0)
    expect(nextDue(judgingPlan(gate(), [judged(6_000, "not-yet", 1)]), settings)).toBe(0)
    // In its second tier, that tier's judging counts and the first's does not.
    expect(
      nextDue(judgingPlan(gate(), [judged(6_000, "not-yet", 1)], { tier: 1, sent: ["hq-1", "hq-2"] }), settings),
    ).toBe(15_001)
    expect(
      nextDue(judgingPlan(gate(), [judged(6_000, "not-yet", 0)], { tier: 1, sent: ["hq-1", "hq-2"] }), settings),
    ).toBe(0)
    const verb = { kind: "verb", at: 6_000, verb: "resume", by: "ana", why: "" } as const
    expect(nextDue(judgingPlan(gate(), [verb]), settings)).toBe(0)
    expect(nextDue(judgingPlan(gate({ verdict: "passed" }), [judged(6_000, "healthy")]), settings)).toBe(0)
    // Judged at its send: not at once any more.
    expect(nextDue(judgingPlan(gate(), [judged(since, "not-yet")]), settings)).toBe(15_001)
  })

  it("a judging that could not ask is read again `every` after it", () => {
    expect(nextDue(judgingPlan(gate(), [judged(7_000, "could-not-ask")]), settings)).toBe(8_000)
    // Its own tier's newest judging counts, whatever came before it.
    expect(nextDue(judgingPlan(gate(), [judged(6_000, "could-not-ask"), judged(7_000, "not-yet")]), settings)).toBe(
      15_001,
    )
  })

  it("healthy so far: its next pass `every` after the last, and the last pass not before its settle", () => {
    // 1 pass of 2 at 7 s: the next at 8 s, past the settle (7 s).
    expect(nextDue(judgingPlan(gate({ passes: 1, lastPass: 7_000 }), [judged(7_000, "healthy")]), settings)).toBe(8_000)
    // 1 pass of 2 at 5.5 s: not at 6.5 s, the settle is 7 s.
    expect(nextDue(judgingPlan(gate({ passes: 1, lastPass: 5_500 }), [judged(5_500, "healthy")]), settings)).toBe(7_000)
    // 1 pass of 3 at 5.5 s: the settle is not this pass's, 6.5 s.
    expect(
      nextDue(judgingPlan(gate({ passes: 1, lastPass: 5_500 }), [judged(5_500, "healthy")]), {
        ...settings,
        passes: 3,
      }),
    ).toBe(6_500)
    // A pass kept with no time of its own: from the judging that counted it.
    expect(nextDue(judgingPlan(gate({ passes: 1 }), [judged(7_500, "healthy")]), settings)).toBe(8_500)
  })

  it("not healthy yet: a millisecond past its bound, the time paused not counted; a core component also `every` after its judging", () => {
    const notYet = [judged(6_000, "not-yet")]
    expect(nextDue(judgingPlan(gate(), notYet), settings)).toBe(15_001)
    expect(nextDue(judgingPlan(gate(), notYet, { pausedFor: 2_000 }), settings)).toBe(17_001)
    for (const module of ["node-engine", "node-tools", "controller"]) {
      expect(nextDue(judgingPlan(gate(), notYet, { module }), settings), module).toBe(7_000)
      // Close to its bound, the bound first.
      expect(nextDue(judgingPlan(gate(), [judged(14_500, "not-yet")], { module }), settings), module).toBe(15_001)
    }
  })

  it("a send (a tier, the rest, a rollback) that missed a machine is due when the retry policy sends again, never before, never never", () => {
    fc.assert(
      fc.property(
        fc.constantFrom<Partial<PlanRecord>>(
          { state: "sending", sent: ["hq-1", "hq-2"], rest: ["hq-5"] },
          {
            state: "rolling-back",
            sent: ["hq-1"],
            putBack: { build: "letta-204", commit: "a71c3d09e4", machines: ["hq-1", "hq-2"], sent: ["hq-1"] },
          },
          { state: "open", tier: 1, sent: ["hq-1"] },
          { state: "open", sent: [] },
        ),
        fc.integer({ min: 0, max: 5 }),
        fc.integer({ min: 0, max: 100_000 }),
        (given, tries, triedAt) => {
          const p: PlanRecord = { ...basePlan, ...given, tries, triedAt }
          const due = nextDue(p, settings)
          expect(Number.isFinite(due)).toBe(true)
          expect(due!).toBeGreaterThan(triedAt)
          // Exactly when the retry policy lets the send be made again.
          expect(sendDue(p, due!, settings.every)).toBe(true)
          expect(sendDue(p, due! - 1, settings.every)).toBe(false)
          expect(wakeAt([p], settings)).toBe(due)
        },
      ),
    )
    // Never tried: at once.
    expect(nextDue({ ...basePlan, state: "sending", sent: ["hq-1"] }, settings)).toBe(0)
  })

  it("the gate's next wake-up is the soonest of the plans', none when none has one", () => {
    const at = (triedAt: number): PlanRecord => ({ ...basePlan, state: "sending", sent: ["hq-1"], tries: 1, triedAt })
    expect(wakeAt([at(5_000), at(2_000), at(9_000)], settings)).toBe(3_000)
    expect(wakeAt([at(5_000), { ...basePlan, state: "passed" }], settings)).toBe(6_000)
    expect(wakeAt([{ ...basePlan, state: "failed" }], settings)).toBeUndefined()
    expect(wakeAt([], settings)).toBeUndefined()
  })
})

describe("the wakes a tick is recorded with", () => {
  it("each kind read back from a recording, and nothing else", () => {
    const read = Schema.decodeUnknownOption(GateWake)
    for (const w of [
      { kind: "machine", machine: "hq-1" },
      { kind: "conditions" },
      { kind: "plan", plan: "p0" },
      { kind: "lease" },
      { kind: "due" },
    ])
      expect(Option.getOrUndefined(read(w))).toEqual(w)
    for (const w of [{ kind: "machine" }, { kind: "plan" }, { kind: "" }, { kind: "statement", machine: "hq-1" }])
      expect(Option.isNone(read(w)), JSON.stringify(w)).toBe(true)
  })

  it("a wake moves exactly the plans it touches, whatever they are doing", () => {
    const states = ["open", "sending", "rolling-back"] as const
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            machines: fc.subarray(["hq-1", "hq-2", "hq-3"], { minLength: 1 }),
            state: fc.constantFrom(...states),
            sent: fc.boolean(),
            paused: fc.boolean(),
          }),
          { minLength: 1, maxLength: 5 },
        ),
        fc.constantFrom("hq-1", "hq-2", "hq-3"),
        (specs, machine) => {
          const plans = specs.map(
            (x, i): PlanRecord => ({
              ...basePlan,
              id: `p${i}`,
              state: x.state,
              tiers: [x.machines],
              machines: x.machines,
              rest: ["hq-5"],
              sent: x.sent ? x.machines : [],
              triedAt: 0,
              tries: 1,
              ...(x.paused ? { paused: { by: "ana", at: 0, why: "" } } : {}),
            }),
          )
          // Judging: open, not paused, every machine of its tier sent.
          const judgingIds = specs.flatMap((x, i) => (x.state === "open" && !x.paused && x.sent ? [`p${i}`] : []))
          const woken = (w: GateWake) => plansWoken([w], plans, 0, settings)
          expect(woken({ kind: "conditions" })).toEqual(new Set(judgingIds))
          expect(woken({ kind: "machine", machine })).toEqual(
            new Set(judgingIds.filter((id) => specs[Number(id.slice(1))]!.machines.includes(machine))),
          )
          // Any machine of the plan moves it here, the rest's too (what is worth a pass at all is narrower: worthAPass).
          expect(woken({ kind: "machine", machine: "hq-5" })).toEqual(new Set(judgingIds))
          expect(woken({ kind: "lease" })).toEqual(new Set(plans.map((p) => p.id)))
          expect(woken({ kind: "plan", plan: "p0" })).toEqual(new Set(["p0"]))
          expect(woken({ kind: "plan", plan: "p9" })).toEqual(new Set())
        },
      ),
    )
  })
})
