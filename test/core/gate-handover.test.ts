// A verb given while the controller stops its acts, before the lease is given back (seed 004, novox/hq
// issue 289): refused as a handover, naming the next holder when the record names another, and
// nothing of the plan read or done.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { handingOverWords, operatorVerb } from "@mesh-core/core/gate/operator/operator"
import { runPure } from "@mesh-core/core/program"
import { settings } from "./gate-world.ts"

describe("a verb during a handover", () => {
  it("is refused (code 2) after asking only who holds the lease, whoever the record names", () => {
    fc.assert(
      fc.property(
        fc.option(fc.constantFrom("ctl-a", "ctl-b", "ctl-c"), { nil: null }),
        fc.constantFrom("pause", "resume", "promote", "abort", "retry" as const),
        (holder, verb) => {
          const asked: Array<string> = []
          const r = runPure(operatorVerb({ verb, plan: "letta-205", by: "ana", at: 0, why: "" }, settings), (q) => {
            asked.push(q.q)
            return { ok: true, value: { mine: false, holder, handingOver: true, self: "ctl-a" } }
          })
          expect(asked).toEqual(["lease-holder"])
          expect(r.result).toStrictEqual({ ok: false, code: 2, said: handingOverWords(holder, "ctl-a") })
          expect(r.result.said).toBe(handingOverWords(holder, "ctl-a"))
        },
      ),
    )
  })

  it("names the next holder only when it is another controller", () => {
    expect(handingOverWords("ctl-b", "ctl-a")).toBe(
      "this controller is handing over the controller lease, so it starts nothing now; ctl-b holds it: give the verb to ctl-b",
    )
    for (const holder of ["ctl-a", null])
      expect(handingOverWords(holder, "ctl-a")).toBe(
        "this controller is handing over the controller lease, so it starts nothing now; give the verb again once the next controller holds it (`mesh-controller status` names it)",
      )
  })
})
