// Masking gives nothing away (issue 14): a short password is never masked in place, and an error's
// class is read from the text the backend gave, not from what is left of it after scrubbing.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { classOf, errorOf } from "@mesh-core/core/provisioner/classes"
import { defaultSettings, type Provider } from "@mesh-core/core/provisioner/model"
import { initialState, type ProvisionerState } from "@mesh-core/core/provisioner/pass"
import { runPass } from "../support/run-pass.ts"
import { goQueryEscape, passwordForms, scrub, shortestMasked, withheld } from "@mesh-core/core/provisioner/scrub"

const runs = { numRuns: 500 }
const provider: Provider = { resource: "postgres", receives: "/run/mesh/contributions.json", node: "hq-4" }

// Short passwords of every kind: letters the error words are made of, stars, escapes, unicode.
const shortPassword = fc.string({
  unit: fc.constantFrom("e", "a", "t", "i", "*", "%", " ", "/", "+", "é", "1"),
  minLength: 1,
  maxLength: shortestMasked - 1,
})
const errorWords = fc.constantFrom(
  'password authentication failed for user "mesh_letta"',
  "authentication failed",
  "dial tcp 10.0.0.1:5432: connection refused",
  "unexpected EOF",
  'role "mesh_letta" already exists',
  "HTTP 401 Unauthorized",
  "i/o timeout",
)
// A backend's text: error words, with the password (raw or escaped) maybe spliced in anywhere.
const errorText = (password: string) =>
  fc
    .tuple(
      errorWords,
      fc.array(fc.tuple(fc.nat(), fc.constantFrom(...passwordForms(password))), { maxLength: 3 }),
      fc.string({ maxLength: 12 }),
    )
    .map(([words, splices, tail]) => {
      let t = `${words}${tail}`
      for (const [at, form] of splices) {
        const i = at % (t.length + 1)
        t = t.slice(0, i) + form + t.slice(i)
      }
      return t
    })

describe("masking a short password", () => {
  it("a text holding a password of fewer than 8 characters in any form is withheld whole; any other text is said as it is", () => {
    fc.assert(
      fc.property(
        shortPassword.chain((p) => fc.tuple(fc.constant(p), fc.oneof(errorText(p), fc.string()))),
        ([p, text]) => {
          const said = scrub(text, passwordForms(p))
          // The model: only two answers exist, and neither depends on where the password stood.
          const spelled = passwordForms(p).some((f) => text.includes(f))
          expect(said).toBe(spelled ? withheld : text)
        },
      ),
      runs,
    )
  })

  it("the password `e` in 'authentication failed' gives nothing away", () => {
    expect(scrub('password authentication failed for user "mesh_letta"', passwordForms("e"))).toBe(withheld)
    expect(scrub("connection refused", passwordForms("zz"))).toBe("connection refused")
  })

  it("Go's escapes leave the unreserved characters as they are, and the forms are looked for longest first", () => {
    expect(goQueryEscape("09AZaz-._~")).toBe("09AZaz-._~")
    expect(goQueryEscape("/:@[`{ ")).toBe("%2F%3A%40%5B%60%7B+")
    // A longer spelling holds a shorter one ("a%20b%2F" is not found once "a b/" is masked inside it), so the longest goes first.
    expect(passwordForms("a b/")).toEqual(["a%20b%2F", "a+b%2F", "a b/"])
  })

  it("an empty password has no spelling to look for; one with a lone surrogate, which encodeURIComponent refuses, is looked for as it is", () => {
    expect(passwordForms("")).toEqual([])
    const lone = "ab\uD800cd-12"
    expect(passwordForms(lone)).toContain(lone)
    expect(scrub(`refused for ${lone} at the door`, passwordForms(lone))).not.toContain(lone)
  })

  it("two texts that differ only in where a short password stood are said the same", () => {
    fc.assert(
      fc.property(shortPassword, errorWords, fc.nat(), fc.nat(), (p, words, i, j) => {
        const at = (n: number) => n % (words.length + 1)
        const a = words.slice(0, at(i)) + p + words.slice(at(i))
        const b = words.slice(0, at(j)) + p + words.slice(at(j))
        expect(scrub(a, passwordForms(p))).toBe(scrub(b, passwordForms(p)))
      }),
      runs,
    )
  })
})

// One consumer whose create fails with `text` every pass until FailingAfter has passed.
const announcedClass = (password: string, text: string): { class: string; error: string } | undefined => {
  const settings = { ...defaultSettings, failingAfter: 10_000, every: 5_000 }
  const document = JSON.stringify({ given: [{ as: "mesh_letta", secret: "/run/secrets/letta", node: "letta-1" }] })
  let state: ProvisionerState = initialState
  for (let at = 0; at <= 20_000; at += 5_000) {
    const s = runPass(state, { fact: "pass", at, document: { read: "ok", text: document } }, settings, provider, (q) =>
      q.q === "secret"
        ? { fact: "secret", at, as: q.as, read: "ok", password }
        : { fact: "create", at, as: q.as, outcome: "error", ...errorOf(text, undefined) },
    )
    state = s.state
    const failing = s.announced.find((a) => a.event === "provisioner.failing")
    if (failing !== undefined && failing.event === "provisioner.failing")
      return { class: failing.body.class, error: failing.body.error }
  }
  return undefined
}

describe("the class of a withheld text", () => {
  it("is classOf of the text the backend gave, whatever scrubbing left of it", () => {
    fc.assert(
      fc.property(
        fc
          .oneof(shortPassword, fc.string({ minLength: 1, maxLength: 20 }))
          .chain((p) => fc.tuple(fc.constant(p), errorText(p))),
        ([p, text]) => {
          const a = announcedClass(p, text)
          expect(a).toBeDefined()
          expect(a!.class).toBe(classOf(text))
          // and what is said of it is the fixed withheld sentence or holds no form of the password
          if (a!.error !== withheld) for (const f of passwordForms(p)) expect(a!.error).not.toContain(f)
        },
      ),
      { numRuns: 200 },
    )
  })

  it("a withheld 'password authentication failed' is announced credentials-rejected (issue 14)", () => {
    expect(announcedClass("e", 'password authentication failed for user "mesh_letta"')).toEqual({
      class: "credentials-rejected",
      error: withheld,
    })
  })
})
