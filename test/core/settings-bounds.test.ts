// Nothing nonsense is accepted (issue 27): the rules that refuse a flag or a setting that cannot be
// right, each stated from what it must be.
import fc from "fast-check"
import * as Schema from "effect/Schema"
import { describe, expect, it } from "vitest"
import { batchProblem } from "@mesh-core/core/controller/settings"
import { pushArguments } from "@mesh-core/core/delivery/behind"
import { VerbRequest } from "@mesh-core/core/gate/plan/records"
import { personProblem } from "@mesh-core/core/person"

describe("serve --batch", () => {
  it("a whole number of words from 1 to 100000, and nothing else", () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer(), fc.double()), (n) => {
        const ok = Number.isInteger(n) && n >= 1 && n <= 100_000
        expect(batchProblem(n) === undefined).toBe(ok)
      }),
    )
    expect(batchProblem(-5)).toBe("--batch -5: give a whole number of words from 1 to 100000, as in --batch 1000")
    expect([1, 100_000].map(batchProblem)).toEqual([undefined, undefined])
    expect([0, 100_001].map((n) => batchProblem(n) !== undefined)).toEqual([true, true])
  })
})

describe("push --wait", () => {
  it("a duration of at most 596h, and only for a named machine", () => {
    expect(pushArguments(["hq-1"], false, "30s")).toEqual({ node: "hq-1", waitMs: 30_000 })
    expect(pushArguments([], false, "0")).toEqual({ node: undefined, waitMs: 0 })
    expect(pushArguments([], true)).toEqual({ node: undefined, waitMs: 0 })
    expect(pushArguments([], false, "5s")).toEqual({
      problem: "--wait is for a named machine: push <node> --wait 30s waits until it reports applying",
    })
    for (const w of ["99999999999999999999h", "597h", "soon", "-1s"])
      expect(pushArguments(["hq-1"], false, w)).toEqual({
        problem: `--wait ${w}: give a duration of at most 596h, as in --wait 30s (0: do not wait)`,
      })
  })
})

describe("who acts", () => {
  it("never empty or blank: refused at the command, and by the controller on the wire", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(" ", "\t", "a", "é") }), (by) => {
        const blank = by.trim() === ""
        expect(personProblem("--as", by) !== undefined).toBe(blank)
        const decoded = Schema.decodeUnknownExit(VerbRequest)({ verb: "pause", plan: "p", by, why: "" })
        expect(decoded._tag === "Failure").toBe(blank)
      }),
    )
    expect(personProblem("--as", "")).toBe(
      "--as: give who acts (it is empty, and so is $USER): every act is kept with the name of who gave it",
    )
  })
})
