// A release plan's progress (core/src/gate/plan/plan.ts, seed 003's tiers, issue 9) stated directly: the
// retry policy against a doubling written as a loop, the newest plan of a module against a sort, each
// send's step of the plan against the sets it must reach, and the sentences that say where a plan
// stands, word for word (a push prints them as why it holds a machine).
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { GateRecord, PlanRecord } from "@mesh-core/core/gate/plan/records"
import { gateLine } from "@mesh-core/core/gate/judging/observations"
import { planLines } from "@mesh-core/core/gate/plan/plan-show"
import { nextDue } from "@mesh-core/core/gate/plan/wake"
import type { GateSettings } from "@mesh-core/core/gate/judging/judge"
import {
  afterRestSend,
  afterRollbackSend,
  afterTierPass,
  afterTierSend,
  everyMachine,
  inFlight,
  newestByModule,
  phaseOf,
  putBackLeft,
  retryAfter,
  sendDue,
  sentOf,
  tierMachines,
  tierOf,
  tierSent,
  tierWord,
  unsentOf,
} from "@mesh-core/core/gate/plan/plan"

const gateSettings: GateSettings = { settle: 2_000, bound: 10_000, passes: 2, every: 1_000 }
const plan: PlanRecord = {
  id: "letta-205",
  module: "letta",
  build: "letta-205",
  commit: "c205",
  previous: "c204",
  previousBuild: "letta-204",
  machines: ["hq-1"],
  rest: ["hq-4"],
  sentAt: 1_000,
  state: "open",
  note: "",
  tiers: [["hq-1"], ["hq-2", "hq-3"]],
  tier: 0,
  sent: ["hq-1"],
}
const gate: GateRecord = {
  component: "letta",
  machines: ["hq-2"],
  from: "c204",
  to: "c205",
  since: 0,
  passes: 0,
  last: "",
  failing: [],
  verdict: "",
  why: "",
  took: "",
  carried: [],
  rollback: "",
}
/** A row kept before these fields were: they are absent, not undefined. */
const without = (p: PlanRecord, ...keys: ReadonlyArray<keyof PlanRecord>): PlanRecord => {
  const row: Record<string, unknown> = { ...p }
  for (const k of keys) delete row[k]
  return row as PlanRecord
}

describe("the retry policy", () => {
  it("waits `every`, then twice as long for each try that did not reach every machine, ten minutes at most", () => {
    fc.assert(
      fc.property(fc.nat(14), fc.constantFrom(1_000, 5_000, 40_000, 700_000), (tries, every) => {
        let wait = every
        for (let t = 2; t <= tries; t++) wait *= 2
        expect(retryAfter(tries, every)).toBe(Math.min(wait, 600_000))
      }),
    )
  })

  it("a plan never tried is due; one tried is due exactly when the policy's wait has passed", () => {
    expect(sendDue({ ...plan }, 0, 40_000)).toBe(true)
    fc.assert(
      fc.property(fc.nat(6), fc.nat(2_000_000), (tries, triedAt) => {
        const p = { ...plan, tries, triedAt }
        const wait = retryAfter(tries, 40_000)
        expect(sendDue(p, triedAt + wait, 40_000)).toBe(true)
        expect(sendDue(p, triedAt + wait - 1, 40_000)).toBe(false)
      }),
    )
    expect(sendDue({ ...plan, triedAt: 0 }, 39_999, 40_000)).toBe(false)
  })

  it("a first tier `release` saved about to send is left to that command for 30 s, however short `every`; once it sent any machine, or a try failed, the policy's wait alone", () => {
    // The release command's send is bounded by the bus's answer (15 s) and its record (10 s); a
    // loaded machine once had serve send the same tier again within one `every` of 1 s.
    const saved: PlanRecord = { ...plan, sent: [], tries: 0 }
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 90_000 }), fc.nat(2_000_000), (every, triedAt) => {
        const left = Math.max(every, 30_000)
        for (const p of [
          { ...saved, triedAt },
          { ...without(saved, "tries"), triedAt },
        ]) {
          expect(sendDue(p, triedAt + left - 1, every)).toBe(false)
          expect(sendDue(p, triedAt + left, every)).toBe(true)
          expect(nextDue(p, { ...gateSettings, every })).toBe(triedAt + left)
        }
        // What the command kept: one machine sent, or a first send that reached none (one try).
        for (const p of [
          { ...saved, sent: ["hq-1"], tiers: [["hq-1", "hq-2"]], triedAt },
          { ...saved, tries: 1, triedAt },
        ]) {
          expect(sendDue(p, triedAt + every - 1, every)).toBe(false)
          expect(sendDue(p, triedAt + every, every)).toBe(true)
          expect(nextDue(p, { ...gateSettings, every })).toBe(triedAt + every)
        }
      }),
    )
  })
})

