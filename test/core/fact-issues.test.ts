// A Schema decoding's first problem is what a bad line's `FILE:LINE: field: problem` says. An exit
// can also carry a defect beside or instead of the decoding's failure: the failure is still the one
// named, and a defect alone still says the line could not be decoded, rather than throwing.
import * as Cause from "effect/Cause"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import { describe, expect, it } from "vitest"
import { firstIssue } from "@mesh-core/core/decoding"

const failed = Schema.decodeUnknownExit(Schema.Struct({ a: Schema.Struct({ b: Schema.String }) }))({ a: { b: 1 } })

describe("a decoding's first issue", () => {
  it("names the field that failed, by its path", () => {
    expect(firstIssue(failed)).toEqual({ field: "a.b", problem: expect.stringMatching(/./) })
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
})
