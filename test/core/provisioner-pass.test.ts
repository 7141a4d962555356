// One reconcile pass (seed 000's Reconcile), stated as relations between what a pass asks and what
// it was answered, over random days: Holds is the only evidence of loss, so "held" never leads to a
// re-create and "not held" always does; and the exact words and announcements of seed 000 and ADR 0224.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  type AnswerFact,
  EventFailing,
  EventRecovered,
  freshConsumer,
  type Settings,
} from "@mesh-core/core/provisioner/model"
import type { Request } from "@mesh-core/core/provisioner/questions"
import {
  brakeWait,
  initialState,
  loudlyEvery,
  maxBackoff,
  patiently,
  type PassFact,
  type ProvisionerState,
} from "@mesh-core/core/provisioner/pass"
import { runPass } from "../support/run-pass.ts"
import { failed, recovered, silence, succeeded } from "@mesh-core/core/provisioner/standing"
import { day, documentText, live, provider, passwords, settings as settingsArb } from "../support/days.ts"

const settings: Settings = {
  every: 5_000,
  verifyEvery: 60_000,
  holdsTimeout: 30_000,
  failingAfter: 300_000,
  sayAgainEvery: 900_000,
}
const t0 = Date.parse("2026-10-05T00:00:00Z")

describe("Holds is the only evidence of loss (seed 000)", () => {
  it("in every pass: held is never re-created, not-held always is, and only what was created is asked whether it is held", () => {
    fc.assert(
      fc.property(day, settingsArb, passwords, (scripts, s, pw) => {
        const r = live(scripts, s, pw)
        const created = new Set<string>()
        let i = 0
        for (let pass = 0; pass < scripts.length; pass++) {
          const asked: Array<Request> = []
          while (i < r.requests.length && r.requests[i]!.passIndex === pass) asked.push(r.requests[i++]!.request)
          for (const [k, q] of asked.entries()) {
            const o = scripts[pass]!.outcomes[q.as] ?? "ok"
            if (q.q === "holds") {
              expect(created.has(q.as)).toBe(true) // never asked of something never created
              const createdAfter = asked.slice(k + 1).some((x) => x.q === "create" && x.as === q.as)
              if (o === "ok") expect(createdAfter).toBe(false) // held: nothing to do
              if (o === "not-held") expect(createdAfter).toBe(true) // lost: applied again in the same pass
              if (o === "fail" || o === "timeout") expect(createdAfter).toBe(false) // unable to ask is not evidence
            }
            if (q.q === "create" && o !== "fail" && o !== "timeout") created.add(q.as)
            if (q.q === "remove" && o !== "fail") created.delete(q.as)
          }
        }
      }),
      { numRuns: 60 },
    )
  })

  it("a held consumer is asked once per verifyEvery and nothing else is done; not held is created again under the same provision", () => {
    const doc = documentText({ kind: "given", consumers: ["letta"], version: 0 })
    const pass = (at: number): PassFact => ({
      fact: "pass",
      at,
      document: { read: "ok", text: (doc as { text: string }).text },
    })
    const asked: Array<string> = []
    const answer =
      (holds: "held" | "not-held") =>
      (q: Request): AnswerFact => {
        asked.push(`${q.q} ${q.as}`)
        if (q.q === "secret") return { fact: "secret", at: t0, as: q.as, read: "ok", password: "pw-123456\n" }
        if (q.q === "holds") return { fact: "holds", at: t0, as: q.as, outcome: holds }
        if (q.q === "create") return { fact: "create", at: t0, as: q.as, outcome: "ok" }
        return { fact: "remove", at: t0, as: q.as, outcome: "ok" }
      }
    let state: ProvisionerState = runPass(initialState, pass(t0), settings, provider, answer("held")).state
    expect(asked).toEqual(["secret letta", "create letta"])
    asked.length = 0
    state = runPass(state, pass(t0 + 5_000), settings, provider, answer("held")).state
    expect(asked).toEqual(["secret letta"]) // not yet verifyEvery since the last check
    asked.length = 0
    const held = runPass(state, pass(t0 + 60_000), settings, provider, answer("held"))
    expect(asked).toEqual(["secret letta", "holds letta"])
    expect(held.said).toEqual([])
    asked.length = 0
    const lost = runPass(held.state, pass(t0 + 120_000), settings, provider, answer("not-held"))
    expect(asked).toEqual(["secret letta", "holds letta", "create letta"])
    expect(lost.said.map((x) => x.text)).toEqual(["letta: the backend no longer holds it; applying again"])
    expect(lost.state.memory.consumers.get("letta")!.lost).toEqual({ times: 1, nextAt: t0 + 60_000 })
  })
})

