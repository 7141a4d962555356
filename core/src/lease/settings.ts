// How long the controller lease lasts, how long its holder may go without renewing, and how often
// candidates and the holder look (seed 004; the defaults are client-go's leader election: 15 s, 10 s,
// 2 s). Read from MESH_LEASE_DURATION, MESH_LEASE_RENEW_DEADLINE and MESH_LEASE_RETRY as durations
// ("15s", "500ms"), decoded here so a setting that is no duration, or bounds that cannot hold the
// lease safe, stop serve at start rather than let two holders overlap.
import * as Schema from "effect/Schema"
import { formatDuration, parseDuration } from "../duration.ts"

/** How long the lease lasts, how long its holder may go without renewing, and how often each looks (ms). */
export type LeaseSettings = { readonly duration: number; readonly renewDeadline: number; readonly retry: number }

export const defaultLeaseSettings: LeaseSettings = { duration: 15_000, renewDeadline: 10_000, retry: 2_000 }

/** A duration as the environment spells it. */
export const LeaseDurationText = Schema.String.check(
  Schema.makeFilter((s: string) =>
    (parseDuration(s) ?? 0) > 0 ? undefined : "a duration above zero and at most 596h, such as 15s or 500ms",
  ),
)

/**
 * The settings, or why they cannot keep one holder at a time. The holder stops acting at its renew
 * deadline and a candidate takes over only after the lease's duration without a new revision, so
 * the deadline must be shorter than the duration (client-go asks the same), with room for clocks
 * that run at slightly different rates; and the retry shorter than the deadline, or the holder
 * would not try again before it gives up.
 */
export const leaseSettings = (texts: {
  readonly duration: string
  readonly renewDeadline: string
  readonly retry: string
}): { readonly ok: true; readonly settings: LeaseSettings } | { readonly ok: false; readonly problem: string } => {
  const names = { duration: "DURATION", renewDeadline: "RENEW_DEADLINE", retry: "RETRY" } as const
  const ms = { duration: 0, renewDeadline: 0, retry: 0 }
  for (const k of ["duration", "renewDeadline", "retry"] as const) {
    const d = parseDuration(texts[k])
    if (d === undefined || d <= 0)
      return { ok: false, problem: `MESH_LEASE_${names[k]}: ${texts[k]} is not a duration above zero and at most 596h` }
    ms[k] = d
  }
  const { duration, renewDeadline, retry } = ms
  if (renewDeadline * (1 + maxDrift) >= duration * (1 - maxDrift))
    return {
      ok: false,
      problem: `the renew deadline (${formatDuration(renewDeadline)}) must be well under the lease (${formatDuration(duration)}): at most ${formatDuration(Math.floor((duration * (1 - maxDrift)) / (1 + maxDrift)) - 1)}`,
    }
  if (retry >= renewDeadline)
    return {
      ok: false,
      problem: `the retry (${formatDuration(retry)}) must be shorter than the renew deadline (${formatDuration(renewDeadline)})`,
    }
  return { ok: true, settings: { duration, renewDeadline, retry } }
}

/**
 * How far two machines' clocks may differ in rate while the lease stays safe (5 %): the holder's
 * deadline and a candidate's wait are each measured on one clock, so offsets never matter, rates do.
 */
export const maxDrift = 0.05
