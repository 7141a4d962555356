// Random days for the provisioner core: a few consumers, and for every pass the document's state
// and each call's scripted answer. `live` runs a day through the core as a live shell would and
// keeps every fact and every word, so properties can be stated over whole histories.
import fc from "fast-check"
import type { AnswerFact, Announcement, Fact, Provider, Said, Settings } from "@mesh-core/core/provisioner/model"
import type { Request } from "@mesh-core/core/provisioner/questions"
import { drivePass, initialState, type PassFact, type ProvisionerState } from "@mesh-core/core/provisioner/pass"
import { goPathEscape, goQueryEscape } from "@mesh-core/core/provisioner/scrub"

export const provider: Provider = {
  resource: "postgres",
  receives: "/run/mesh/contributions/postgres.json",
  node: "hq-1",
}

export const consumerNames = ["letta", "grafana", "outline", "chat"] as const

export type DocumentState =
  | { readonly kind: "given"; readonly consumers: ReadonlyArray<string>; readonly version: number }
  | { readonly kind: "unreadable" | "not-json" | "other-requirement" | "no-given" }

export type Outcome = "ok" | "fail" | "timeout" | "not-held"

export interface PassScript {
  readonly gap: number
  readonly document: DocumentState
  readonly secrets: Readonly<Record<string, boolean>>
  readonly outcomes: Readonly<Record<string, Outcome>>
  readonly errorStyle: number
  /** Secret files written without their trailing newline this pass (the password is the same). */
  readonly bare?: Readonly<Record<string, boolean>>
}

const passwordChars = [..."abcXYZ019*%/+ …#?&=@:~-_.", "é"]
const password = fc.string({ unit: fc.constantFrom(...passwordChars), minLength: 8, maxLength: 14 })

const documentState: fc.Arbitrary<DocumentState> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("given" as const),
      consumers: fc.subarray([...consumerNames]),
      version: fc.nat(2),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      { kind: "unreadable" as const },
      { kind: "not-json" as const },
      { kind: "other-requirement" as const },
      { kind: "no-given" as const },
    ),
  },
)

const outcome = fc.constantFrom<Outcome>("ok", "ok", "ok", "fail", "fail", "timeout", "not-held")

export const passScript: fc.Arbitrary<PassScript> = fc.record({
  gap: fc.constantFrom(5_000, 5_000, 5_000, 30_000, 61_000, 400_000, 1_000_000),
  document: documentState,
  secrets: fc.record(
    Object.fromEntries(consumerNames.map((n) => [n, fc.constantFrom(true, true, true, true, false)])),
  ) as fc.Arbitrary<Record<string, boolean>>,
  outcomes: fc.record(Object.fromEntries(consumerNames.map((n) => [n, outcome]))) as fc.Arbitrary<
    Record<string, Outcome>
  >,
  errorStyle: fc.nat(4),
  bare: fc.record(Object.fromEntries(consumerNames.map((n) => [n, fc.boolean()]))) as fc.Arbitrary<
    Record<string, boolean>
  >,
})

export const passwords: fc.Arbitrary<Record<string, string>> = fc.record(
  Object.fromEntries(consumerNames.map((n) => [n, password])),
) as fc.Arbitrary<Record<string, string>>

export const settings: fc.Arbitrary<Settings> = fc.record({
  every: fc.constant(5_000),
  verifyEvery: fc.constantFrom(1_000, 60_000, 300_000),
  holdsTimeout: fc.constant(30_000),
  failingAfter: fc.constantFrom(0, 10_000, 300_000),
  sayAgainEvery: fc.constantFrom(5_000, 900_000),
})

export const documentText = (d: DocumentState): { text: string } | { error: string } => {
  switch (d.kind) {
    case "unreadable":
      return { error: `open ${provider.receives}: permission denied` }
    case "not-json":
      return { text: '{"given": [' }
    case "other-requirement":
      return { text: JSON.stringify({ requirement: "keycloak", given: [] }) }
    case "no-given":
      return { text: JSON.stringify({ requirement: "postgres" }) }
    case "given":
      return {
        text: JSON.stringify({
          requirement: "postgres",
          given: [
            ...d.consumers.map((as) => ({
              as,
              secret: `/run/secrets/${as}`,
              node: `node-${as}`,
              at: `node-${as}`,
              values: { name: as, v: d.version },
            })),
            { as: "", secret: "/run/secrets/none", node: "x" },
          ],
        }),
      }
  }
}

