// A pass and what it is answered (seed 000's Reconcile): an answer to another question is refused
// naming both, a password rotated under the same contribution is applied again, a secret readable
// again starts the race count afresh, and a re-apply whose create fails does not advance the brake.
import { describe, expect, it } from "vitest"
import type { AnswerFact, Settings } from "@mesh-core/core/provisioner/model"
import { answers, type Request } from "@mesh-core/core/provisioner/questions"
import {
  drivePass,
  initialState,
  type PassFact,
  type ProvisionerState,
  reconcile,
} from "@mesh-core/core/provisioner/pass"
import { runPass } from "../support/run-pass.ts"
import { documentText, provider } from "../support/days.ts"

const settings: Settings = {
  every: 5_000,
  verifyEvery: 60_000,
  holdsTimeout: 30_000,
  failingAfter: 300_000,
  sayAgainEvery: 900_000,
}
const t0 = Date.parse("2026-10-05T00:00:00Z")
const doc = (documentText({ kind: "given", consumers: ["letta"], version: 0 }) as { text: string }).text
const pass = (at: number): PassFact => ({ fact: "pass", at, document: { read: "ok", text: doc } })

interface Script {
  readonly password?: string
  readonly secretFails?: boolean
  readonly holds?: "held" | "not-held"
  readonly createFails?: boolean
}

/** Answers a pass as the script says, and keeps what it was asked. */
const answering =
  (script: Script, asked: Array<Request>, at: number) =>
  (q: Request): AnswerFact => {
    asked.push(q)
    if (q.q === "secret") {
      return script.secretFails === true
        ? { fact: "secret", at, as: q.as, read: "failed", error: "permission denied" }
        : { fact: "secret", at, as: q.as, read: "ok", password: `${script.password ?? "pw-123456"}\n` }
    }
    if (q.q === "holds") return { fact: "holds", at, as: q.as, outcome: script.holds ?? "held" }
    if (q.q === "create") {
      return script.createFails === true
        ? { fact: "create", at, as: q.as, outcome: "error", error: "refused", class: undefined }
        : { fact: "create", at, as: q.as, outcome: "ok" }
    }
    return { fact: "remove", at, as: q.as, outcome: "ok" }
  }

describe("what a pass is answered", () => {
  it("an answer belongs to the question of its own call and consumer", () => {
    const secret: Request = { q: "secret", as: "letta", path: "/run/secrets/letta" }
    expect(answers({ fact: "secret", at: t0, as: "letta", read: "ok", password: "x" }, secret)).toBe(true)
    expect(answers({ fact: "secret", at: t0, as: "grafana", read: "ok", password: "x" }, secret)).toBe(false)
    expect(answers({ fact: "holds", at: t0, as: "letta", outcome: "held" }, secret)).toBe(false)
  })

  it("a pass sent nothing, or another question's answer, stops naming what it asked and what it was given", () => {
    const cases: ReadonlyArray<[AnswerFact | undefined, string]> = [
      [undefined, "the pass asked secret for letta and was answered nothing"],
      [
        { fact: "holds", at: t0, as: "letta", outcome: "held" },
        "the pass asked secret for letta and was answered holds for letta",
      ],
      [
        { fact: "secret", at: t0, as: "grafana", read: "ok", password: "x" },
        "the pass asked secret for letta and was answered secret for grafana",
      ],
    ]
    for (const [answer, words] of cases) {
      const run = reconcile(initialState, pass(t0), settings, provider)
      expect(run.next().value).toEqual({ q: "secret", as: "letta", path: "/run/secrets/letta" })
      expect(() => run.next(answer)).toThrow(words)
    }
  })
})

