// The controller lease's decisions (seed 004, novox/hq to-be 45 §6): one controller acts at a time.
// A pure function of what this controller last read (the lease's record at its revision), its own
// clock, and what it remembers; the shell reads, writes with compare-and-set on the revision, and
// waits. The rules, as client-go's leader election keeps them safe across machines' clocks:
//
// - **Expiry is judged on the candidate's own clock**: a candidate takes a lease only after it has
//   seen the same revision for the lease's whole duration. The holder's times in the record are
//   never compared with the candidate's clock, so clocks set apart never matter; clocks running at
//   different rates are bounded by the settings (settings.ts).
// - **The holder stops at its renew deadline**, counted on its own clock from when its last renewal
//   was sent (before it reached the bus, so the deadline is early, never late).
// - **A write is a compare-and-set on the revision read**: two candidates that both judged the lease
//   free cannot both take it (docker/libkv#31 is what a plain put does).
// - **The epoch is strictly greater for each new holder**: above the record's, above any this
//   controller saw, and above the newest the store has seen (`floor`), so even a bucket that lost its
//   record cannot bring an epoch back.
import * as Schema from "effect/Schema"
import { type LeaseRead, LeaseRecord } from "./record.ts"
import type { LeaseSettings } from "./settings.ts"

/** What this controller holds: its epoch, since when, and when the last renewal that reached the bus was sent, by its clock. */
export type Held = Pick<LeaseRecord, "epoch" | "acquiredAt" | "renewedAt">

export interface LeaseMemory {
  readonly self: string
  readonly held: Held | undefined
  /** The revision last seen and when it was first seen, by this controller's clock. */
  readonly observed: { readonly revision: number; readonly at: number } | undefined
  /** The highest epoch this controller has seen anywhere. */
  readonly highest: number
  /** Whom this controller last said it waits for (so it says so once, not every look). */
  readonly waitingFor: string | undefined
  readonly lost: boolean
  /**
   * Whether this holder's workers run and its followers have caught up with the bus: what the record's
   * `ready` says, so the gate's controller check (003-9) never passes a holder that cannot follow yet.
   */
  readonly ready: boolean
  /**
   * The epoch this controller last asked to take in this term (answered or not). Its own record at
   * another epoch is the record of a term of this process that ended (a lease lost, then campaigning
   * again under the same name): never renewed, but taken at once at a new epoch (issue 26).
   */
  readonly took?: number
  /** What this controller says a person should know (a recording that stopped): carried in its record. */
  readonly notes?: ReadonlyArray<string>
}

export const candidate = (self: string): LeaseMemory => ({
  self,
  held: undefined,
  observed: undefined,
  highest: 0,
  waitingFor: undefined,
  lost: false,
  ready: false,
})

/** What this controller says a person should know: in its record from its next write. */
export const notesNow = (m: LeaseMemory, notes: ReadonlyArray<string>): LeaseMemory => {
  const { notes: _was, ...rest } = m
  return notes.length === 0 ? rest : { ...rest, notes }
}

/** This holder caught up (or not): said in the record at its next write. */
export const readyNow = (m: LeaseMemory, ready: boolean): LeaseMemory => ({ ...m, ready })

export interface LeaseFacts {
  readonly read: LeaseRead
  /** This controller's clock, read after the read returned and before anything is written. */
  readonly at: number
  /** The newest epoch the store has seen (0 when it has seen none). */
  readonly floor: number
}

/** A write to the lease's key: created when absent, or updated at the revision read (compare-and-set). */
export const LeaseWrite = Schema.Union([
  Schema.Struct({ write: Schema.Literal("create"), record: LeaseRecord }),
  Schema.Struct({ write: Schema.Literal("update"), revision: Schema.Number, record: LeaseRecord }),
])
export type LeaseWrite = typeof LeaseWrite.Type

export type LeaseDecision =
  /** Write this; its outcome is the next fact (`afterWrite`). */
  | { readonly decision: "write"; readonly memory: LeaseMemory; readonly write: LeaseWrite; readonly said: undefined }
  /** Another holds it (or may still): look again after the retry. */
  | { readonly decision: "wait"; readonly memory: LeaseMemory; readonly said: string | undefined }
  /** This controller held it and does no longer: stop every act at once and stand down as a candidate. */
  | { readonly decision: "lost"; readonly memory: LeaseMemory; readonly said: string }

