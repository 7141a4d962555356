// A mass withdrawal is held (issue 14, as Argo CD's allowEmpty): the rule against a model, and the
// loop asking no Remove for a held document.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { defaultSettings, type Provider } from "@mesh-core/core/provisioner/model"
import { initialState, type ProvisionerState } from "@mesh-core/core/provisioner/pass"
import { runPass } from "../support/run-pass.ts"
import { heldStanding, heldWithdrawal } from "@mesh-core/core/provisioner/contributions"
import { openConditions } from "@mesh-core/core/status/conditions"

const names = fc.uniqueArray(fc.constantFrom("a", "b", "c", "d", "e", "f", "g", "h"), { maxLength: 8 })

describe("heldWithdrawal", () => {
  it("holds iff the document removes all, or more than half, of what is applied, and it is not allowed", () => {
    fc.assert(
      fc.property(names, names, fc.boolean(), (applied, want, allowed) => {
        let gone = 0
        for (const a of applied) if (!want.includes(a)) gone += 1
        const model = !allowed && gone > 0 && (gone === applied.length || gone / applied.length > 0.5)
        expect(heldWithdrawal(applied, new Set(want), allowed) !== undefined).toBe(model)
      }),
      { numRuns: 500 },
    )
  })

  it("says what it holds word for word: every consumer or more than half, how many, the first five named", () => {
    expect(heldWithdrawal(["a", "b"], new Set(), false)).toBe(
      "WITHDRAWAL HELD: the contributions file would withdraw every consumer (2 of 2: a, b); " +
        "nothing is withdrawn until a person allows it (provide postgres --allow-mass-withdrawal)",
    )
    expect(heldWithdrawal(["a", "b", "c", "d", "e", "f", "g"], new Set(["g"]), false)).toBe(
      "WITHDRAWAL HELD: the contributions file would withdraw " +
        "more than half the consumers (6 of 7: a, b, c, d, e, …); nothing is withdrawn until a person allows it (provide postgres --allow-mass-withdrawal)",
    )
    expect(heldWithdrawal(["a", "b", "c", "d", "e"], new Set(["e"]), false)).toContain("(4 of 5: a, b, c, d); ")
    expect(heldWithdrawal(["a", "b", "c", "d", "e", "f"], new Set(["f"]), false)).toContain("(5 of 6: a, b, c, d, e); ")
  })
})

const provider: Provider = { resource: "postgres", receives: "/c.json", node: "hq-1", holdMassWithdrawal: true }
const doc = (given: ReadonlyArray<string>) =>
  JSON.stringify({ given: given.map((as) => ({ as, secret: `/s/${as}`, node: "n" })) })

// Runs passes: each document in turn, every secret read and every create/remove answered ok.
const run = (documents: ReadonlyArray<string>, p: Provider) => {
  let state: ProvisionerState = initialState
  const removes: Array<string> = []
  const said: Array<string> = []
  documents.forEach((text, i) => {
    const at = i * 5_000
    const s = runPass(state, { fact: "pass", at, document: { read: "ok", text } }, defaultSettings, p, (q) => {
      if (q.q === "remove") removes.push(q.as)
      return q.q === "secret"
        ? { fact: "secret", at, as: q.as, read: "ok", password: `pw-${q.as}-12345` }
        : q.q === "holds"
          ? { fact: "holds", at, as: q.as, outcome: "held" }
          : q.q === "create"
            ? { fact: "create", at, as: q.as, outcome: "ok" }
            : { fact: "remove", at, as: q.as, outcome: "ok" }
    })
    said.push(...s.said.map((x) => x.text))
    state = s.state
  })
  return { removes, said }
}

describe("the loop and a mass withdrawal", () => {
  it("a document that withdraws everyone, or more than half, removes nothing and is said; allowed, it removes", () => {
    const four = doc(["a", "b", "c", "d"])
    expect(run([four, doc([])], provider).removes).toEqual([])
    expect(run([four, doc(["a"])], provider).removes).toEqual([])
    expect(run([four, doc(["a", "b"])], provider).removes).toEqual(["c", "d"])
    const held = run([four, doc([]), doc([])], provider)
    expect(held.said.filter((t) => t.startsWith("WITHDRAWAL HELD"))).toHaveLength(1)
    expect(run([four, doc([])], { ...provider, holdMassWithdrawal: false }).removes).toEqual(["a", "b", "c", "d"])
  })

  it("consumers that never got applied count too: an empty document does not clear their failing standings unless allowed (issue 27)", () => {
    // Every create refused: nothing is ever applied, and each consumer has a failing standing.
    const refusing = (documents: ReadonlyArray<string>, p: Provider) => {
      let state: ProvisionerState = initialState
      const said: Array<string> = []
      const events: Array<string> = []
      documents.forEach((text, i) => {
        const at = i * 60_000
        const s = runPass(state, { fact: "pass", at, document: { read: "ok", text } }, defaultSettings, p, (q) =>
          q.q === "secret"
            ? { fact: "secret", at, as: q.as, read: "ok", password: `pw-${q.as}-12345` }
            : q.q === "holds"
              ? { fact: "holds", at, as: q.as, outcome: "held" }
              : q.q === "create"
                ? {
                    fact: "create",
                    at,
                    as: q.as,
                    outcome: "error",
                    error: "permission denied for database",
                    class: undefined,
                  }
                : { fact: "remove", at, as: q.as, outcome: "ok" },
        )
        said.push(...s.said.map((x) => x.text))
        events.push(...s.announced.map((a) => `${i} ${a.event}${a.body.consumer === heldStanding ? " held" : ""}`))
        state = s.state
      })
      return { said, events }
    }
    const two = doc(["a", "b"])
    const failing = [two, two, two, two, two, two]
    const held = refusing([...failing, doc([])], provider)
    // Both failing before the empty document came: their standings were announced.
    expect(held.events.filter((e) => e.endsWith("failing")).length).toBeGreaterThan(0)
    expect(held.said.filter((t) => t.startsWith("WITHDRAWAL HELD"))).toEqual([
      expect.stringContaining("would withdraw every consumer (2 of 2: a, b)"),
    ])
    // Held: nobody is announced recovered; the held withdrawal is announced (issue 40).
    expect(held.events.filter((e) => e.startsWith("6 "))).toEqual(["6 provisioner.failing held"])
    const allowed = refusing([...failing, doc([])], { ...provider, holdMassWithdrawal: false })
    expect(allowed.said.some((t) => t.includes("WITHDRAWAL HELD"))).toBe(false)
    expect(allowed.events.filter((e) => e.startsWith("6 "))).toHaveLength(2)
  })

  it("malformed documents withdraw nothing (issue 14)", () => {
    const two = doc(["a", "b"])
    for (const bad of [`{"given":[null,null]}`, `{"given":[{"as":"a","node":"n"},{"as":"b","secret":"/s/b"}]}`]) {
      const r = run([two, bad], { ...provider, holdMassWithdrawal: false })
      expect(r.removes).toEqual([])
      expect(r.said.some((t) => t.includes("unusable"))).toBe(true)
    }
  })
})