describe("a consumer's work between passes", () => {
  it("a document that cannot be used is said once, however many passes read the same text; nothing is asked meanwhile", () => {
    const asked: Array<Request> = []
    const notJson: PassFact = { fact: "pass", at: t0, document: { read: "ok", text: "{not json" } }
    const first = runPass(initialState, notJson, settings, provider, answering({}, asked, t0))
    expect(first.said.map((s) => s.text)).toEqual([
      expect.stringMatching(
        /^contributions file is not JSON \(\/run\/mesh\/contributions\/postgres\.json\): .*; nothing applied or removed until it can be read$/,
      ),
    ])
    const second = runPass(
      first.state,
      { ...notJson, at: t0 + 5_000 },
      settings,
      provider,
      answering({}, asked, t0 + 5_000),
    )
    expect(second.said).toEqual([])
    expect(asked).toEqual([])
  })

  it("a password rotated under the same contribution is created again, with the new password", () => {
    const asked: Array<Request> = []
    let state: ProvisionerState = runPass(
      initialState,
      pass(t0),
      settings,
      provider,
      answering({ password: "first-pass" }, asked, t0),
    ).state
    state = runPass(
      state,
      pass(t0 + 5_000),
      settings,
      provider,
      answering({ password: "first-pass" }, asked, t0 + 5_000),
    ).state
    runPass(state, pass(t0 + 10_000), settings, provider, answering({ password: "second-pw" }, asked, t0 + 10_000))
    const creates = asked.flatMap((q) => (q.q === "create" ? [q.provision.password] : []))
    expect(creates).toEqual(["first-pass", "second-pw"])
  })

  it("a secret readable again starts the race afresh: the next unreadable pass is the first of twelve again", () => {
    const asked: Array<Request> = []
    // Read once first, so the secret read again afterwards is one the pass has already worked out.
    let state = runPass(initialState, pass(t0), settings, provider, answering({}, asked, t0)).state
    for (let n = 1; n <= 13; n++)
      state = runPass(
        state,
        pass(t0 + n * 5_000),
        settings,
        provider,
        answering({ secretFails: true }, asked, t0 + n * 5_000),
      ).state
    expect(state.memory.consumers.get("letta")!.waiting).toBe(13)
    state = runPass(state, pass(t0 + 14 * 5_000), settings, provider, answering({}, asked, t0 + 14 * 5_000)).state
    expect(state.memory.consumers.get("letta")!.waiting).toBe(0)
    const again = runPass(
      state,
      pass(t0 + 15 * 5_000),
      settings,
      provider,
      answering({ secretFails: true }, asked, t0 + 15 * 5_000),
    )
    expect(again.said.map((s) => s.text)).toEqual([
      "letta: secret not readable yet (/run/secrets/letta): permission denied",
    ])
  })

  it("a re-apply whose create fails leaves the brake as it was, to be checked again at the next verification", () => {
    const asked: Array<Request> = []
    let state = runPass(initialState, pass(t0), settings, provider, answering({}, asked, t0)).state
    state = runPass(
      state,
      pass(t0 + 60_000),
      settings,
      provider,
      answering({ holds: "not-held" }, asked, t0 + 60_000),
    ).state
    expect(state.memory.consumers.get("letta")!.lost).toEqual({ times: 1, nextAt: t0 + 120_000 })
    // Past the brake: not held again, and this time the create fails.
    const failed = runPass(
      state,
      pass(t0 + 120_000),
      settings,
      provider,
      answering({ holds: "not-held", createFails: true }, asked, t0 + 120_000),
    )
    expect(failed.state.memory.consumers.get("letta")!.lost).toEqual({ times: 1, nextAt: undefined })
    expect(failed.said.map((s) => s.text)).toEqual([
      "letta: still not held after being applied again (2 times in a row) — create does not produce what holds checks; applying again",
      "letta: create failed, will retry: refused",
    ])
  })
})