/** An error text that echoes the password in one of the ways backends do. */
const errorText = (style: number, pw: string, timeout = false): string => {
  const base = timeout ? "context deadline exceeded" : 'password authentication failed for user "admin"'
  switch (style) {
    case 0:
      return base
    case 1:
      return `${base} (postgres://admin:${pw}@127.0.0.1:5432/db)`
    case 2:
      return `${base} (postgres://admin:${encodeURIComponent(pw)}@db/x)`
    case 3:
      return `${base}: ${goQueryEscape(pw)} ${goPathEscape(pw)}`
    default:
      return `${base} ${"x".repeat(320)} ${pw}`
  }
}

export interface LiveRecord {
  readonly facts: ReadonlyArray<Fact>
  readonly requests: ReadonlyArray<{ readonly request: Request; readonly passIndex: number }>
  readonly said: ReadonlyArray<Said>
  readonly announced: ReadonlyArray<Announcement>
  /** Index of the pass each request belongs to, and whether that pass's document was usable. */
  readonly passes: ReadonlyArray<{ readonly at: number; readonly usable: boolean; readonly script: PassScript }>
  readonly start: number
  readonly state: ProvisionerState
}

export const start = Date.parse("2026-10-05T00:00:00Z")

export const answerFor = (request: Request, script: PassScript, pw: Record<string, string>, at: number): AnswerFact => {
  const as = request.as
  const o = script.outcomes[as] ?? "ok"
  switch (request.q) {
    case "secret":
      return script.secrets[as] === false
        ? { fact: "secret", at, as, read: "failed", error: `open ${request.path}: permission denied` }
        : { fact: "secret", at, as, read: "ok", password: script.bare?.[as] === true ? pw[as]! : `${pw[as]}\n` }
    case "holds":
      if (o === "fail")
        return {
          fact: "holds",
          at,
          as,
          outcome: "error",
          error: errorText(script.errorStyle, pw[as]!),
          class: undefined,
          timedOut: false,
        }
      if (o === "timeout")
        return {
          fact: "holds",
          at,
          as,
          outcome: "error",
          error: errorText(script.errorStyle, pw[as]!, true),
          class: undefined,
          timedOut: true,
        }
      return { fact: "holds", at, as, outcome: o === "not-held" ? "not-held" : "held" }
    case "create":
      return o === "fail" || o === "timeout"
        ? {
            fact: "create",
            at,
            as,
            outcome: "error",
            error: errorText(script.errorStyle, pw[as]!, o === "timeout"),
            class: o === "timeout" ? "unreachable" : undefined,
          }
        : { fact: "create", at, as, outcome: "ok" }
    case "remove":
      return o === "fail"
        ? { fact: "remove", at, as, outcome: "error", error: errorText(script.errorStyle, pw[as]!) }
        : { fact: "remove", at, as, outcome: "ok" }
  }
}

/** Runs a day through the core, answering each call from the pass's script. */
export const live = (scripts: ReadonlyArray<PassScript>, s: Settings, pw: Record<string, string>): LiveRecord => {
  const facts: Array<Fact> = []
  const requests: Array<{ request: Request; passIndex: number }> = []
  const said: Array<Said> = []
  const announced: Array<Announcement> = []
  const passes: Array<{ at: number; usable: boolean; script: PassScript }> = []
  let state = initialState
  let t = start
  scripts.forEach((script, passIndex) => {
    t += script.gap
    const doc = documentText(script.document)
    const pass: PassFact = {
      fact: "pass",
      at: t,
      document: "text" in doc ? { read: "ok", text: doc.text } : { read: "failed", error: doc.error },
    }
    facts.push(pass)
    passes.push({ at: t, usable: script.document.kind === "given", script })
    let now = t
    state =
      drivePass(state, pass, s, provider, {
        said: (x) => void said.push(x),
        announced: (x) => void announced.push(x),
        answer: (request) => {
          requests.push({ request, passIndex })
          now += 10
          const answer = answerFor(request, script, pw, now)
          facts.push(answer)
          return answer
        },
      }) ?? state
  })
  return { facts, requests, said, announced, passes, start, state }
}

export const day = fc.array(passScript, { minLength: 1, maxLength: 60 })
