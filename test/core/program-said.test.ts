// What counts as a said word (core/src/program.ts, issue 25): a program yields either a question of
// its catalogue or a line for the journal, and the drivers (`runPure` here, the shells' `drive`) tell
// them apart by `isSaid`. The rule, stated apart from the code: a yielded value is said exactly when
// it is an object whose kind `q` is the word "say"; every other kind is a question to answer, and a
// value that is no object at all (a program's mistake) is no said line either, and asking about it
// does not throw.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { isSaid, type Program, runPure } from "@mesh-core/core/program"

const said = (y: unknown): boolean => typeof y === "object" && y !== null && Reflect.get(y, "q") === "say"

describe("isSaid", () => {
  it("a line said is said; a question of any other kind is not", () => {
    expect(isSaid({ q: "say", line: "saved 2 of 3" })).toBe(true)
    expect(isSaid({ q: "say", line: "" })).toBe(true)
    for (const q of ["open-plans", "send", "Say", "say ", "says", ""]) expect(isSaid({ q, line: "x" })).toBe(false)
    expect(isSaid({ line: "say" })).toBe(false)
    expect(isSaid({})).toBe(false)
  })

  it("a value that is no object is no said line, and asking does not throw", () => {
    for (const y of [null, undefined, "say", 0, 1, true, Symbol("say")]) expect(isSaid(y)).toBe(false)
  })

  it("holds for any value, as the rule states it", () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), fc.record({ q: fc.oneof(fc.constant("say"), fc.string()) })), (y) => {
        expect(isSaid(y)).toBe(said(y))
      }),
    )
  })
})

describe("runPure", () => {
  it("answers the questions only, in order, hands the said lines to the journal, and stops at the program's end", () => {
    function* program(): Program<never, string> {
      yield { q: "say", line: "begun" }
      const a: unknown = yield { q: "open-plans" } as never
      yield { q: "say", line: `read ${String(a)}` }
      return "ended"
    }
    const asked: Array<unknown> = []
    const heard: Array<unknown> = []
    const r = runPure(
      program(),
      (q) => {
        // Asked past the program's end (the result taken for a question), it fails the test.
        if (asked.length > 0) throw new Error(`asked again: ${JSON.stringify(q)}`)
        asked.push(q)
        return 7
      },
      (h) => heard.push(h),
    )
    expect(r.result).toBe("ended")
    expect(asked).toEqual([{ q: "open-plans" }])
    expect(r.said).toEqual(["begun", "read 7"])
    expect(heard).toEqual([
      { said: "begun" },
      { exchange: { question: { q: "open-plans" }, answer: 7 } },
      { said: "read 7" },
    ])
  })
})