// Seed 004 exits here, to be started again by a supervisor; serve stands down instead and campaigns
// again (docs/lease.md), so a bus outage longer than the lease ends no controller.
export const lostSentence =
  "the controller lease was lost; this controller stopped acting and stands down, a candidate again until it holds the lease"

export const waitingWords = (holder: string, epoch: number | undefined): string =>
  epoch === undefined
    ? `the controller lease is held by a record this controller cannot read; it waits as a candidate until it expires`
    : `the controller lease is held by ${holder} (epoch ${epoch}); this controller waits as a candidate`

export const holdingWords = (epoch: number): string =>
  `this controller holds the controller lease, epoch ${epoch}; it acts`

export const givenBackWords = (epoch: number): string =>
  `the controller lease (epoch ${epoch}) was given back, so the epoch is recorded as given back rather than found expired by the next holder`

/** A candidate that cannot read the store's newest epoch takes no epoch: it could number itself below it. */
const floorUnreadWords = (why: string): string =>
  `the store's newest epoch cannot be read (${why}), so this controller takes no epoch yet; it waits as a candidate`

export const fencedWords = (epoch: number, newest: number): string =>
  `the store refused a write under epoch ${epoch}: epoch ${newest} is newer, so another controller holds the lease; ${lostSentence}`

/** Whether this controller may act now: it holds the lease and its renew deadline has not passed. */
export const holding = (settings: LeaseSettings, m: LeaseMemory, now: number): boolean =>
  !m.lost && m.held !== undefined && now < m.held.renewedAt + settings.renewDeadline

/** When this controller stops acting unless a renewal reaches the bus first. */
export const deadlineOf = (settings: LeaseSettings, m: LeaseMemory): number | undefined =>
  m.held === undefined || m.lost ? undefined : m.held.renewedAt + settings.renewDeadline

const record = (m: LeaseMemory, settings: LeaseSettings, epoch: number, acquiredAt: number, at: number) => ({
  holder: m.self,
  epoch,
  acquiredAt,
  renewedAt: at,
  durationMs: settings.duration,
  givenBack: false,
  // A new epoch is never ready at its take: its workers have not started under it yet.
  ready: m.held?.epoch === epoch && m.ready,
  ...(m.notes === undefined || m.notes.length === 0 ? {} : { notes: m.notes }),
})

/** Waiting as a candidate for `key` (whom, or why), said once per key. */
const waitFor = (m: LeaseMemory, memory: LeaseMemory, key: string, words: string): LeaseDecision => ({
  decision: "wait",
  memory: { ...memory, waitingFor: key },
  said: m.waitingFor === key ? undefined : words,
})

const writing = (memory: LeaseMemory, write: LeaseWrite) => ({
  decision: "write" as const,
  memory,
  said: undefined,
  write,
})

const updating = (memory: LeaseMemory, revision: number, record: LeaseRecord) =>
  writing(memory, { write: "update", revision, record })

const lose = (m: LeaseMemory): LeaseDecision => ({
  decision: "lost",
  memory: { ...m, held: undefined, lost: true },
  said: lostSentence,
})

