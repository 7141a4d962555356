// Model-based: random sequences of file states, secret states and adapter outcomes against a
// simple model of what should be applied. Whatever happened, once the document is readable, the
// secrets are readable and the adapter succeeds, the backend holds exactly what the document asks.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { AnswerFact, Settings } from "@mesh-core/core/provisioner/model"
import type { Request } from "@mesh-core/core/provisioner/questions"
import { initialState, type PassFact, type ProvisionerState } from "@mesh-core/core/provisioner/pass"
import { runPass as drive } from "../support/run-pass.ts"
import { consumerNames, type DocumentState, documentText, provider } from "../support/days.ts"

type Adapter = "ok" | "failing" | "timing-out"

interface Model {
  document: DocumentState
  unreadable: Set<string>
  adapter: Adapter
}

interface Real {
  state: ProvisionerState
  now: number
  /** What the backend holds: login → the password it was created with. */
  backend: Map<string, string>
  removes: number
}

const settings: Settings = {
  every: 5_000,
  verifyEvery: 60_000,
  holdsTimeout: 30_000,
  failingAfter: 300_000,
  sayAgainEvery: 900_000,
}
const passwordOf = (as: string) => `pw-${as}-7f3a`

const answer = (r: Real, m: Model, q: Request, at: number): AnswerFact => {
  const as = q.as
  switch (q.q) {
    case "secret":
      return m.unreadable.has(as)
        ? { fact: "secret", at, as, read: "failed", error: "permission denied" }
        : { fact: "secret", at, as, read: "ok", password: passwordOf(as) }
    case "holds":
      if (m.adapter === "timing-out")
        return {
          fact: "holds",
          at,
          as,
          outcome: "error",
          error: "context deadline exceeded",
          class: undefined,
          timedOut: true,
        }
      if (m.adapter === "failing")
        return {
          fact: "holds",
          at,
          as,
          outcome: "error",
          error: "connection refused",
          class: undefined,
          timedOut: false,
        }
      return { fact: "holds", at, as, outcome: r.backend.get(as) === q.provision.password ? "held" : "not-held" }
    case "create":
      if (m.adapter !== "ok")
        return { fact: "create", at, as, outcome: "error", error: "connection refused", class: undefined }
      r.backend.set(as, q.provision.password)
      return { fact: "create", at, as, outcome: "ok" }
    case "remove":
      if (m.adapter !== "ok") return { fact: "remove", at, as, outcome: "error", error: "connection refused" }
      r.backend.delete(as)
      r.removes += 1
      return { fact: "remove", at, as, outcome: "ok" }
  }
}

const runPass = (r: Real, m: Model, gap: number) => {
  r.now += gap
  const doc = documentText(m.document)
  const pass: PassFact = {
    fact: "pass",
    at: r.now,
    document: "text" in doc ? { read: "ok", text: doc.text } : { read: "failed", error: doc.error },
  }
  r.state = drive(r.state, pass, settings, provider, (q) => answer(r, m, q, r.now + 1)).state
}

class SetDocument implements fc.Command<Model, Real> {
  readonly document: DocumentState
  constructor(document: DocumentState) {
    this.document = document
  }
  check = () => true
  run(m: Model) {
    m.document = this.document
  }
  toString = () => `document ${JSON.stringify(this.document)}`
}

class SetSecret implements fc.Command<Model, Real> {
  readonly as: string
  readonly readable: boolean
  constructor(as: string, readable: boolean) {
    this.as = as
    this.readable = readable
  }
  check = () => true
  run(m: Model) {
    if (this.readable) m.unreadable.delete(this.as)
    else m.unreadable.add(this.as)
  }
  toString = () => `secret ${this.as} ${this.readable ? "readable" : "unreadable"}`
}

class SetAdapter implements fc.Command<Model, Real> {
  readonly adapter: Adapter
  constructor(adapter: Adapter) {
    this.adapter = adapter
  }
  check = () => true
  run(m: Model) {
    m.adapter = this.adapter
  }
  toString = () => `adapter ${this.adapter}`
}

class LoseFromBackend implements fc.Command<Model, Real> {
  readonly as: string
  constructor(as: string) {
    this.as = as
  }
  check = () => true
  run(_m: Model, r: Real) {
    r.backend.delete(this.as)
  }
  toString = () => `backend loses ${this.as}`
}

class Pass implements fc.Command<Model, Real> {
  readonly gap: number
  constructor(gap: number) {
    this.gap = gap
  }
  check = () => true
  run(m: Model, r: Real) {
    const before = new Map(r.backend)
    const removesBefore = r.removes
    runPass(r, m, this.gap)
    if (m.document.kind !== "given") {
      // nothing read is not nobody asking: the backend is exactly as it was
      expect(r.removes).toBe(removesBefore)
      expect(r.backend).toEqual(before)
    } else {
      // never anything the document does not ask for is created
      for (const as of r.backend.keys()) if (!before.has(as)) expect(m.document.consumers).toContain(as)
    }
  }
  toString = () => `pass after ${this.gap}ms`
}

const as = fc.constantFrom(...consumerNames)
const documents: fc.Arbitrary<DocumentState> = fc.oneof(
  fc.record({ kind: fc.constant("given" as const), consumers: fc.subarray([...consumerNames]), version: fc.nat(2) }),
  fc.constantFrom<DocumentState>(
    { kind: "unreadable" },
    { kind: "not-json" },
    { kind: "other-requirement" },
    { kind: "no-given" },
  ),
)

const commands = fc.commands(
  [
    documents.map((d) => new SetDocument(d)),
    fc.tuple(as, fc.boolean()).map(([a, b]) => new SetSecret(a, b)),
    fc.constantFrom<Adapter>("ok", "failing", "timing-out").map((a) => new SetAdapter(a)),
    as.map((a) => new LoseFromBackend(a)),
    fc.constantFrom(5_000, 5_000, 61_000, 900_000).map((g) => new Pass(g)),
    fc.constantFrom(5_000, 61_000).map((g) => new Pass(g)),
  ],
  { maxCommands: 80 },
)

describe("provisioner model", () => {
  it("the applied set converges to what the document asks for once the document, the secrets and the adapter are well", () => {
    fc.assert(
      fc.property(commands, fc.subarray([...consumerNames]), (cmds, finalWanted) => {
        const m: Model = {
          document: { kind: "given", consumers: [], version: 0 },
          unreadable: new Set(),
          adapter: "ok",
        }
        const r: Real = { state: initialState, now: Date.parse("2026-10-05T00:00:00Z"), backend: new Map(), removes: 0 }
        fc.modelRun(() => ({ model: m, real: r }), cmds)
        // heal everything; passes an hour apart outlast any brake
        m.document = { kind: "given", consumers: finalWanted, version: 9 }
        m.unreadable.clear()
        m.adapter = "ok"
        for (let i = 0; i < 3; i++) runPass(r, m, 3_600_000)
        expect([...r.backend.keys()].sort()).toEqual([...finalWanted].sort())
        for (const a of finalWanted) expect(r.backend.get(a)).toBe(passwordOf(a))
        const applied = [...r.state.memory.consumers]
          .filter(([, c]) => c.applied !== undefined)
          .map(([a]) => a)
          .sort()
        expect(applied).toEqual([...finalWanted].sort())
      }),
      { numRuns: 200 },
    )
  })
})
