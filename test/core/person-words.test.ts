// Who acts and why, as a person gives them (issue 27: never empty; issue 43: every text bounded), in
// the words a command and the controller refuse them with, at the bounds exactly.
import { Person, personProblem, reasonProblem, textBounds, textProblem } from "@mesh-core/core/person"
import * as Schema from "effect/Schema"
import { describe, expect, it } from "vitest"

const refused = (v: string) => {
  const e = Schema.decodeUnknownExit(Person)(v)
  return e._tag === "Failure" ? String(e.cause) : undefined
}

describe("a text given from outside", () => {
  it("is empty when it holds nothing but blanks, too long one character past its bound, and kept otherwise", () => {
    expect(textProblem(" \t", 5)).toBe("empty")
    expect(textProblem("abcde", 5)).toBeUndefined()
    expect(textProblem("abcdef", 5)).toBe("6 characters, over the 5 it may be")
  })

  it("a reason may be left out, and is refused one character past its bound, naming its flag", () => {
    expect(reasonProblem("--why", "")).toBeUndefined()
    expect(reasonProblem("--why", "x".repeat(textBounds.reason))).toBeUndefined()
    expect(reasonProblem("--why", "x".repeat(textBounds.reason + 1))).toBe(
      "--why: 4097 characters, over the 4096 it may be",
    )
  })

  it("a person's name is never empty, and is refused one character past its bound, naming its flag", () => {
    expect(personProblem("--by", " ")).toBe(
      "--by: give who acts (it is empty, and so is $USER): every act is kept with the name of who gave it",
    )
    expect(personProblem("--by", "x".repeat(textBounds.person))).toBeUndefined()
    expect(personProblem("--by", "x".repeat(textBounds.person + 1))).toBe(
      "--by: 257 characters, over the 256 a name may be",
    )
  })

  it("on the wire, a request without who acts, or with a name too long, is refused in those words", () => {
    expect(refused("alice")).toBeUndefined()
    expect(refused("  ")).toContain("give who acts: never empty")
    expect(refused("x".repeat(257))).toContain("by: 257 characters, over the 256 a name may be")
  })
})
