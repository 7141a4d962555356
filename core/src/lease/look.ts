// One look at the controller lease (seed 004, issue 25), as a program of the lease's catalogue: the
// record read first, then the clock, then the store's newest epoch only when this controller does not
// hold the lease (a holder renewing keeps its own epoch); the core's decision (lease.ts) on them; the
// write it asks, and what its outcome does. What it says it says as the lease; the lost sentence it
// hands back rather than says, since the shell stops every act with it and says it only the once.
import { programsOf, type Program } from "../program.ts"
import { afterWrite, decide, floorUnread, holding, type LeaseMemory, unread } from "./lease.ts"
import { type LeaseQuestions, leaseQuestions } from "./questions.ts"
import type { LeaseRecord } from "./record.ts"
import type { LeaseSettings } from "./settings.ts"

export interface LookResult {
  /** What this controller remembers after the look. */
  readonly memory: LeaseMemory
  /** Whether it holds the lease now, by its clock read after its write: it may act. */
  readonly holds: boolean
  /** The record this look wrote, when the write was made: the lease as this controller holds it. */
  readonly written: LeaseRecord | undefined
  /** The lease was lost: the sentence every act stops with. */
  readonly lost: string | undefined
}

const { ask, say } = programsOf(leaseQuestions)
const says = (line: string) => say(`[lease] ${line}`)

const waits = (memory: LeaseMemory): LookResult => ({ memory, holds: false, written: undefined, lost: undefined })

export function* look(settings: LeaseSettings, m: LeaseMemory): Program<LeaseQuestions, LookResult> {
  const read = yield* ask({ q: "lease-record" })
  const at = yield* ask({ q: "lease-now" })
  if (!read.ok) {
    const d = unread(settings, m, at)
    return d.decision === "lost" ? { ...waits(d.memory), lost: `${d.said} (${read.why})` } : waits(m)
  }
  // The store's newest epoch matters only to a new epoch: a holder renewing keeps its own.
  const floor = m.held === undefined ? yield* ask({ q: "lease-epoch-floor" }) : undefined
  if (floor !== undefined && !floor.ok) {
    const d = floorUnread(settings, m, at, floor.why)
    if (d.said !== undefined) yield* says(d.said)
    return waits(d.memory)
  }
  const d = decide(settings, m, { read: read.value, at, floor: floor?.value ?? 0 })
  if (d.decision === "lost") return { ...waits(d.memory), lost: d.said }
  if (d.said !== undefined) yield* says(d.said)
  if (d.decision === "wait") return waits(d.memory)
  const outcome = yield* ask({ q: "lease-write", write: d.write })
  const after = afterWrite(d.memory, d.write, outcome, at)
  if (after.said !== undefined) yield* says(after.said)
  const now = yield* ask({ q: "lease-now" })
  return {
    memory: after.memory,
    holds: holding(settings, after.memory, now),
    written: outcome.outcome === "written" ? d.write.record : undefined,
    lost: undefined,
  }
}