describe("a held withdrawal on the bus (issue 40; ADR 0230: one waiting for a person is an urgent condition)", () => {
  const four = ["a", "b", "c", "d"]
  const sayAgainEvery = 60_000
  it("its standing follows the journal: failing while held (again every SayAgainEvery, naming the command that releases it), recovered once not; never from a replayed day", () => {
    fc.assert(
      fc.property(fc.array(names, { minLength: 1, maxLength: 12 }), fc.boolean(), (documents, live) => {
        const p: Provider = live ? provider : { resource: "postgres", receives: "/c.json", node: "hq-1" }
        let state: ProvisionerState = initialState
        let heldInJournal = false
        let lastWord: string | undefined
        let lastFailingAt: number | undefined
        ;[four, ...documents].forEach((given, i) => {
          const at = i * 25_000
          const s = runPass(
            state,
            { fact: "pass", at, document: { read: "ok", text: doc(given) } },
            { ...defaultSettings, sayAgainEvery },
            p,
            (q) =>
              q.q === "secret"
                ? { fact: "secret", at, as: q.as, read: "ok", password: `pw-${q.as}-12345` }
                : q.q === "holds"
                  ? { fact: "holds", at, as: q.as, outcome: "held" }
                  : q.q === "create"
                    ? { fact: "create", at, as: q.as, outcome: "ok" }
                    : { fact: "remove", at, as: q.as, outcome: "ok" },
          )
          state = s.state
          for (const line of s.said.map((x) => x.text)) {
            if (line.startsWith("WITHDRAWAL HELD")) heldInJournal = true
            if (line === "contributions file readable again") heldInJournal = false
          }
          const words = s.announced.filter((a) => a.body.consumer === heldStanding)
          if (!live) {
            expect(words).toEqual([])
            return
          }
          expect(words.length).toBeLessThanOrEqual(1)
          for (const w of words) {
            lastWord = w.event
            expect(w.body["provider-node"]).toBe("hq-1")
            if (w.event === "provisioner.failing") {
              expect("error" in w.body && w.body.error).toContain("provide postgres --allow-mass-withdrawal")
              if (lastFailingAt !== undefined) expect(at - lastFailingAt).toBeGreaterThanOrEqual(sayAgainEvery)
              lastFailingAt = at
            } else lastFailingAt = undefined
          }
          if (i === 0) expect(words.map((w) => w.event)).toEqual(["provisioner.recovered"])
          expect(lastWord).toBe(heldInJournal ? "provisioner.failing" : "provisioner.recovered")
          if (heldInJournal && lastFailingAt !== undefined) expect(at - lastFailingAt).toBeLessThan(sayAgainEvery)
        })
      }),
      { numRuns: 200 },
    )
  })

  it("is an urgent condition of its own key, saying the command that releases it", () => {
    const error = heldWithdrawal(["a", "b"], new Set(), false)!
    const at = Date.parse("2026-12-06T03:00:00Z")
    const held = {
      provider: "postgres",
      providerNode: "hq-2",
      consumer: heldStanding,
      consumerNode: "hq-2",
      class: heldStanding,
      error,
      since: "2026-12-06T03:00:00Z",
      attempts: 1,
      at,
      stale: false,
      quietMs: 0,
      state: "failing" as const,
    }
    const [c] = openConditions(
      { well: false, failing: [held], stale: 0, setAside: { count: 0, newest: undefined }, staleAfterMs: 1 },
      [],
    )
    expect(c).toMatchObject({ key: "withdrawal.postgres.hq-2.held", severity: "urgent", raised: at })
    expect(c!.summary).toBe(
      `postgres on hq-2 holds a mass withdrawal until a person acts, since 2026-12-06T03:00:00Z: ${error}`,
    )
  })
})
