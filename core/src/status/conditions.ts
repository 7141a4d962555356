// One way to see what is wrong (seed 004: the standings watcher raises into the conditions keeper;
// issue 28): a failing standing is a condition, urgent, listed by `conditions` beside the gate's and
// the health follower's, and read by `status` through the same list. Before, `conditions` did not list
// them, and `status` showed two mechanisms side by side.
//
// A departure kept on purpose (docs/delivery.md): the condition is the standing as the store keeps
// it, read with it, not a row of its own raised and cleared beside it. Two records of one fact can
// disagree (a raise lost, a clear missed); one record read two ways cannot.
import { formatDuration, rfc3339 } from "../duration.ts"
import { heldStanding } from "../provisioner/withdrawal.ts"
import type { Standing, Status } from "../standings/status.ts"

export interface OpenCondition {
  readonly key: string
  /** `urgent` or `warning`; a row kept before severities were is neither. */
  readonly severity?: string | undefined
  /** What kind of wrong: `unhealthy` (a module a machine says is not healthy, raised by DH), `rolled-back`, `failing-standing`, … */
  readonly kind?: string | undefined
  readonly summary: string
  readonly raised: number
  readonly source: string
  readonly resolver?: string | undefined
}

/** The kind of a failing standing's condition, and who raises it. */
export const failingStandingKind = "failing-standing"
const standingsSource = "standings"

/** A failing standing's key: the standing's own (provider, its machine, the consumer), as a condition names it. */
const standingConditionKey = (f: Standing): string =>
  f.class === heldStanding && f.consumer === heldStanding
    ? `withdrawal.${f.provider}.${f.providerNode}.held`
    : `standing.${f.provider}.${f.providerNode}.${f.consumer}${f.consumerNode === undefined ? "" : `.${f.consumerNode}`}.failing`

/** What a failing standing says: a provider failing a consumer, or holding a withdrawal for a person (issue 40). */
export const standingSaid = (f: Standing): string =>
  f.class === heldStanding && f.consumer === heldStanding
    ? `${f.provider} on ${f.providerNode} holds a mass withdrawal until a person acts, since ${f.since}: ${f.error}`
    : `${f.provider} on ${f.providerNode} is failing ${f.consumer}${f.consumerNode ? ` on ${f.consumerNode}` : ""}: ` +
      `${f.class} since ${f.since}, ${f.attempts} attempts (said ${rfc3339(f.at)}); last error: ${f.error}`

/**
 * Each failing standing as a condition: urgent (a provider failing a consumer is the mesh not well),
 * raised when its failing began (or when it was said, when the word gave no start), in the words
 * `status` says of it; a stale one says so, and how a person forgets it when it is over.
 */
const standingConditions = (failing: ReadonlyArray<Standing>): ReadonlyArray<OpenCondition> =>
  failing.map((f) => {
    const since = f.since === undefined ? Number.NaN : Date.parse(f.since)
    const quiet = f.stale
      ? `; STALE: nothing since for ${formatDuration(Math.floor(f.quietMs / 1_000) * 1_000)}, and if it is over: mesh-controller standings forget ${f.provider} ${f.consumer} --node ${f.providerNode}`
      : ""
    return {
      key: standingConditionKey(f),
      severity: "urgent",
      kind: failingStandingKind,
      source: standingsSource,
      raised: Number.isFinite(since) ? since : f.at,
      summary: `${standingSaid(f)}${quiet}`,
    }
  })

/** Everything open, in one list: the failing standings' conditions, then the ones the store keeps. */
export const openConditions = (
  standings: Status | undefined,
  stored: ReadonlyArray<OpenCondition> | undefined,
): ReadonlyArray<OpenCondition> => [...standingConditions(standings?.failing ?? []), ...(stored ?? [])]

/** One open condition as `conditions` lists it. */
export const conditionLine = (c: OpenCondition): string =>
  `${c.key} (${c.severity}${c.resolver ? ", for a person" : ""}) raised ${new Date(c.raised).toISOString()} by ${c.source}: ${c.summary}`
