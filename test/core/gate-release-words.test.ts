// `release`'s refusals of the tiers it is given, and the ids it gives a plan, word for word: a person
// reads the refusal to mend the command, and scripts read the ids.
import { describe, expect, it } from "vitest"
import { dryRunId, planId, tiersGiven } from "@mesh-core/core/gate/operator/release"

describe("the tiers a release is given", () => {
  it("--first, then each --then split at its commas, names trimmed", () => {
    expect(tiersGiven([" hq-1 ", "hq-2"], ["hq-3, hq-4", "hq-5"])).toEqual({
      tiers: [["hq-1", "hq-2"], ["hq-3", "hq-4"], ["hq-5"]],
    })
    expect(tiersGiven(["hq-1"], [])).toEqual({ tiers: [["hq-1"]] })
  })

  it("refuses an empty machine and a machine named twice, saying where", () => {
    expect(tiersGiven([""], [])).toEqual({ problem: "--first: give a machine's name (it is empty)" })
    expect(tiersGiven(["hq-1"], ["hq-2,"])).toEqual({
      problem: `--then: "hq-2," names an empty machine; give machines separated by commas, as in --then hq-4,hq-5`,
    })
    expect(tiersGiven(["hq-1", "hq-1"], [])).toEqual({ problem: "--first: hq-1 is named twice" })
    expect(tiersGiven(["hq-1"], ["hq-2,hq-2"])).toEqual({ problem: "--then: hq-2 is named twice" })
    expect(tiersGiven(["hq-1"], ["hq-2", "hq-3,hq-1"])).toEqual({
      problem: "hq-1 is named in tier 1 and again in tier 3",
    })
  })
})

describe("a plan's id", () => {
  it("its build when the build names its module, else module-build; a dry run's stamped with when it began", () => {
    expect(planId("letta", "letta-205")).toBe("letta-205")
    expect(planId("letta", "205")).toBe("letta-205")
    expect(planId("letta", "lettax-1")).toBe("letta-lettax-1")
    expect(dryRunId("letta-205", Date.UTC(2026, 11, 3, 8, 52, 10))).toBe("letta-205-dry-run-20261203T085210Z")
  })
})
