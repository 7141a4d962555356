// One way to see what is wrong (seed 004: the standings watcher raises into the conditions keeper;
// issue 28): a failing standing is a condition, urgent, listed by `conditions` beside the gate's and
// the health follower's, and read by `status` through the same list. Before, `conditions` did not list
// them, and `status` showed two mechanisms side by side.
//
// A departure kept on purpose (docs/delivery.md): the condition is the standing as the store keeps
// it, read with it, not a row of its own raised and cleared beside it. Two records of one fact can
// disagree (a raise lost, a clear missed); one record read two ways cannot. The gate reads the same
// record among its open conditions (standings/conditions.ts, issue 40).
import { formatDuration } from "../duration.ts"
import {
  failingStandingKind,
  standingConditionKey,
  standingRaised,
  standingSummary,
  standingsSource,
} from "../standings/conditions.ts"
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

/**
 * Each failing standing as a condition (standings/conditions.ts): a stale one says so, and how a
 * person forgets it when it is over.
 */
const standingConditions = (failing: ReadonlyArray<Standing>): ReadonlyArray<OpenCondition> =>
  failing.map((f) => {
    const quiet = f.stale
      ? `; STALE: nothing since for ${formatDuration(Math.floor(f.quietMs / 1_000) * 1_000)}, and if it is over: mesh-controller standings forget ${f.provider} ${f.consumer} --node ${f.providerNode}`
      : ""
    return {
      key: standingConditionKey(f),
      severity: "urgent",
      kind: failingStandingKind,
      source: standingsSource,
      raised: standingRaised(f),
      summary: standingSummary(f) + quiet,
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
