// A plan's judging history (issue 10, Argo's measurementRetention): every judging of its gate —
// when, healthy / not yet / broken / could not ask, what was wanting — and every verb given to it,
// kept in the plan record. Bounded per plan, so a plan judged every 40s for a day does not grow its
// row without end: the first `historyFirst` entries (how it began) and the newest `historyNewest`
// (how it stands), with a count of those dropped between them. Only the oldest of the middle are ever
// dropped, and the order is kept.
import type { HistoryEntry, HistoryRecord, PlanRecord } from "./records.ts"

/** How many of a plan's first entries are kept whatever follows. */
export const historyFirst = 5
/** How many of its newest entries are kept. */
export const historyNewest = 50

export const emptyHistory: HistoryRecord = { first: [], newest: [], dropped: 0 }

/** One entry kept: into the first while they are fewer than `historyFirst`, else the newest, the oldest of which drops past `historyNewest`. */
export const keepEntry = (h: HistoryRecord, e: HistoryEntry): HistoryRecord => {
  if (h.first.length < historyFirst && h.newest.length === 0) return { ...h, first: [...h.first, e] }
  const newest = [...h.newest, e]
  const over = Math.max(0, newest.length - historyNewest)
  return { first: h.first, newest: newest.slice(over), dropped: h.dropped + over }
}

/** The entries kept, in the order they happened. */
export const entriesOf = (h: HistoryRecord | undefined): ReadonlyArray<HistoryEntry> =>
  h === undefined ? [] : [...h.first, ...h.newest]

/** The plan with one more entry in its history. */
export const withEntry = (p: PlanRecord, e: HistoryEntry): PlanRecord => ({
  ...p,
  history: keepEntry(p.history ?? emptyHistory, e),
})
