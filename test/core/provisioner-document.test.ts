// The contributions document read as seed 000 reads it (issue 241: nothing read is not nobody
// asking; issue 14: a grant that lost its secret or a null entry is unusable), and the words of a
// held mass withdrawal, pinned.
import { describe, expect, it } from "vitest"
import { readContributions, withdrawableIn } from "@mesh-core/core/provisioner/contributions"
import { freshConsumer } from "@mesh-core/core/provisioner/model"
import { heldWithdrawal } from "@mesh-core/core/provisioner/contributions"
import {
  classOf,
  classFor,
  errorOf,
  ClassCredentials,
  ClassUnreachable,
  ClassRefused,
  ClassSecret,
  clip,
} from "@mesh-core/core/provisioner/classes"

const provider = { resource: "postgres", receives: "/run/c.json", node: "hq-1" }
const read = (doc: unknown) => readContributions({ read: "ok", text: JSON.stringify(doc) }, provider)

describe("the contributions document", () => {
  it("reads every field of a grant, absent or null ones as empty", () => {
    expect(
      read({
        requirement: "postgres",
        given: [
          { as: "letta", secret: "/s/l", node: "n1", at: "a1", values: { db: "l" }, derived: { role: "r" } },
          { as: "chat", secret: "/s/c", node: null, values: null },
        ],
      }),
    ).toEqual({
      usable: true,
      given: [
        { as: "letta", secret: "/s/l", node: "n1", at: "a1", values: { db: "l" }, derived: { role: "r" } },
        { as: "chat", secret: "/s/c", node: "", at: "", values: {}, derived: {} },
      ],
    })
    expect(read({ given: [] })).toEqual({ usable: true, given: [] })
    expect(read({ requirement: "", given: [{ as: "", node: "x" }] })).toEqual({ usable: true, given: [] }) // no `as`: not a credential grant
  })

  it("refuses, naming why, whatever says nothing usable about who is asking", () => {
    expect(read([1])).toEqual({ usable: false, why: "contributions file is not JSON (/run/c.json): not a JSON object" })
    expect(read(null)).toEqual({
      usable: false,
      why: "contributions file is not JSON (/run/c.json): not a JSON object",
    })
    expect(read({ requirement: 5, given: [] })).toEqual({
      usable: false,
      why: "contributions file is not JSON (/run/c.json): requirement is not a string",
    })
    expect(read({ requirement: "keycloak", given: [] })).toEqual({
      usable: false,
      why: "/run/c.json is for keycloak, not postgres",
    })
    expect(read({ given: {} })).toEqual({ usable: false, why: "/run/c.json has no given list" })
    for (const bad of [
      { as: 5, secret: "/s" },
      { as: "a", secret: 5 },
      { as: "a", secret: "/s", node: 5 },
      { as: "a", secret: "/s", at: 5 },
      { as: "a", secret: "/s", values: [] },
      { as: "a", secret: "/s", derived: "x" },
      "grant",
      null,
    ]) {
      expect(read({ given: [{ as: "ok", secret: "/s" }, bad] })).toEqual({
        usable: false,
        why: "/run/c.json is unusable: given[1] cannot be read as a grant",
      })
    }
    expect(read({ given: [{ as: "letta", secret: null }] })).toEqual({
      usable: false,
      why: "/run/c.json is unusable: given[0] (letta) has no secret",
    })
    // Text that is not JSON says what the parser said of it, not that it is the wrong shape.
    const parserSays = (() => {
      try {
        JSON.parse("{")
      } catch (e) {
        return (e as Error).message
      }
    })()
    expect(readContributions({ read: "ok", text: "{" }, provider)).toEqual({
      usable: false,
      why: `contributions file is not JSON (/run/c.json): ${parserSays}`,
    })
  })

  it("the consumers a document withdraws are those with something applied, or a failing standing (issue 27)", () => {
    const applied = { hash: "h", derived: {}, passwordForms: [] }
    const trouble = { node: "n", since: 0, attempts: 3, class: "refused", text: "refused", saidAt: 0 }
    expect(
      withdrawableIn(
        new Map([
          ["a", { ...freshConsumer, applied }],
          ["b", freshConsumer],
          ["c", { ...freshConsumer, applied }],
          ["d", { ...freshConsumer, trouble }],
        ]),
      ),
    ).toEqual(["a", "c", "d"])
  })
})

