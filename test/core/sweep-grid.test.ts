// A what-if sweep's grid (issue 11), stated on its own: the points are every pair of the two axes'
// values, first axis outermost, each named as a person names it; and each refusal word for word, as
// `simulate --sweep` prints it.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { mostAxes, mostPoints, sweepAxis, sweepPoints } from "@mesh-core/core/sweep"

const asSaid = (_: string, text: string) => ({ value: text })
const name = fc.constantFrom("failingAfter", "every", "passes")
const values = fc.uniqueArray(fc.stringMatching(/^[0-9a-z]{1,3}$/), { minLength: 1, maxLength: 6 })

describe("the grid", () => {
  it("one axis is its values in order; two are every value of the first with every value of the second", () => {
    fc.assert(
      fc.property(name, values, fc.option(fc.tuple(name, values), { nil: undefined }), (n1, v1, second) => {
        const said = [`${n1}=${v1.join(",")}`, ...(second === undefined ? [] : [`${second[0]}=${second[1].join(",")}`])]
        const out = sweepPoints(said, asSaid)
        if (second !== undefined && second[0] === n1) {
          expect(out).toEqual({ problem: `--sweep ${said[1]}: ${n1} is swept twice` })
          return
        }
        const want: Array<Array<[string, string]>> = []
        for (const a of v1) {
          if (second === undefined) want.push([[n1, a]])
          else
            for (const b of second[1])
              want.push([
                [n1, a],
                [second[0], b],
              ])
        }
        expect(out).toEqual(
          want.map((pairs) => ({
            label: pairs.map(([n, t]) => `${n}=${t}`).join(" "),
            values: pairs.map(([n, t]) => ({ name: n, text: t, value: t })),
          })),
        )
      }),
    )
  })

  it("hands each value to the area's reader with its setting's name, and keeps what it reads", () => {
    const out = sweepPoints(["failingAfter=1m, 2m"], (n, t) => ({ value: `${n}:${t}` }))
    expect(out).toEqual([
      { label: "failingAfter=1m", values: [{ name: "failingAfter", text: "1m", value: "failingAfter:1m" }] },
      { label: "failingAfter=2m", values: [{ name: "failingAfter", text: "2m", value: "failingAfter:2m" }] },
    ])
  })

  it("allows at most two axes and 64 points", () => {
    expect([mostAxes, mostPoints]).toEqual([2, 64])
    expect(sweepPoints(["a=1,2,3,4,5,6,7,8", "b=1,2,3,4,5,6,7,8"], asSaid)).toHaveLength(64)
    expect(sweepPoints(["a=1,2,3,4,5,6,7,8,9", "b=1,2,3,4,5,6,7,8"], asSaid)).toEqual({
      problem: "--sweep: 72 points; at most 64 are replayed in one reading",
    })
    expect(sweepPoints(["a=1", "b=2", "c=3"], asSaid)).toEqual({
      problem: "--sweep is given 3 times; a sweep is one setting, or a grid of two",
    })
    expect(sweepPoints([], asSaid)).toEqual([{ label: "", values: [] }])
  })
})

describe("an axis", () => {
  it("is a setting and its values, trimmed; refused, naming what was said", () => {
    expect(sweepAxis("failingAfter=1m, 2m ,5m")).toEqual({ name: "failingAfter", values: ["1m", "2m", "5m"] })
    const shape = (said: string) => ({
      problem: `--sweep ${said}: give a setting and its values, as in failingAfter=1m,2m,5m`,
    })
    for (const said of ["failingAfter", "=1m", "failingAfter=", "failingAfter=1m,,2m", "failingAfter=1m, "])
      expect(sweepAxis(said)).toEqual(shape(said))
    expect(sweepAxis("failingAfter=1m,2m,1m")).toEqual({ problem: "--sweep failingAfter=1m,2m,1m: 1m is given twice" })
    expect(sweepAxis("a=b=c")).toEqual({ name: "a", values: ["b=c"] })
  })

  it("a value the area cannot read is refused with the area's words after what was said", () => {
    expect(
      sweepPoints(["failingAfter=1m,soon"], (_, t) =>
        t === "soon" ? { problem: `"soon" is not a duration` } : { value: t },
      ),
    ).toEqual({ problem: `--sweep failingAfter=1m,soon: "soon" is not a duration` })
    expect(sweepPoints(["x", "a=1"], asSaid)).toEqual({
      problem: "--sweep x: give a setting and its values, as in failingAfter=1m,2m,5m",
    })
  })
})
