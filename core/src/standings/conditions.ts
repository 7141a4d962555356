// A failing standing is a condition (seed 004: the standings watcher raises into the conditions keeper;
// issue 28), read from the standing as the store keeps it: `status` and `conditions` list it, and the
// gate reads it among the open conditions (seed 003's judgeHealth, issue 40), so a provider that starts
// failing its consumers after a send holds that send's gate on the provider's machine.
import { rfc3339 } from "../duration.ts"
import { heldStanding } from "../provisioner/contributions.ts"
import type { Kept } from "./standings.ts"

/** The kind of a failing standing's condition, and who raises it. */
export const failingStandingKind = "failing-standing"
export const standingsSource = "standings"

/** A failing standing's key: the standing's own (provider, its machine, the consumer), as a condition names it. */
export const standingConditionKey = (f: Kept): string =>
  isHeldWithdrawal(f)
    ? `withdrawal.${f.provider}.${f.providerNode}.held`
    : `standing.${f.provider}.${f.providerNode}.${f.consumer}${f.consumerNode === undefined ? "" : `.${f.consumerNode}`}.failing`

/** Raised when its failing began, or when it was said when the word gave no start. */
export const standingRaised = (f: Kept): number => {
  const since = f.since === undefined ? Number.NaN : Date.parse(f.since)
  return Number.isFinite(since) ? since : f.at
}

/** A provider holding a mass withdrawal until a person acts announces it as a standing of its own (issue 40). */
const isHeldWithdrawal = (f: Kept): boolean => f.class === heldStanding && f.consumer === heldStanding

/** What a failing standing's condition says, in the words `status` says of it. */
export const standingSummary = (f: Kept): string =>
  isHeldWithdrawal(f)
    ? `${f.provider} on ${f.providerNode} holds a mass withdrawal until a person acts, since ${f.since}: ${f.error}`
    : `${f.provider} on ${f.providerNode} is failing ${f.consumer}${f.consumerNode ? ` on ${f.consumerNode}` : ""}: ` +
      `${f.class} since ${f.since}, ${f.attempts} attempts (said ${rfc3339(f.at)}); last error: ${f.error}`

/**
 * Each failing standing as the gate reads a condition: about the provider's machine, its subject naming
 * the provider and the consumer, so it is evidence against a build of either judged there (seed 003:
 * "naming the module on that machine"). One failing since before the send is not (its raising is
 * its failing's start, which a word said again does not move).
 */
export const standingsAsConditions = (kept: ReadonlyArray<Kept>) =>
  kept
    .filter((f) => f.state === "failing")
    .map((f) => ({
      key: standingConditionKey(f),
      source: standingsSource,
      raised: standingRaised(f),
      scope: "module",
      id: `${f.provider}.${f.consumer}`,
      machine: f.providerNode,
      also: [] as ReadonlyArray<string>,
      kind: failingStandingKind,
      severity: "urgent",
      summary: standingSummary(f),
    }))
