// What a replayed day comes to: per consumer, how often it was called and failed, and each failing
// run as it was announced — since when, with which class, and when (and why) it recovered.
import type { Decision } from "./replay.ts"

export interface FailingRun {
  readonly since: string
  readonly firstAnnouncedAt: number
  readonly class: string
  readonly attempts: number
  readonly lastError: string
  readonly announcements: number
  readonly recoveredAt: number | undefined
  readonly why: string | undefined
}

export interface ConsumerSummary {
  readonly calls: number
  readonly failures: number
  readonly runs: ReadonlyArray<FailingRun>
}

export interface Summary {
  readonly firstAt: number | undefined
  readonly lastAt: number | undefined
  readonly said: number
  readonly failing: number
  readonly recovered: number
  readonly consumers: ReadonlyMap<string, ConsumerSummary>
}

export const emptySummary: Summary = {
  firstAt: undefined,
  lastAt: undefined,
  said: 0,
  failing: 0,
  recovered: 0,
  consumers: new Map(),
}

const emptyConsumer: ConsumerSummary = { calls: 0, failures: 0, runs: [] }

const isFailure = (outcome: string): boolean =>
  outcome === "error" || outcome === "timed-out" || outcome === "unreadable"

const withConsumer = (s: Summary, as: string, change: (c: ConsumerSummary) => ConsumerSummary): Summary => ({
  ...s,
  consumers: new Map(s.consumers).set(as, change(s.consumers.get(as) ?? emptyConsumer)),
})

const openRun = (c: ConsumerSummary): FailingRun | undefined => {
  const last = c.runs[c.runs.length - 1]
  return last !== undefined && last.recoveredAt === undefined ? last : undefined
}

const replaceLast = (runs: ReadonlyArray<FailingRun>, run: FailingRun): ReadonlyArray<FailingRun> => [
  ...runs.slice(0, -1),
  run,
]

export const summarize = (s: Summary, d: Decision): Summary => {
  const timed: Summary = { ...s, firstAt: s.firstAt ?? d.at, lastAt: d.at }
  switch (d.kind) {
    case "said":
      return { ...timed, said: s.said + 1 }
    case "called":
      return withConsumer(timed, d.as, (c) => ({
        ...c,
        calls: c.calls + 1,
        failures: c.failures + (isFailure(d.outcome) ? 1 : 0),
      }))
    case "announced": {
      if (d.event === "provisioner.failing") {
        const b = d.body
        return withConsumer({ ...timed, failing: s.failing + 1 }, b.consumer, (c) => {
          const open = openRun(c)
          const run: FailingRun = {
            since: b.since,
            firstAnnouncedAt: open?.firstAnnouncedAt ?? d.at,
            class: b.class,
            attempts: b.attempts,
            lastError: b.error,
            announcements: (open?.announcements ?? 0) + 1,
            recoveredAt: undefined,
            why: undefined,
          }
          return { ...c, runs: open === undefined ? [...c.runs, run] : replaceLast(c.runs, run) }
        })
      }
      const b = d.body
      return withConsumer({ ...timed, recovered: s.recovered + 1 }, b.consumer, (c) => {
        const open = openRun(c)
        if (open === undefined) return c
        return {
          ...c,
          runs: replaceLast(c.runs, {
            ...open,
            recoveredAt: d.at,
            why: b.why ?? "succeeded",
            attempts: b.attempts ?? open.attempts,
          }),
        }
      })
    }
  }
}

/**
 * A summary gathered a decision at a time without copying every consumer's entry per decision:
 * `summarize` copies the consumers' map each time, which was 37% of simulate's time on a day of
 * 100 consumers (issue 11). Calls, most of a day's decisions, are counted in place; the rest go
 * through `summarize` for the one consumer they touch. Its result is what folding `summarize` over
 * the same decisions gives.
 */
export const summaryGatherer = () => {
  const consumers = new Map<string, ConsumerSummary>()
  const counts = new Map<string, { calls: number; failures: number }>()
  let totals: Summary = emptySummary
  let firstAt: number | undefined
  let lastAt: number | undefined
  const entry = (as: string): ConsumerSummary => {
    const c = consumers.get(as)
    const n = counts.get(as)
    if (c === undefined && n === undefined) return emptyConsumer
    return { ...(c ?? emptyConsumer), calls: n?.calls ?? 0, failures: n?.failures ?? 0 }
  }
  return {
    add: (d: Decision): void => {
      firstAt ??= d.at
      lastAt = d.at
      if (d.kind === "called") {
        let n = counts.get(d.as)
        if (n === undefined) counts.set(d.as, (n = { calls: 0, failures: 0 }))
        n.calls += 1
        if (isFailure(d.outcome)) n.failures += 1
        if (!consumers.has(d.as)) consumers.set(d.as, emptyConsumer)
        return
      }
      const as = d.kind === "announced" ? d.body.consumer : undefined
      // The one consumer this decision touches, summarized alone; everything else carried over.
      const was = as === undefined || !consumers.has(as) ? undefined : entry(as)
      const alone: Summary = {
        ...totals,
        consumers: as === undefined || was === undefined ? emptySummary.consumers : new Map([[as, was]]),
      }
      const next = summarize(alone, d)
      if (as !== undefined) {
        const c = next.consumers.get(as)
        if (c !== undefined) consumers.set(as, c)
      }
      totals = { ...next, consumers: emptySummary.consumers }
    },
    result: (): Summary => ({
      ...totals,
      firstAt,
      lastAt,
      consumers: new Map([...consumers.keys()].map((as) => [as, entry(as)])),
    }),
  }
}
