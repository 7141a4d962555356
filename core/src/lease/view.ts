// The lease as a reader sees it from outside (`status`, the gate): who holds it, its epoch, since
// when, and whether it was given back or looks expired (issue 13: "`status` names the holder, its
// epoch and since when"). A reader is no candidate: it reads the record once and judges it on its own
// clock, so "expired" here is a word for a person, said with whose clock, never a decision to take
// the lease (only a candidate's wait over one revision decides that, lease.ts).
import { formatDuration, rfc3339 } from "../duration.ts"
import type { LeaseRead, LeaseRecord } from "./record.ts"

/** One read of the lease's key, or why the bucket could not be read. */
export type LeaseSeen = LeaseRead | { readonly unreachable: string }

export type LeaseState =
  | { readonly state: "none" }
  | { readonly state: "held"; readonly record: LeaseRecord; readonly quietMs: number }
  /** Not renewed for longer than its lease, by the reader's clock: its holder is gone, or paused. */
  | { readonly state: "expired"; readonly record: LeaseRecord; readonly quietMs: number }
  | { readonly state: "given-back"; readonly record: LeaseRecord }
  | { readonly state: "unreadable"; readonly why: string }
  | { readonly state: "unreachable"; readonly why: string }

/**
 * The lease's state as of `now` (the reader's clock). Clocks set apart by less than `allowanceMs`
 * are not read as expiry: the holder's times are its own clock's.
 */
export const leaseState = (seen: LeaseSeen, now: number, allowanceMs: number): LeaseState => {
  if ("unreachable" in seen) return { state: "unreachable", why: seen.unreachable }
  if (!seen.found) return { state: "none" }
  if (!("record" in seen)) return { state: "unreadable", why: seen.unreadable }
  const r = seen.record
  if (r.givenBack) return { state: "given-back", record: r }
  const quietMs = Math.max(0, now - r.renewedAt)
  return { state: quietMs > r.durationMs + allowanceMs ? "expired" : "held", record: r, quietMs }
}

/** How far apart two machines' clocks may be before `status` calls a holder's lease expired. */
export const statusClockAllowanceMs = 5_000

const seconds = (ms: number) => formatDuration(Math.floor(ms / 1_000) * 1_000)

/** `status`'s line for the lease. */
export const leaseStatusLine = (s: LeaseState): string => {
  switch (s.state) {
    case "none":
      return "controller lease: no controller has held it yet, so none acts"
    case "unreadable":
      return `controller lease: ${s.why}; candidates wait it out as a holder's`
    case "unreachable":
      return `controller lease: who holds it cannot be read: ${s.why}`
  }
  const r = s.record
  if (s.state === "given-back")
    return (
      `controller lease: given back by ${r.holder} (epoch ${r.epoch}) at ${rfc3339(r.renewedAt)}; ` +
      "no controller acts until a candidate takes it, at once"
    )
  if (s.state === "held")
    return (
      `controller lease: held by ${r.holder}, epoch ${r.epoch}, since ${rfc3339(r.acquiredAt)} (renewed ${seconds(s.quietMs)} ago); ` +
      (r.ready ? "it acts" : `it does not say it is ready${r.why ? `: ${r.why}` : ""}`) +
      (r.notes ?? []).map((n) => `; it says: ${n}`).join("")
    )
  return (
    `controller lease: EXPIRED — held by ${r.holder}, epoch ${r.epoch}, since ${rfc3339(r.acquiredAt)}, not renewed for ${seconds(s.quietMs)} ` +
    `(its lease is ${formatDuration(r.durationMs)}, by this machine's clock): its holder is gone or paused, and no controller acts ` +
    "until a candidate takes it"
  )
}

/** `status --json`'s `lease` object. */
export const leaseStatusJson = (s: LeaseState): Readonly<Record<string, unknown>> => {
  if (!("record" in s)) return "why" in s ? { state: s.state, why: s.why } : { state: s.state }
  const r = s.record
  const whose = { state: s.state, holder: r.holder, epoch: r.epoch }
  if (s.state === "given-back") return { ...whose, givenBackAt: new Date(r.renewedAt).toISOString() }
  return {
    ...whose,
    since: new Date(r.acquiredAt).toISOString(),
    renewedAt: new Date(r.renewedAt).toISOString(),
    quietMs: s.quietMs,
    leaseMs: r.durationMs,
    ready: r.ready,
    ...(r.why === undefined ? {} : { why: r.why }),
  }
}

/**
 * Whom `/readyz` names on a controller that does not hold the lease (`… (H holds it)`): the holder
 * while the lease is held as a reader judges it; nobody when it is free, given back, expired or unread,
 * since naming one then would point a person at a controller that is not acting.
 */
export const heldBy = (s: LeaseState): string | undefined => (s.state === "held" ? s.record.holder : undefined)
