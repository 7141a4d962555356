// A Schema decoding's first problem is what a bad line's `FILE:LINE: field: problem` says. An exit
// can also carry a defect beside or instead of the decoding's failure: the failure is still the one
// named, and a defect alone still says the line could not be decoded, rather than throwing.
import * as Cause from "effect/Cause"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import { describe, expect, it } from "vitest"
import { decoderOf, firstIssue } from "@mesh-core/core/decoding"

const failed = Schema.decodeUnknownExit(Schema.Struct({ a: Schema.Struct({ b: Schema.String }) }))({ a: { b: 1 } })

describe("a decoding's first issue", () => {
  it("names the field that failed, by its path", () => {
    expect(firstIssue(failed)).toEqual({ field: "a.b", problem: "Expected string" })
    expect(firstIssue(Exit.succeed({ a: { b: "x" } }))).toBeUndefined()
  })

  it("names the failure when a defect comes before it", () => {
    if (!Exit.isFailure(failed)) throw new Error("the decoding was meant to fail")
    const both = Exit.failCause(Cause.fromReasons([Cause.makeDieReason(new Error("boom")), ...failed.cause.reasons]))
    expect(firstIssue(both)).toEqual(firstIssue(failed))
  })

  it("says the line could not be decoded when there is only a defect", () => {
    expect(firstIssue(Exit.die(new Error("boom")))).toEqual({ field: "(line)", problem: "could not be decoded" })
  })

  it("names an array's element by its index, and a problem with the whole line as the line", () => {
    const xs = Schema.decodeUnknownExit(Schema.Struct({ xs: Schema.Array(Schema.Number) }))({ xs: [1, "a"] })
    expect(firstIssue(xs)).toEqual({ field: "xs.1", problem: "Expected number" })
    expect(firstIssue(Schema.decodeUnknownExit(Schema.String)(7))).toEqual({
      field: "(line)",
      problem: "Expected string",
    })
  })
})

describe("a decoder made once per Schema", () => {
  it("is the same decoder each time it is asked for, and another for another Schema", () => {
    const a = Schema.Struct({ a: Schema.String })
    expect(decoderOf(a)).toBe(decoderOf(a))
    expect(decoderOf(a)).not.toBe(decoderOf(Schema.Struct({ a: Schema.String })))
    expect(Exit.isSuccess(decoderOf(a)({ a: "x" }))).toBe(true)
    expect(firstIssue(decoderOf(a)({ a: 1 }))).toEqual({ field: "a", problem: "Expected string" })
  })
})
