// The provisioner's catalogue (core/src/provisioner/questions.ts, issue 25): every question a pass
// asks and every answer a day feeds it are what the catalogue's Schemas say, so the one driver and
// the recorder can trust them; an announcement is an act the log never records; a what-if replay
// answers a question the day never asked with the last answer heard to it, at the time asked, and
// a success when none was.
import fc from "fast-check"
import * as Schema from "effect/Schema"
import { describe, expect, it } from "vitest"
import { runPure } from "@mesh-core/core/program"
import { type AnswerFact, defaultSettings } from "@mesh-core/core/provisioner/model"
import { initialState, type PassFact, reconcile } from "@mesh-core/core/provisioner/pass"
import {
  type Call,
  factOf,
  inferredAnswer,
  provisionerQuestions,
  type Request,
} from "@mesh-core/core/provisioner/questions"
import { answerFor, day, documentText, live, provider } from "../support/days.ts"

const pw = { letta: "pw-letta-1", grafana: "pw-grafana-2", outline: "pw-outline-3", chat: "pw-chat-4" }

describe("the provisioner's catalogue", () => {
  it("every question a pass asks, and every answer a day gives it, is what its entry's Schemas say", () => {
    fc.assert(
      fc.property(day, (scripts) => {
        const r = live(scripts, { ...defaultSettings, failingAfter: 0 }, pw)
        for (const { request } of r.requests) {
          const e = provisionerQuestions[request.q]
          expect(Schema.is(e.question)(request)).toBe(true)
        }
        for (const f of r.facts) {
          if (f.fact === "pass") continue
          expect(Schema.is(provisionerQuestions[f.fact].answer)(f)).toBe(true)
          expect(factOf(f)).toBe(f)
        }
        for (const announcement of r.announced) {
          expect(Schema.is(provisionerQuestions.announce.question)({ q: "announce", announcement })).toBe(true)
        }
      }),
      { numRuns: 60 },
    )
  })

  it("an announcement is an act and never a fact of the log; create and remove are acts, secret and holds reads", () => {
    expect(Object.fromEntries(Object.entries(provisionerQuestions).map(([k, e]) => [k, e.act]))).toEqual({
      secret: false,
      holds: false,
      create: true,
      remove: true,
      announce: true,
    })
    expect(factOf(undefined)).toBeUndefined()
    expect(factOf({ at: 0, event: "provisioner.recovered", body: {} })).toBeUndefined()
  })

  it("a pass run with runPure asks the catalogue's questions, says its words and announces as acts", () => {
    const doc = (documentText({ kind: "given", consumers: ["letta"], version: 0 }) as { text: string }).text
    const at = Date.parse("2026-10-05T00:00:00Z")
    const pass: PassFact = { fact: "pass", at, document: { read: "ok", text: doc } }
    const script = {
      gap: 0,
      document: { kind: "given" as const, consumers: ["letta"], version: 0 },
      secrets: {},
      outcomes: { letta: "fail" as const },
      errorStyle: 0,
    }
    const order: Array<string> = []
    const ran = runPure(
      reconcile(initialState, pass, { ...defaultSettings, failingAfter: 0 }, provider),
      (q) => (q.q === "announce" ? undefined : answerFor(q, script, pw, at)),
      (e) => order.push("said" in e ? "say" : e.exchange.question.q),
    )
    expect(order).toEqual(["secret", "create", "say", "say", "announce"])
    expect(ran.said).toEqual([
      expect.stringMatching(/^\[provisioner:postgres\] letta: create failed, will retry: /),
      expect.stringMatching(/^\[provisioner:postgres\] letta: FAILING for 0s \(1 attempts, /),
    ])
    expect(ran.result.memory.consumers.get("letta")!.trouble?.attempts).toBe(1)
  })
})

describe("what a what-if replay answers (each entry's whatIf)", () => {
  const provision = { as: "letta", password: "p", values: {}, derived: {}, at: "hq-1", consumer: "hq-1" }
  const questions: ReadonlyArray<Request> = [
    { q: "secret", as: "letta", path: "/run/secrets/letta" },
    { q: "holds", as: "letta", provision },
    { q: "create", as: "letta", provision },
    { q: "remove", as: "letta", derived: {} },
  ]

  it("nothing heard: a success, at the time asked", () => {
    expect(questions.map((q) => inferredAnswer(q, { at: 7, heard: new Map() }))).toEqual([
      { fact: "secret", at: 7, as: "letta", read: "ok", password: "fingerprint:(not in the recording)" },
      { fact: "holds", at: 7, as: "letta", outcome: "held" },
      { fact: "create", at: 7, as: "letta", outcome: "ok" },
      { fact: "remove", at: 7, as: "letta", outcome: "ok" },
    ])
  })

  it("the last answer heard to the same call for the same consumer, at the time asked; another consumer's is not it", () => {
    const last: ReadonlyArray<AnswerFact> = [
      { fact: "secret", at: 1, as: "letta", read: "failed", error: "permission denied" },
      { fact: "holds", at: 1, as: "letta", outcome: "error", error: "busy", class: undefined, timedOut: true },
      { fact: "create", at: 1, as: "letta", outcome: "error", error: "refused", class: "credentials-rejected" },
      { fact: "remove", at: 1, as: "letta", outcome: "error", error: "refused" },
    ]
    const heard = new Map<Call, Map<string, AnswerFact>>(
      last.map((a) => [
        a.fact,
        new Map([
          [a.as, a],
          ["grafana", { ...a, as: "grafana" }],
        ]),
      ]),
    )
    expect(questions.map((q) => inferredAnswer(q, { at: 9, heard }))).toEqual(last.map((a) => ({ ...a, at: 9 })))
  })
})
