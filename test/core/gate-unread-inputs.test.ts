// What could not be read is never judged (seed 003-3): a judging that could not read an input it needs
// is a measurement error — the gate left as it was, the bound never run on it, the build never failed
// by it — and a failed read touches only the plans whose judging reads it.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { couldNotAsk, type GateInput, inputsOf } from "@mesh-core/core/gate/errors"
import type { GateFacts } from "@mesh-core/core/gate/facts"
import { entriesOf } from "@mesh-core/core/gate/history"
import { basePlan, ok, run, settings } from "./gate-world.ts"

const unread = { ok: false as const, why: "nats: timeout" }
const allRead: GateFacts = {
  now: 0,
  reports: new Map(),
  engines: new Map(),
  served: { ok: true, value: new Map() },
  open: { ok: true, value: [] },
  rolledBack: new Map(),
  holder: { ok: true, value: undefined },
  health: { ok: true, value: new Map() },
}
/** Facts with exactly `input` unreadable. */
const without = (input: GateInput): GateFacts => {
  switch (input) {
    case "reports":
      return { ...allRead, reportsUnread: "relation reports does not exist" }
    case "open":
      return { ...allRead, open: unread }
    case "witnesses":
      return { ...allRead, witnessesUnread: "relation witness_verdicts does not exist" }
    case "served":
      return { ...allRead, served: unread }
    case "holder":
      return { ...allRead, holder: unread }
    case "health":
      return { ...allRead, health: unread }
    case "engines":
      return { ...allRead, enginesUnread: "nats: timeout" }
  }
}
const inputs: ReadonlyArray<GateInput> = ["reports", "open", "witnesses", "served", "holder", "health", "engines"]

describe("a failed read touches only the plans that need it", () => {
  it("the seed's judging, input by input: which module's judging reads what", () => {
    const needs = (module: string, tools: Array<string> = [], delivered: Array<string> = []) =>
      [...inputsOf(module, { tools, deliveredVersions: delivered })].sort()
    expect(needs("letta")).toEqual(["health", "open", "reports"])
    expect(needs("letta", ["search"])).toEqual(["health", "open", "reports", "served"])
    expect(needs("controller")).toEqual(["holder", "open", "reports", "witnesses"])
    expect(needs("node-tools")).toEqual(["open", "reports", "served", "witnesses"])
    expect(needs("node-engine", [], ["node-engine-8"])).toEqual(["engines", "open", "reports", "witnesses"])
    expect(needs("node-engine")).toEqual(["open", "reports", "witnesses"])
  })

  it("a judging could not ask exactly when an input it needs could not be read", () => {
    fc.assert(
      fc.property(fc.constantFrom(...inputs), fc.subarray([...inputs]), (failed, needed) => {
        const why = couldNotAsk(without(failed), new Set(needed))
        expect(why !== undefined).toBe(needed.includes(failed))
        // Not given what it needs: every input counts.
        expect(couldNotAsk(without(failed))).toBeDefined()
        expect(couldNotAsk(allRead, new Set(needed))).toBeUndefined()
      }),
    )
  })
})

describe("reports that cannot be read end the judging, never the build", () => {
  it("however long they stay unreadable, past the bound: never failed, nothing put back, each judging kept as could-not-ask, then paused for a person", () => {
    const ticks = Array.from({ length: 30 }, () => ok)
    const r = run(ticks, basePlan, {
      answer: (q, step) => {
        if (q.q !== "gate-facts" || step === 0) return undefined
        return {
          now: (step + 1) * 1_100,
          reports: {},
          reportsUnread: "relation reports does not exist",
          engines: {},
          served: { ok: true, value: {} },
          open: { ok: true, value: [] },
          rolledBack: {},
          holder: { ok: true, value: null },
          health: { ok: true, value: {} },
        }
      },
    })
    // 30 ticks of 1.1 s: three times the 10 s bound.
    expect(30 * 1_100).toBeGreaterThan(3 * settings.bound)
    expect(r.verdicts).toEqual([])
    expect(r.acts.some((a) => a.q.q === "send-plan" && a.q.why === "rollback")).toBe(false)
    expect(r.plan.state).toBe("open")
    const words = entriesOf(r.plan.history).flatMap((e) => (e.kind === "judging" ? [e.word] : []))
    expect(words.length).toBeGreaterThan(0)
    expect(new Set(words)).toEqual(new Set(["could-not-ask"]))
    expect(r.plan.paused?.by).toBe("controller")
    expect(
      r.said.some((l) => l.includes("what the machines reported cannot be read: relation reports does not exist")),
    ).toBe(true)
  })
})