describe("a held mass withdrawal's words", () => {
  it("names how many of how many, the first five, and how to allow it", () => {
    expect(heldWithdrawal(["a", "b"], new Set(), false)).toBe(
      "WITHDRAWAL HELD: the contributions file would withdraw every consumer (2 of 2: a, b); nothing is withdrawn until a person allows it (provide postgres --allow-mass-withdrawal)",
    )
    expect(heldWithdrawal(["a", "b", "c", "d", "e", "f", "g"], new Set(["g"]), false)).toBe(
      "WITHDRAWAL HELD: the contributions file would withdraw more than half the consumers (6 of 7: a, b, c, d, e, …); nothing is withdrawn until a person allows it (provide postgres --allow-mass-withdrawal)",
    )
    expect(heldWithdrawal(["a", "b"], new Set(["b"]), false)).toBeUndefined() // half is not more than half
    expect(heldWithdrawal(["a", "b", "c", "d", "e"], new Set(["a", "b"]), false)).toMatch(
      /^WITHDRAWAL HELD: .* \(3 of 5: c, d, e\);/,
    )
    expect(heldWithdrawal(["a", "b", "c", "d", "e"], new Set(["e"]), false)).toMatch(/\(4 of 5: a, b, c, d\);/)
    expect(heldWithdrawal(["a"], new Set(), true)).toBeUndefined()
  })
})

describe("the classes of error (seed 000's ClassOf, ADR 0224)", () => {
  it("reads each of the seed's words, in any case, as its class; credentials before reachability; anything else refused", async () => {
    expect([ClassCredentials, ClassUnreachable, ClassRefused, ClassSecret]).toEqual([
      "credentials-rejected",
      "unreachable",
      "refused",
      "secret-unreadable",
    ])
    for (const w of [
      "invalid_grant",
      "Invalid user credentials",
      "password authentication failed",
      "authentication failed",
      "UNAUTHORIZED",
      "HTTP 401",
    ])
      expect(classOf(`x ${w} y`)).toBe("credentials-rejected")
    for (const w of [
      "connection refused",
      "no such host",
      "i/o timeout",
      "context deadline exceeded",
      "connection reset",
      "network is unreachable",
      "no route to host",
      "unexpected EOF",
    ])
      expect(classOf(`x ${w} y`)).toBe("unreachable")
    expect(classOf("connection refused: authentication failed")).toBe("credentials-rejected")
    expect(classOf("HTTP401")).toBe("refused")
    expect(classFor("", "no such host")).toBe("unreachable")
    expect(classFor(undefined, "no such host")).toBe("unreachable")
    expect(classFor("quota", "no such host")).toBe("quota")
    expect(errorOf("no route to host", undefined)).toEqual({ error: "no route to host", class: "unreachable" })
    expect(errorOf("x", "quota")).toEqual({ error: "x", class: "quota" })
  })
})

describe("an announced error clipped to a status line", () => {
  it("keeps 300 characters, never cuts a surrogate pair, and withholds a clip that still spells the password", async () => {
    expect(clip("a".repeat(300))).toBe("a".repeat(300))
    expect(clip(`${"a".repeat(299)}😀b`)).toBe(`${"a".repeat(299)}…`)
    expect(clip(`${"a".repeat(298)}😀b`)).toBe(`${"a".repeat(298)}😀…`)
    expect(clip(`pw-123456${"a".repeat(300)}`, ["pw-123456"])).toBe(
      "(error text withheld: it spelled the consumer's password)",
    )
    expect(clip(`${"a".repeat(300)}pw-123456`, ["pw-123456"])).toBe(`${"a".repeat(300)}…`)
    // The first and the last high surrogates are as much the start of a pair as any between.
    expect(clip(`${"a".repeat(299)}\u{10000}b`)).toBe(`${"a".repeat(299)}…`)
    expect(clip(`${"a".repeat(299)}\u{10FFFF}b`)).toBe(`${"a".repeat(299)}…`)
    expect(clip(`${"a".repeat(299)}\uE000b`)).toBe(`${"a".repeat(299)}\uE000…`)
    // With no password to look for, nothing is withheld, whatever the text says.
    expect(clip(`anything at all ${"a".repeat(300)}`)).toBe(`anything at all ${"a".repeat(284)}…`)
  })
})