describe("what a pass remembers of a consumer (seed 000)", () => {
  const docOf = (consumers: Array<string>) =>
    (documentText({ kind: "given", consumers, version: 0 }) as { text: string }).text
  const passOf = (at: number, consumers = ["letta"]): PassFact => ({
    fact: "pass",
    at,
    document: { read: "ok", text: docOf(consumers) },
  })
  type Reply = Partial<Record<Request["q"], (at: number) => AnswerFact>>
  /** Answers each consumer as its own script says; anything unscripted succeeds. */
  const per =
    (scripts: Record<string, Reply>, at: number, asked: Array<string>) =>
    (q: Request): AnswerFact => {
      asked.push(`${q.q} ${q.as}`)
      const own = scripts[q.as]?.[q.q]
      if (own !== undefined) return own(at)
      return answering({}, [], at)(q)
    }
  const heldErr =
    (timedOut: boolean) =>
    (at: number): AnswerFact => ({
      fact: "holds",
      at,
      as: "letta",
      outcome: "error",
      error: "backend busy",
      class: undefined,
      timedOut,
    })
  const createErr =
    (error: string) =>
    (at: number): AnswerFact => ({ fact: "create", at, as: "letta", outcome: "error", error, class: undefined })
  const notHeld = (at: number): AnswerFact => ({ fact: "holds", at, as: "letta", outcome: "not-held" })
  const fast: Settings = { ...settings, verifyEvery: 10_000, failingAfter: 0 }

  it("words said before a question reach the journal before the question is asked", () => {
    const events: Array<string> = []
    drivePass(initialState, passOf(t0, ["letta", "grafana"]), settings, provider, {
      said: (s) => void events.push(`said ${s.text}`),
      answer: (q) => {
        events.push(`ask ${q.q} ${q.as}`)
        return q.as === "letta" && q.q === "secret"
          ? { fact: "secret", at: t0, as: "letta", read: "failed", error: "permission denied" }
          : answering({}, [], t0)(q)
      },
    })
    expect(events.slice(0, 3)).toEqual([
      "ask secret letta",
      "said letta: secret not readable yet (/run/secrets/letta): permission denied",
      "ask secret grafana",
    ])
  })

  it("the brake is kept: a verification before the next check's time asks nothing of the backend", () => {
    const asked: Array<string> = []
    let state = runPass(initialState, passOf(t0), fast, provider, per({}, t0, asked)).state
    state = runPass(
      state,
      passOf(t0 + 10_000),
      fast,
      provider,
      per({ letta: { holds: notHeld } }, t0 + 10_000, asked),
    ).state
    state = runPass(
      state,
      passOf(t0 + 20_000),
      fast,
      provider,
      per({ letta: { holds: notHeld } }, t0 + 20_000, asked),
    ).state
    expect(state.memory.consumers.get("letta")!.lost).toEqual({ times: 2, nextAt: t0 + 40_000 })
    asked.length = 0
    runPass(state, passOf(t0 + 30_000), fast, provider, per({}, t0 + 30_000, asked))
    expect(asked).toEqual(["secret letta"])
  })

  it("a Holds that errs without timing out does not stop the next consumer's check; held again clears the run and the brake", () => {
    const asked: Array<string> = []
    const both = ["letta", "grafana"]
    let state = runPass(initialState, passOf(t0, both), fast, provider, per({}, t0, asked)).state
    state = runPass(
      state,
      passOf(t0 + 10_000, both),
      fast,
      provider,
      per({ letta: { holds: notHeld } }, t0 + 10_000, asked),
    ).state
    asked.length = 0
    const busy = runPass(
      state,
      passOf(t0 + 20_000, both),
      fast,
      provider,
      per({ letta: { holds: heldErr(false) } }, t0 + 20_000, asked),
    )
    expect(asked).toEqual(["secret letta", "holds letta", "secret grafana", "holds grafana"])
    expect(busy.announced.map((a) => [a.event, a.body.consumer])).toEqual([["provisioner.failing", "letta"]])
    const held = runPass(busy.state, passOf(t0 + 30_000, both), fast, provider, per({}, t0 + 30_000, asked))
    expect(held.announced.map((a) => [a.event, a.body.consumer])).toEqual([["provisioner.recovered", "letta"]])
    expect(held.state.memory.consumers.get("letta")!.lost).toBeUndefined()
    expect(held.state.memory.consumers.get("letta")!.trouble).toBeUndefined()
  })

  it("a create failing is said when its text changes and again after a success; it leaves no brake when nothing was lost", () => {
    const said = (r: { said: ReadonlyArray<{ text: string }> }) => r.said.map((s) => s.text)
    const a = runPass(
      initialState,
      passOf(t0),
      settings,
      provider,
      per({ letta: { create: createErr("refused A") } }, t0, []),
    )
    expect(a.state.memory.consumers.get("letta")!.lost).toBeUndefined()
    const b = runPass(
      a.state,
      passOf(t0 + 5_000),
      settings,
      provider,
      per({ letta: { create: createErr("refused B") } }, t0 + 5_000, []),
    )
    expect(said(b)).toEqual(["letta: create failed, will retry: refused B"])
    const ok = runPass(b.state, passOf(t0 + 10_000), settings, provider, per({}, t0 + 10_000, []))
    // The count is of the failure as it last read: a changed text began it again.
    expect(said(ok)).toEqual(["letta: created, after 1 failed attempt(s)"])
    const c = runPass(
      ok.state,
      passOf(t0 + 15_000),
      { ...settings, verifyEvery: 5_000 },
      provider,
      per({ letta: { holds: notHeld, create: createErr("refused B") } }, t0 + 15_000, []),
    )
    expect(said(c)).toEqual([
      "letta: the backend no longer holds it; applying again",
      "letta: create failed, will retry: refused B",
    ])
  })

  it("a consumer applied again under a new password after a loss starts with no brake", () => {
    let state = runPass(initialState, passOf(t0), fast, provider, per({}, t0, [])).state
    state = runPass(
      state,
      passOf(t0 + 10_000),
      fast,
      provider,
      per({ letta: { holds: notHeld } }, t0 + 10_000, []),
    ).state
    expect(state.memory.consumers.get("letta")!.lost).toBeDefined()
    const rotated = runPass(
      state,
      passOf(t0 + 15_000),
      fast,
      provider,
      answering({ password: "rotated-pw" }, [], t0 + 15_000),
    )
    expect(rotated.state.memory.consumers.get("letta")!.lost).toBeUndefined()
  })

  it("a consumer withdrawn while its create was failing forgets the failure: asked for again, its first failure is said", () => {
    const a = runPass(
      initialState,
      passOf(t0),
      settings,
      provider,
      per({ letta: { create: createErr("refused") } }, t0, []),
    )
    const gone = runPass(
      a.state,
      passOf(t0 + 5_000, []),
      settings,
      { ...provider, holdMassWithdrawal: false },
      per({}, t0 + 5_000, []),
    )
    expect(gone.state.memory.consumers.get("letta")!.createFailure).toBeUndefined()
    const back = runPass(
      gone.state,
      passOf(t0 + 10_000),
      settings,
      provider,
      per({ letta: { create: createErr("refused") } }, t0 + 10_000, []),
    )
    expect(back.said.map((s) => s.text)).toEqual(["letta: create failed, will retry: refused"])
  })
})