describe("the brake and the cadences", () => {
  it("waits verifyEvery doubled for each time in a row, never more than an hour nor nothing", () => {
    expect([1, 2, 3, 4, 6, 7].map((n) => brakeWait(60_000, n))).toEqual([
      60_000,
      120_000,
      240_000,
      480_000,
      1_920_000,
      maxBackoff,
    ])
    expect(maxBackoff).toBe(3_600_000)
    expect(brakeWait(60_000, 2_000)).toBe(maxBackoff)
    expect(brakeWait(0, 1)).toBe(maxBackoff)
    expect(brakeWait(3_600_000, 1)).toBe(3_600_000)
    expect([patiently, loudlyEvery]).toEqual([12, 240])
  })

  it("a secret not readable is a race for twelve passes, then said loudly on the thirteenth and every 240th", () => {
    const doc = documentText({ kind: "given", consumers: ["letta"], version: 0 }) as { text: string }
    let state = initialState
    const words: Array<[number, string]> = []
    for (let n = 1; n <= 480; n++) {
      const r = runPass(
        state,
        { fact: "pass", at: t0 + n * 5_000, document: { read: "ok", text: doc.text } },
        settings,
        provider,
        (q) =>
          ({ fact: "secret", at: t0 + n * 5_000, as: q.as, read: "failed", error: "permission denied" }) as AnswerFact,
      )
      state = r.state
      for (const w of r.said) words.push([n, w.text])
    }
    const race = words.filter(([, w]) => w.includes("not readable yet"))
    expect(race.map(([n]) => n)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1))
    expect(race[0]![1]).toBe("letta: secret not readable yet (/run/secrets/letta): permission denied")
    const loud = words.filter(([, w]) => w.includes("CANNOT READ"))
    expect(loud.map(([n]) => n)).toEqual([13, 240, 480])
    expect(loud[0]![1]).toBe(
      "letta: CANNOT READ the secret after 13 attempts (/run/secrets/letta): permission denied. This is not a race any more — " +
        "nothing has been provisioned for this consumer and nothing will be until somebody looks. Check who owns the file and who this process runs as (novox/hq issue 225)",
    )
    expect(words.find(([, w]) => w.startsWith("letta: FAILING"))).toEqual([
      61,
      "letta: FAILING for 5m0s (61 attempts, secret-unreadable): secret not readable (/run/secrets/letta): permission denied. " +
        "Announced as provisioner.failing; `status` names it until it succeeds (novox/hq ADR 0224)",
    ])
  })

  it("a withdrawn consumer is removed with the seed's words, and a failed remove is said scrubbed and tried again", () => {
    const given = (consumers: Array<string>) => ({
      read: "ok" as const,
      text: (documentText({ kind: "given", consumers, version: 0 }) as { text: string }).text,
    })
    const answer =
      (removeFails: boolean) =>
      (q: Request): AnswerFact => {
        if (q.q === "secret") return { fact: "secret", at: t0, as: q.as, read: "ok", password: "pw-123456" }
        if (q.q === "create") return { fact: "create", at: t0, as: q.as, outcome: "ok" }
        if (q.q === "remove")
          return removeFails
            ? { fact: "remove", at: t0, as: q.as, outcome: "error", error: "refused for pw-123456" }
            : { fact: "remove", at: t0, as: q.as, outcome: "ok" }
        return { fact: "holds", at: t0, as: q.as, outcome: "held" }
      }
    const a = runPass(
      initialState,
      { fact: "pass", at: t0, document: given(["letta", "grafana"]) },
      { ...settings, verifyEvery: 3_600_000 },
      { ...provider, holdMassWithdrawal: false },
      answer(false),
    )
    const b = runPass(
      a.state,
      { fact: "pass", at: t0 + 5_000, document: given(["grafana"]) },
      { ...settings, verifyEvery: 3_600_000 },
      { ...provider, holdMassWithdrawal: false },
      answer(true),
    )
    expect(b.said.map((x) => x.text)).toEqual([
      "letta: no longer in /run/mesh/contributions/postgres.json; withdrawing it from the backend",
      "letta: remove failed, will retry: refused for ***",
    ])
    expect(b.state.memory.consumers.get("letta")!.applied).toBeDefined()
    const c = runPass(
      b.state,
      { fact: "pass", at: t0 + 10_000, document: given(["grafana"]) },
      { ...settings, verifyEvery: 3_600_000 },
      provider,
      answer(false),
    )
    expect(c.said.map((x) => x.text)).toEqual([
      "letta: no longer in /run/mesh/contributions/postgres.json; withdrawing it from the backend",
    ])
    expect(c.state.memory.consumers.get("letta")!.applied).toBeUndefined()
  })
})