/** One look at the lease: what to write, or to wait, or that it is lost. */
export const decide = (settings: LeaseSettings, m: LeaseMemory, f: LeaseFacts): LeaseDecision => {
  if (m.lost) return lose(m)
  const read = f.read
  const seen = read.found && "record" in read ? read.record.epoch : 0
  const highest = Math.max(m.highest, seen, f.floor)
  // A revision not seen before starts the wait over: the lease's duration counts from here.
  const observed = !read.found
    ? undefined
    : m.observed?.revision === read.revision
      ? m.observed
      : { revision: read.revision, at: f.at }
  const mem: LeaseMemory = { ...m, highest, observed }
  const next = highest + 1
  if (m.held !== undefined) {
    // Past the deadline, nothing written now could make the acts since then safe; nor could anything
    // over a record that is gone or unreadable.
    if (!holding(settings, m, f.at) || !read.found || !("record" in read)) return lose(mem)
    const r = read.record
    if (r.holder !== m.self || r.epoch !== m.held.epoch || r.givenBack) return lose(mem)
    return updating(mem, read.revision, record(m, settings, r.epoch, m.held.acquiredAt, f.at))
  }

  if (!read.found)
    return writing({ ...mem, took: next }, { write: "create", record: record(m, settings, next, f.at, f.at) })
  /** Taken at a new epoch, written over the revision read. */
  const take = () => updating({ ...mem, took: next }, read.revision, record(m, settings, next, f.at, f.at))
  if ("record" in read) {
    const r = read.record
    const own = r.holder === m.self && !r.givenBack
    // Its own record at an epoch this term did not take: a term that ended (its lease lost, its acts
    // stopped). Nobody wrote since, so nothing acts under it; taken at once at a new epoch, never held
    // again at that one, so the store's fence refuses whatever of that term was still on its way.
    if (own && r.epoch !== m.took) return take()
    // Its own record whose write was answered too late to be heard: renewed, and held from this renewal.
    if (own) return updating(mem, read.revision, record(m, settings, r.epoch, r.acquiredAt, f.at))
    if (r.givenBack || f.at - observed!.at >= r.durationMs) return take()
    return waitFor(m, mem, `${r.holder} ${r.epoch}`, waitingWords(r.holder, r.epoch))
  }
  // Bytes that are no record: nothing read is not nobody holding. Waited out like any holder's.
  if (f.at - observed!.at >= settings.duration) return take()
  return waitFor(m, mem, "(unreadable)", waitingWords("", undefined))
}

export const WriteOutcome = Schema.Union([
  Schema.Struct({ outcome: Schema.Literal("written"), revision: Schema.Number }),
  /** The revision moved since it was read: someone else wrote. */
  Schema.Struct({ outcome: Schema.Literal("conflict") }),
  /** No answer: the write may or may not have reached the bus. */
  Schema.Struct({ outcome: Schema.Literal("unanswered"), why: Schema.String }),
])
export type WriteOutcome = typeof WriteOutcome.Type

/**
 * What a write's outcome does. Written, this controller holds the lease from when the write was sent
 * (`at`, the look's time); anything else changes nothing it holds: the deadline decides.
 */
export const afterWrite = (m: LeaseMemory, w: LeaseWrite, o: WriteOutcome, at: number) => {
  if (o.outcome !== "written" || m.lost) return { memory: m, said: undefined }
  const held: Held = { epoch: w.record.epoch, acquiredAt: w.record.acquiredAt, renewedAt: at }
  const memory: LeaseMemory = {
    ...m,
    held,
    observed: { revision: o.revision, at },
    highest: Math.max(m.highest, held.epoch),
    waitingFor: undefined,
  }
  return { memory, said: m.held?.epoch === held.epoch ? undefined : holdingWords(held.epoch) }
}

/** Giving the lease back on stop: the record marked given back under its own revision, or nothing to give. */
export const giveBack = (m: LeaseMemory, read: LeaseRead, at: number): LeaseWrite | undefined => {
  if (m.held === undefined || m.lost || !read.found || !("record" in read)) return undefined
  const r = read.record
  if (r.holder !== m.self || r.epoch !== m.held.epoch || r.givenBack) return undefined
  return { write: "update", revision: read.revision, record: { ...r, renewedAt: at, givenBack: true, ready: false } }
}

/** A look whose read got no answer: nothing is written; a holder past its deadline has lost the lease. */
export const unread = (settings: LeaseSettings, m: LeaseMemory, at: number): LeaseDecision =>
  m.lost || (m.held !== undefined && !holding(settings, m, at))
    ? lose(m)
    : { decision: "wait", memory: m, said: undefined }

/**
 * A candidate's look whose floor (the store's newest epoch) could not be read: it takes no epoch, as it
 * could number itself below one the store has seen and have every act refused. Said once per reason.
 */
export const floorUnread = (settings: LeaseSettings, m: LeaseMemory, at: number, why: string): LeaseDecision => {
  const d = unread(settings, m, at)
  if (d.decision === "lost" || m.held !== undefined) return d
  return waitFor(m, m, `(floor) ${why}`, floorUnreadWords(why))
}

/** Stopping: this controller acts no more from now, whether or not the give-back reaches the bus. */
export const stopped = (m: LeaseMemory): LeaseMemory => ({ ...m, held: undefined, lost: true })
