// A failed gate never puts back a controller's build that cannot read the store as it is now (novox/hq
// issue 352, seed 004): the rule as a relation over any reach, migration and module, through the tick.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { basePlan, ok, run } from "./gate-world.ts"

const controllerPlan = { ...basePlan, id: "controller-9", module: "controller", build: "controller-9" }
const failing = { kind: "tick", reaches: ["hq-1", "hq-2", "hq-3", "hq-4", "hq-5"], refuse: ["hq-1"] } as const

const withReach = (module: string, answer: unknown) =>
  run([ok, failing], module === "controller" ? controllerPlan : basePlan, {
    answer: (q) => {
      if (q.q === "store-reach") return answer
      if (q.q === "builds")
        return {
          ok: true,
          value: [
            { build: "letta-204", module, commit: "a71c3d09e4" },
            { build: module === "controller" ? "controller-9" : "letta-205", module, commit: "5e1f0c2a9b" },
          ],
        }
      return undefined
    },
  })

describe("schema reach guards the controller's own rollback", () => {
  it("a controller's previous build is put back exactly when it recorded a reach at or past the store's migration; any other module never asks", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("controller", "letta"),
        fc.integer({ min: 1, max: 20 }),
        fc.option(fc.integer({ min: 1, max: 20 }), { nil: undefined }),
        (module, storeAt, reach) => {
          const r = withReach(module, { ok: true, value: reach === undefined ? { storeAt } : { storeAt, reach } })
          const asked = r.asked.some((a) => a.q.q === "store-reach")
          const putBack = r.acts.some((a) => a.q.q === "send-plan" && a.q.why === "rollback")
          expect(asked).toBe(module === "controller")
          expect(putBack).toBe(module !== "controller" || (reach !== undefined && reach >= storeAt))
        },
      ),
    )
  })

  it("one that cannot read it is NOT put back: said in the seed's words, marked, and raised urgent for a person", () => {
    const r = withReach("controller", { ok: true, value: { storeAt: 14, reach: 4 } })
    const why =
      "build letta-204 reads the store's schema up to migration 0004, and the store is at migration 0014 now: it cannot read the store as it is"
    expect(r.plan).toMatchObject({ state: "failed", gate: { rollback: "not-rolled-back" } })
    expect(r.plan.note).toContain(`NOT put back: ${why}`)
    expect(r.acts.map((a) => a.q.q)).not.toContain("set-build")
    const raised = r.acts.flatMap((a) => (a.q.q === "raise-condition" ? [a.q.observation] : []))
    const failedRaise = raised.find((o) => o.key === "core.controller.hq-1.rollback-failed")
    expect(failedRaise).toMatchObject({ severity: "urgent", resolver: "operator" })
    expect(failedRaise!.summary).toContain(why)
    expect(r.acts.find((a) => a.q.q === "set-rollback")?.q).toMatchObject({ rollback: "not-rolled-back" })
  })

  it("a reach that cannot be read is never read as reaching: not put back, and why", () => {
    const r = withReach("controller", { ok: false, why: "connect ECONNREFUSED 127.0.0.1:5432" })
    expect(r.plan.note).toContain(
      "NOT put back: what build letta-204 reads of the store's schema cannot be read: connect ECONNREFUSED 127.0.0.1:5432",
    )
    expect(r.acts.some((a) => a.q.q === "send-plan" && a.q.why === "rollback")).toBe(false)
  })
})