describe("the failure standing's words (ADR 0224)", () => {
  // a consumer as a process that just started remembers it
  const consumer = freshConsumer
  const failure = {
    node: "node-letta",
    class: "unreachable",
    text: "dial tcp: refused ***",
    passwordForms: ["pw-123456"],
  }
  it("is quiet until failingAfter, says FAILING once, announces again every sayAgainEvery, and recovers with the run's figures", () => {
    let c = consumer
    const out: Array<[number, ReturnType<typeof failed>[1]]> = []
    for (const at of [0, 299_999, 300_000, 300_001, 1_199_999, 1_200_000]) {
      const [next, words] = failed(c, "letta", failure, t0 + at, settings, provider)
      c = next
      out.push([at, words])
    }
    expect(out.filter(([, w]) => w !== silence).map(([at]) => at)).toEqual([300_000, 1_200_000])
    const first = out[2]![1]
    expect(first.said).toEqual([
      {
        at: t0 + 300_000,
        text: "letta: FAILING for 5m0s (3 attempts, unreachable): dial tcp: refused ***. Announced as provisioner.failing; `status` names it until it succeeds (novox/hq ADR 0224)",
      },
    ])
    expect(first.announced).toEqual([
      {
        at: t0 + 300_000,
        event: EventFailing,
        body: {
          attempts: 3,
          class: "unreachable",
          consumer: "letta",
          error: "dial tcp: refused ***",
          node: "node-letta",
          provider: "postgres",
          "provider-node": "hq-1",
          since: "2026-10-05T00:00:00Z",
        },
      },
    ])
    // an error too long for a status line is clipped, and withheld if the clip leaves a password's form in it
    const long = failed(
      consumer,
      "letta",
      { ...failure, text: `pw-123456 ${"e".repeat(300)}` },
      t0,
      { ...settings, failingAfter: 0 },
      provider,
    )[1]
    expect(long.announced[0]!.body).toMatchObject({
      error: "(error text withheld: it spelled the consumer's password)",
    })
    const clipped = failed(
      consumer,
      "letta",
      { ...failure, text: "e".repeat(301) },
      t0,
      { ...settings, failingAfter: 0 },
      provider,
    )[1]
    expect(clipped.announced[0]!.body).toMatchObject({ error: `${"e".repeat(300)}…` })
    expect(out[5]![1].said).toEqual([]) // said once; announced again
    expect(out[5]![1].announced.map((a) => a.body.attempts)).toEqual([6])
    const [after, words] = succeeded(c, "letta", t0 + 1_230_000, provider)
    expect(after.trouble).toBeUndefined()
    expect(words).toEqual({
      said: [{ at: t0 + 1_230_000, text: "letta: recovered after 20m30s and 6 failed attempt(s)" }],
      announced: [
        {
          at: t0 + 1_230_000,
          event: EventRecovered,
          body: {
            attempts: 6,
            consumer: "letta",
            node: "node-letta",
            provider: "postgres",
            "provider-node": "hq-1",
            since: "2026-10-05T00:00:00Z",
          },
        },
      ],
    })
    // The body of a recovery names why only when there is one: a reader of the bus sees no empty field.
    expect(Object.keys(words.announced[0]!.body).sort()).toEqual([
      "attempts",
      "consumer",
      "node",
      "provider",
      "provider-node",
      "since",
    ])
    // Recovered once: the next success says nothing, not a first-success.
    expect(after.cleared).toBe(true)
    expect(succeeded(after, "letta", t0 + 1_240_000, provider)[1]).toEqual(silence)
    // withdrawn: announced with why, said nothing
    expect(recovered(c, "letta", "withdrawn", t0, provider)[1]).toMatchObject({
      said: [],
      announced: [{ body: { why: "withdrawn", attempts: 6 } }],
    })
  })

  it("the first success since the process started is announced first-success once; a run never announced takes nothing back", () => {
    const [c1, w1] = succeeded(consumer, "letta", t0, provider)
    expect(w1).toEqual({
      said: [],
      announced: [
        {
          at: t0,
          event: EventRecovered,
          body: { consumer: "letta", provider: "postgres", "provider-node": "hq-1", why: "first-success" },
        },
      ],
    })
    expect(c1.cleared).toBe(true)
    expect(succeeded(c1, "letta", t0 + 1, provider)[1]).toEqual(silence)
    const [quietRun] = failed(c1, "letta", failure, t0 + 2, settings, provider)
    expect(quietRun.trouble).toMatchObject({
      attempts: 1,
      since: t0 + 2,
      saidAt: undefined,
      class: "unreachable",
      node: "node-letta",
    })
    const [ended, w] = succeeded(quietRun, "letta", t0 + 3, provider)
    expect([ended.trouble, w]).toEqual([undefined, silence])
    expect(recovered(consumer, "letta", undefined, t0, provider)).toEqual([consumer, silence])
  })
})
