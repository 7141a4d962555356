// The failure standing (novox/hq ADR 0224). A consumer whose create, check or secret has failed
// without one success in between for FailingAfter is announced as provisioner.failing, and again
// every SayAgainEvery while it lasts; the first success after that is provisioner.recovered.
// On 2026-10-05 the identity provider failed every consumer 31,000 times in a day and said so only
// in its journal (novox/hq issue 179): these transitions are what makes it say so on the bus.
import { formatDuration, rfc3339, roundToSecond } from "../duration.ts"
import { clip } from "./classes.ts"
import {
  type Announcement,
  type ConsumerMemory,
  EventFailing,
  EventRecovered,
  type Provider,
  type RecoveredBody,
  type Said,
  type Settings,
  type Standing,
} from "./model.ts"

export interface Words {
  readonly said: ReadonlyArray<Said>
  readonly announced: ReadonlyArray<Announcement>
}

export const silence: Words = { said: [], announced: [] }

/** A consumer's memory after a step, and what the step says. */
type Step = [ConsumerMemory, Words]

/** Who says a word on the bus: the provider and its machine, as every body names them. */
const from = (provider: Provider) => ({ provider: provider.resource, "provider-node": provider.node })

/** A failure as a run keeps it (its text already scrubbed of the password), and the password's forms. */
export type Failure = Pick<Standing, "node" | "class" | "text"> & { readonly passwordForms: ReadonlyArray<string> }

/** Counts one more failure in a consumer's run; announces the run once it has lasted FailingAfter. */
export const failed = (
  consumer: ConsumerMemory,
  as: string,
  failure: Failure,
  now: number,
  settings: Settings,
  provider: Provider,
): Step => {
  const was = consumer.trouble
  const attempts = (was?.attempts ?? 0) + 1
  const since = was?.since ?? now
  const run = { node: failure.node, class: failure.class, text: failure.text, since, attempts, saidAt: was?.saidAt }
  const quiet: Step = [{ ...consumer, trouble: run }, silence]
  if (now - since < settings.failingAfter) return quiet
  if (run.saidAt !== undefined && now - run.saidAt < settings.sayAgainEvery) return quiet
  const text =
    `${as}: FAILING for ${formatDuration(roundToSecond(now - since))} (${attempts} attempts, ${failure.class}): ` +
    `${failure.text}. Announced as ${EventFailing}; \`status\` names it until it succeeds (novox/hq ADR 0224)`
  // Said in the journal the first time only; announced on the bus every time.
  const said: ReadonlyArray<Said> = run.saidAt === undefined ? [{ at: now, text }] : []
  const announced: Announcement = {
    at: now,
    event: EventFailing,
    body: {
      attempts,
      class: failure.class,
      consumer: as,
      error: clip(failure.text, failure.passwordForms),
      node: failure.node,
      ...from(provider),
      since: rfc3339(since),
    },
  }
  return [
    { ...consumer, trouble: { ...run, saidAt: now } },
    { said, announced: [announced] },
  ]
}

/**
 * Ends a consumer's run of failures; one that was announced is announced recovered.
 *
 * **And the first success for a consumer since this process started is announced too**, failing or
 * not: a provider that announced a failure and was restarted has forgotten it, and without this the
 * controller would name the consumer failing for ever after it recovered unheard.
 *
 * The seed announces first-success only when no run is under way, so a restarted provider whose
 * consumer failed a few times (too few to announce) before its first success said nothing, and the
 * standing it had announced before the restart stood for ever. Here the first success always says
 * so: as a plain recovery when this process announced the run, as first-success otherwise.
 */
export const succeeded = (consumer: ConsumerMemory, as: string, now: number, provider: Provider): Step => {
  if (!consumer.cleared && consumer.trouble?.saidAt === undefined) {
    const body: RecoveredBody = { consumer: as, ...from(provider), why: "first-success" }
    return [
      { ...consumer, cleared: true, trouble: undefined },
      { said: [], announced: [{ at: now, event: EventRecovered, body }] },
    ]
  }
  return recovered({ ...consumer, cleared: true }, as, undefined, now, provider)
}

/** Closes a run; a run never announced takes nothing back. */
export const recovered = (
  consumer: ConsumerMemory,
  as: string,
  why: "withdrawn" | undefined,
  now: number,
  provider: Provider,
): Step => {
  const run = consumer.trouble
  if (run === undefined) return [consumer, silence]
  const after: ConsumerMemory = { ...consumer, trouble: undefined }
  if (run.saidAt === undefined) return [after, silence]
  const text = `${as}: recovered after ${formatDuration(roundToSecond(now - run.since))} and ${run.attempts} failed attempt(s)`
  const said: ReadonlyArray<Said> = why === undefined ? [{ at: now, text }] : []
  const body: RecoveredBody = {
    attempts: run.attempts,
    consumer: as,
    node: run.node,
    ...from(provider),
    since: rfc3339(run.since),
    ...(why === undefined ? {} : { why }),
  }
  return [after, { said, announced: [{ at: now, event: EventRecovered, body }] }]
}