describe("tiers and what was sent", () => {
  it("the tier is clamped to the tiers there are, and counted from 1 when said", () => {
    expect(tierOf(without(plan, "tier"))).toBe(0)
    expect(tierOf({ ...plan, tier: -3 })).toBe(0)
    expect(tierOf({ ...plan, tier: 7 })).toBe(1)
    expect(tierWord({ ...plan, tier: 1 })).toBe("tier 2")
    expect(tierMachines({ ...plan, tier: 1 })).toEqual(["hq-2", "hq-3"])
    // A row kept before tiers: one tier, its first machines.
    const old = without(plan, "tiers", "tier", "sent")
    expect(tierMachines(old)).toEqual(["hq-1"])
    expect(everyMachine(old)).toEqual(["hq-1", "hq-4"])
    expect(sentOf(old)).toEqual(["hq-1"])
    expect(sentOf({ ...old, state: "passed" })).toEqual(["hq-1", "hq-4"])
    expect(everyMachine({ ...plan, rest: ["hq-1", "hq-4"] })).toEqual(["hq-1", "hq-2", "hq-3", "hq-4"])
    expect(unsentOf(plan)).toEqual(["hq-2", "hq-3", "hq-4"])
    expect(tierMachines({ ...plan, tiers: [] })).toEqual([])
  })

  it("in flight until it passed or failed", () => {
    const states: ReadonlyArray<PlanRecord["state"]> = ["open", "sending", "passed", "rolling-back", "failed"]
    expect(states.filter((state) => inFlight({ ...plan, state }))).toEqual(["open", "sending", "rolling-back"])
  })

  it("a tier's send marks sent only the tier's machines it reached; the tries count up until the whole tier has it", () => {
    const onTier2 = { ...plan, tier: 1 }
    const some = afterTierSend(onTier2, ["hq-2", "hq-4"])
    expect(some.sent).toEqual(["hq-1", "hq-2"])
    expect(some.tries).toBe(1)
    expect(tierSent(some)).toBe(false)
    const again = afterTierSend({ ...some, tries: 2 }, [])
    expect(again.tries).toBe(3)
    const all = afterTierSend(some, ["hq-3"])
    expect(all.sent).toEqual(["hq-1", "hq-2", "hq-3"])
    expect(all.tries).toBe(0)
    expect(tierSent(all)).toBe(true)
  })

  it("a tier passed moves to the next, forgetting the passed gate; the last is sending until every machine has it", () => {
    const next = afterTierPass({ ...plan, gate, tries: 2 })
    expect(next).toEqual({ ...plan, tier: 1, sent: ["hq-1"], tries: 0 })
    expect("gate" in next).toBe(false)
    const last = afterTierPass({ ...plan, tier: 1, sent: ["hq-1", "hq-2", "hq-3"], gate })
    expect(last).toMatchObject({ state: "sending", tier: 1, tries: 0, gate })
    expect(afterTierPass({ ...plan, tier: 1, sent: ["hq-1", "hq-2", "hq-3", "hq-4"] }).state).toBe("passed")
    const old = afterTierPass({ ...without(plan, "tiers", "tier", "sent"), rest: [] })
    expect(old).toMatchObject({ state: "passed", tiers: [["hq-1"]], tier: 0, sent: ["hq-1"] })
  })

  it("the rest's sends: passed once every machine has it, the tries counted until then; nothing outside the plan is marked", () => {
    const sending = { ...plan, state: "sending" as const, tier: 1, sent: ["hq-1", "hq-2", "hq-3"] }
    const none = afterRestSend(sending, ["hq-9"])
    expect(none).toMatchObject({ state: "sending", sent: ["hq-1", "hq-2", "hq-3"], tries: 1 })
    expect(afterRestSend({ ...none, tries: 4 }, []).tries).toBe(5)
    expect(afterRestSend(none, ["hq-4"])).toMatchObject({
      state: "passed",
      sent: ["hq-1", "hq-2", "hq-3", "hq-4"],
      tries: 0,
    })
  })

  it("a rollback's sends: failed once every machine it puts back has it; with nothing to put back, failed at once", () => {
    const putBack = { build: "letta-204", commit: "c204", machines: ["hq-1", "hq-2"], sent: [] }
    const rolling = { ...plan, state: "rolling-back" as const, putBack }
    expect(putBackLeft(rolling)).toEqual(["hq-1", "hq-2"])
    expect(putBackLeft(plan)).toEqual([])
    const one = afterRollbackSend(rolling, ["hq-2", "hq-3"])
    expect(one).toMatchObject({ state: "rolling-back", putBack: { ...putBack, sent: ["hq-2"] }, tries: 1 })
    expect(putBackLeft(one)).toEqual(["hq-1"])
    expect(afterRollbackSend({ ...one, tries: 3 }, []).tries).toBe(4)
    expect(afterRollbackSend(one, ["hq-1"])).toMatchObject({
      state: "failed",
      putBack: { ...putBack, sent: ["hq-2", "hq-1"] },
      tries: 0,
    })
    expect(afterRollbackSend({ ...plan, state: "rolling-back" }, [])).toEqual({ ...plan, state: "failed" })
  })
})

