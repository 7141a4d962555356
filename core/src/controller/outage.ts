// The store or the bus going away (issue 14): nothing outside stops the controller. A follower's
// transaction the store fails keeps nothing, and its messages come again (they are not
// acknowledged); a gate tick whose plans cannot be read judges nothing and waits. Each worker says
// an outage once, when it begins, retries under one capped policy, and says when it answers again:
// never a line per retry. Said as a program so a recorded outage replays to the same words.
import { type Program, programsOf } from "../program.ts"

/** It asks nothing: it says. */
export const nothingAsked = {}
const { say } = programsOf(nothingAsked)

/** What a worker says when the store fails it: once, at the first failure of an outage. */
export function* storeFailed(
  during: string,
  messages: number,
  why: string,
): Program<typeof nothingAsked, "come-again"> {
  if (during === "tick") yield* say(`[gate] the store cannot be read: ${why}; no plan is judged until it answers`)
  else
    yield* say(
      `[controller] the store cannot be read: ${why}; ${messages} ${during} left to come again, trying until it answers`,
    )
  return "come-again"
}

/** A worker's outage as it knows it: what went away, if anything. */
export interface Outage {
  readonly down: string | undefined
}

export const noOutage: Outage = { down: undefined }

/** A worker's outage after a failure or a success is heard, and what is said of it. */
export type OutageHeard = { readonly outage: Outage; readonly said: ReadonlyArray<string> }

/** A failure heard: said only when it begins an outage (not at every retry). */
export const outageHeard = (o: Outage, worker: string, what: string, why: string): OutageHeard =>
  o.down === undefined
    ? { outage: { down: what }, said: [`[${worker}] ${why}; trying again until it answers`] }
    : { outage: o, said: [] }

/** A success heard: said only when it ends an outage. */
export const outageOver = (o: Outage, worker: string): OutageHeard =>
  o.down === undefined
    ? { outage: o, said: [] }
    : { outage: noOutage, said: [`[${worker}] the ${o.down} answers again; going on`] }
