// Drives the provisioner core against a scripted backend and records every fact it is fed, as a
// live provider's --record does. The examples are made this way, not typed by hand, so each one is
// a day the core could really have had.
import type { AnswerFact, Provider, Settings } from "@mesh-core/core/provisioner/model"
import type { Request } from "@mesh-core/core/provisioner/questions"
import { drivePass, initialState, type PassFact } from "@mesh-core/core/provisioner/pass"
import { makeRecorder } from "../shells/src/provisioner/recorder.ts"

export interface World {
  /** The contributions document at time t: its text, or why it could not be read. */
  readonly document: (t: number) => { text: string } | { error: string }
  /** The answer to one of the core's calls at time t. */
  readonly answer: (request: Request, t: number) => AnswerFact
}

export interface Day {
  readonly provider: Provider
  readonly settings: Settings
  readonly start: number
  readonly end: number
  readonly world: World
  /** How long each call takes, so answers come a little after the pass began. */
  readonly callMs: number
}

/** The examples' fingerprint key: fixed, so the shipped logs are what the generator writes. Not a secret. */
const exampleKey = new TextEncoder().encode("mesh-core examples: a key that keeps nothing secret")

export function* drive(day: Day): Generator<string> {
  const recorder = makeRecorder(day.provider, day.settings, new Date(day.start), exampleKey)
  yield recorder.header()
  let state = initialState
  for (let t = day.start; t <= day.end; t += day.settings.every) {
    const doc = day.world.document(t)
    const pass: PassFact = {
      fact: "pass",
      at: t,
      document: "text" in doc ? { read: "ok", text: doc.text } : { read: "failed", error: doc.error },
    }
    yield recorder.line(pass)
    let now = t
    const lines: Array<string> = []
    const answer = (request: Request) => {
      now += day.callMs
      const answer = day.world.answer(request, now)
      lines.push(recorder.line(answer))
      return answer
    }
    state = drivePass(state, pass, day.settings, day.provider, { answer }) ?? state
    yield* lines
  }
}

export const ok = (request: Request, at: number, password: string): AnswerFact => {
  switch (request.q) {
    case "secret":
      return { fact: "secret", at, as: request.as, read: "ok", password }
    case "holds":
      return { fact: "holds", at, as: request.as, outcome: "held" }
    case "create":
      return { fact: "create", at, as: request.as, outcome: "ok" }
    case "remove":
      return { fact: "remove", at, as: request.as, outcome: "ok" }
  }
}

export const documentOf = (resource: string, given: ReadonlyArray<Record<string, unknown>>): string =>
  JSON.stringify({ requirement: resource, given })