describe("the newest plan of each module", () => {
  it("is the one sent last (the greater id between two sent at once), never a dry run", () => {
    const arb = fc.array(
      fc.record({
        id: fc.constantFrom("a", "b", "c", "d"),
        module: fc.constantFrom("letta", "grafana"),
        sentAt: fc.nat(3),
        dryRun: fc.boolean(),
      }),
      { maxLength: 8 },
    )
    fc.assert(
      fc.property(arb, (rows) => {
        const plans = rows.map((r) => ({ ...plan, ...r }))
        const got = newestByModule(plans)
        for (const module of ["letta", "grafana"]) {
          const real = plans
            .filter((p) => p.module === module && !p.dryRun)
            .sort((x, y) => y.sentAt - x.sentAt || (x.id < y.id ? 1 : x.id > y.id ? -1 : 0))
          expect(got.get(module)?.id).toBe(real[0]?.id)
          expect(got.get(module)?.sentAt).toBe(real[0]?.sentAt)
        }
      }),
    )
  })
})

describe("where an undecided plan stands, as a push says why it holds a machine", () => {
  it("word for word, in each phase", () => {
    expect(phaseOf({ ...plan, tier: 1 })).toBe("tier 2 (hq-2, hq-3) is being sent first")
    expect(phaseOf({ ...plan, tier: 1, sent: ["hq-1", "hq-2", "hq-3"] })).toBe("gate judging tier 2 on hq-2, hq-3")
    expect(phaseOf({ ...plan, tiers: [["hq-1"]] })).toBe("gate judging on hq-1")
    expect(phaseOf({ ...plan, state: "failed", gate: { ...gate, machines: ["hq-2", "hq-3"] } })).toBe(
      "its build failed its gate on hq-2, hq-3 and is sent nowhere new",
    )
    expect(phaseOf({ ...plan, state: "failed", gate: { ...gate, machines: [] } })).toBe(
      "its build failed its gate on hq-1 and is sent nowhere new",
    )
    expect(phaseOf({ ...plan, state: "failed" })).toBe("its build failed its gate on hq-1 and is sent nowhere new")
    expect(
      phaseOf({
        ...plan,
        state: "rolling-back",
        putBack: { build: "letta-204", commit: "c204", machines: ["hq-1", "hq-2"], sent: [] },
      }),
    ).toBe("its build failed its gate and is being put back on hq-1, hq-2")
    expect(phaseOf({ ...plan, state: "rolling-back" })).toBe("its build failed its gate and is being put back on hq-1")
  })
})

describe("a plan as `plans` says it", () => {
  const s = { settle: 120_000, bound: 600_000, passes: 3, every: 40_000 }
  const putBack = { build: "letta-204", commit: "c204", machines: ["hq-1", "hq-2"], sent: [] as ReadonlyArray<string> }

  it("each tier, whether it was sent, which one is judged while open, the rest only when there is one", () => {
    expect(planLines({ ...plan, tiers: [["hq-1", "hq-2", "hq-3"]], sent: ["hq-1", "hq-3"], rest: [] }, s)).toEqual([
      "letta-205: letta letta-205, open",
      "  tier 1 (hq-1, hq-2, hq-3) sent to hq-1, hq-3 only, judging",
      "  gate on hq-1, hq-2, hq-3: not judged yet",
    ])
    expect(
      planLines(
        { ...plan, state: "sending", tier: 1, sent: ["hq-1", "hq-2", "hq-3"], dryRun: true, note: "tier 2 passed" },
        s,
      ),
    ).toEqual([
      "letta-205: letta letta-205, sending (a dry run)",
      "  tier 1 (hq-1) sent; tier 2 (hq-2, hq-3) sent; the rest (hq-4) not sent",
      "  gate on hq-2, hq-3: not judged yet",
      "  tier 2 passed",
    ])
  })

  it("a judged gate as the gate's own line; a pause without a reason; what a rollback has left, or that every machine has it", () => {
    const judged = planLines({ ...plan, gate }, s)
    expect(judged[2]).toBe(`  ${gateLine(gate, s)}`)
    expect(judged[2]).not.toContain("not judged yet")
    expect(planLines({ ...plan, paused: { by: "alice", at: 0, why: "" } }, s)[1]).toBe(
      "  PAUSED by alice at 1970-01-01T00:00:00Z: no reason given — `plans resume letta-205` goes on",
    )
    expect(planLines({ ...plan, state: "rolling-back", putBack }, s).at(-1)).toBe(
      "  putting back letta-204 on hq-1, hq-2: hq-1, hq-2 not sent yet",
    )
    expect(
      planLines({ ...plan, state: "rolling-back", putBack: { ...putBack, sent: ["hq-1", "hq-2"] } }, s).at(-1),
    ).toBe("  putting back letta-204 on hq-1, hq-2: every one has it")
    // Only a plan rolling back says it, and only when it saved what it puts back.
    expect(planLines({ ...plan, state: "failed", putBack }, s).some((l) => l.includes("putting back"))).toBe(false)
    expect(planLines({ ...plan, state: "rolling-back" }, s).some((l) => l.includes("putting back"))).toBe(false)
  })
})
