// What a replayed day comes to: per consumer, how often it was called and failed, and each failing
// run as it was announced — since when, with which class, and when (and why) it recovered.
import type { Decision } from "./replay.ts"
import { failures, runsGatherer } from "./sweep.ts"

export interface FailingRun {
  readonly since: string
  readonly firstAnnouncedAt: number
  readonly class: string
  readonly attempts: number
  readonly announcements: number
  readonly lastError: string
  readonly recoveredAt: number | undefined
  readonly why: string | undefined
}

/**
 * A replayed day's summary gathered a decision at a time, each consumer's entry changed in place: a
 * summary copied whole per decision was 37% of simulate's time on a day of 100 consumers (issue 11).
 * Its span, lines said, announcements and failing runs are the day's runs' (sweep.ts runsGatherer).
 */
export const summaryGatherer = () => {
  const day = runsGatherer()
  const consumers = new Map<string, { calls: number; failures: number; runs: Array<FailingRun> }>()
  const consumer = (as: string) => {
    let c = consumers.get(as)
    if (c === undefined) consumers.set(as, (c = { calls: 0, failures: 0, runs: [] }))
    return c
  }
  return {
    add: (d: Decision): void => {
      day.add(d)
      if (d.kind === "said") return
      if (d.kind === "called") {
        const c = consumer(d.as)
        c.calls += 1
        if (failures.has(d.outcome)) c.failures += 1
        return
      }
      const { runs } = consumer(d.body.consumer)
      // The consumer's run still failing: its last, when not recovered.
      const last = runs.at(-1)
      const open = last?.recoveredAt === undefined ? last : undefined
      if (d.event === "provisioner.failing") {
        const b = d.body
        if (open !== undefined) runs.pop()
        runs.push({
          since: b.since,
          firstAnnouncedAt: open?.firstAnnouncedAt ?? d.at,
          class: b.class,
          attempts: b.attempts,
          announcements: (open?.announcements ?? 0) + 1,
          lastError: b.error,
          recoveredAt: undefined,
          why: undefined,
        })
      } else if (open !== undefined)
        runs[runs.length - 1] = {
          ...open,
          recoveredAt: d.at,
          why: d.body.why ?? "succeeded",
          attempts: d.body.attempts ?? open.attempts,
        }
    },
    result: () => ({
      ...day.result(),
      consumers: new Map([...consumers].map(([as, c]) => [as, { ...c, runs: [...c.runs] }])),
    }),
  }
}

/** A replayed day's summary: its span, the lines said, the announcements, and per consumer its calls, failures and announced runs. */
export type Summary = ReturnType<ReturnType<typeof summaryGatherer>["result"]>
