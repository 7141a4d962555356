// What-if sweeps of the provider's settings (issue 11): the same day replayed once per value, in
// one reading of the log, each fact fed to every replay. What each replay comes to is measured from
// its decisions: a consumer's failing runs as its calls show them (from a failed call to the next
// success), the announcements made during each, and the words said. A run is the calls' alone, never
// what was announced of it, so the same day has the same runs under every setting an announcement
// depends on, and only what was said of them moves. So "what if failingAfter were
// 10m" reads as: how many announcements, how long from a consumer's first failure to its first
// announcement, and how long failing consumers went unannounced.
import { formatDuration, parseDuration, roundToSecond } from "../duration.ts"
import type { LogFact } from "./log.ts"
import { dayReplay, type DayReplay, type Decision, replayEnd, replayFact } from "./replay.ts"
import { type SweepPoint, sweepPoints } from "../sweep.ts"
import { type SettingName, settingNames, type Settings } from "./model.ts"
import { isSettingName, settingProblem } from "./settings.ts"

/** One consumer's unbroken run of failed calls, and what was announced while it lasted. */
export interface FailureRun {
  readonly consumer: string
  /** The first failed call of the run. */
  readonly start: number
  /** Its last failed call. */
  readonly lastFailure: number
  /** The first success after it; undefined when none came (still failing at the end of the log, or withdrawn). */
  readonly end: number | undefined
  /** Each provisioner.failing said of it. */
  readonly announcedAt: ReadonlyArray<number>
  /** The provisioner.recovered that closed it, when one was said. */
  readonly recoveredAt: number | undefined
}

/** What one replay of the day came to, for sweeps and the page. */
export interface DayRuns {
  readonly firstAt: number | undefined
  readonly lastAt: number | undefined
  readonly runs: ReadonlyArray<FailureRun>
  readonly failing: number
  readonly recovered: number
  readonly said: number
}

// Which outcomes of a call fail a consumer and which clear it (standing.ts): a secret read or a
// Holds that found nothing neither fails nor clears; a Remove is not the consumer's standing.
const failures = new Set(["unreadable", "error", "timed-out"])
const successes = new Set(["held", "ok"])

interface OpenRun {
  consumer: string
  start: number
  lastFailure: number
  end: number | undefined
  announcedAt: Array<number>
  recoveredAt: number | undefined
}

/** Gathers a replay's failing runs a decision at a time. */
export const runsGatherer = () => {
  const runs: Array<OpenRun> = []
  const open = new Map<string, OpenRun>()
  const last = new Map<string, OpenRun>()
  let firstAt: number | undefined
  let lastAt: number | undefined
  let failing = 0
  let recovered = 0
  let said = 0
  const begin = (consumer: string, at: number): OpenRun => {
    const run: OpenRun = {
      consumer,
      start: at,
      lastFailure: at,
      end: undefined,
      announcedAt: [],
      recoveredAt: undefined,
    }
    runs.push(run)
    open.set(consumer, run)
    last.set(consumer, run)
    return run
  }
  const close = (consumer: string, at: number) => {
    const run = open.get(consumer)
    if (run === undefined) return
    run.end = at
    open.delete(consumer)
  }
  return {
    add: (d: Decision): void => {
      firstAt ??= d.at
      lastAt = d.at
      switch (d.kind) {
        case "said":
          said += 1
          return
        case "called":
          if (d.call === "remove") return
          if (failures.has(d.outcome)) {
            const run = open.get(d.as)
            if (run === undefined) begin(d.as, d.at)
            else run.lastFailure = d.at
          } else if (successes.has(d.outcome)) {
            close(d.as, d.at)
          }
          return
        case "announced":
          if (d.event === "provisioner.failing") {
            failing += 1
            // Said right after the failed call it counts, so its run is open.
            open.get(d.body.consumer)?.announcedAt.push(d.at)
          } else {
            recovered += 1
            const run = last.get(d.body.consumer)
            if (run !== undefined && run.announcedAt.length > 0 && run.recoveredAt === undefined) run.recoveredAt = d.at
          }
      }
    },
    result: (): DayRuns => ({
      firstAt,
      lastAt,
      runs: runs.map((r) => ({ ...r, announcedAt: [...r.announcedAt] })),
      failing,
      recovered,
      said,
    }),
  }
}

/** A sweep's figures for one of its points. */
export interface SweepFigures {
  readonly failing: number
  readonly recovered: number
  readonly said: number
  readonly runs: number
  /** Runs announced at least once. */
  readonly announcedRuns: number
  /** From a run's first failed call to its first announcement, over the runs announced; ms. */
  readonly toFirst: { readonly min: number; readonly median: number; readonly max: number } | undefined
  /**
   * How long failing consumers went unannounced, added over every run: to its first announcement,
   * else to its end (the success), else to its last failure; ms.
   */
  readonly unannounced: number
}

/** The median of sorted numbers: the middle one, or the lower of the two middle ones. */
const lowerMedian = (sorted: ReadonlyArray<number>): number => sorted[Math.floor((sorted.length - 1) / 2)]!

export const sweepFigures = (day: DayRuns): SweepFigures => {
  const toFirst = day.runs
    .flatMap((r) => (r.announcedAt.length > 0 ? [r.announcedAt[0]! - r.start] : []))
    .sort((a, b) => a - b)
  const unannounced = day.runs.reduce((sum, r) => sum + ((r.announcedAt[0] ?? r.end ?? r.lastFailure) - r.start), 0)
  return {
    failing: day.failing,
    recovered: day.recovered,
    said: day.said,
    runs: day.runs.length,
    announcedRuns: toFirst.length,
    toFirst:
      toFirst.length === 0
        ? undefined
        : { min: toFirst[0]!, median: lowerMedian(toFirst), max: toFirst[toFirst.length - 1]! },
    unannounced,
  }
}

/** The provider's settings a sweep may try: each of the loop's, as durations under --set's rule. */
export const providerSweepPoints = (
  said: ReadonlyArray<string>,
): ReadonlyArray<SweepPoint<number>> | { readonly problem: string } =>
  sweepPoints(said, (name, text) => {
    if (!isSettingName(name))
      return { problem: `no setting ${JSON.stringify(name)}; the settings are ${settingNames.join(", ")}` }
    const ms = parseDuration(text)
    if (ms === undefined)
      return { problem: `${JSON.stringify(text)} is not a duration of at most 596h (5s, 90s, 1h30m, 250ms)` }
    const problem = settingProblem(name, ms)
    return problem === undefined ? { value: ms } : { problem }
  })

export const overridesOf = (point: SweepPoint<number>): Partial<Settings> =>
  Object.fromEntries(point.values.map((v) => [v.name as SettingName, v.value]))

/** Every point's replay, fed the same facts as the log is read once. */
export interface SweepReplay {
  readonly points: ReadonlyArray<SweepPoint<number>>
  readonly days: ReadonlyArray<DayReplay>
  readonly gatherers: ReadonlyArray<ReturnType<typeof runsGatherer>>
}

/** `base` are the overrides every point shares (--set); each point's own go on top. */
export const sweepReplay = (points: ReadonlyArray<SweepPoint<number>>, base: Partial<Settings> = {}): SweepReplay => ({
  points,
  days: points.map((p) => dayReplay({ ...base, ...overridesOf(p) })),
  gatherers: points.map(() => runsGatherer()),
})

export const sweepFact = (sweep: SweepReplay, fact: LogFact): void => {
  for (let i = 0; i < sweep.days.length; i++) {
    for (const d of replayFact(sweep.days[i]!, fact)) sweep.gatherers[i]!.add(d)
  }
}

export interface SweepRow {
  readonly point: SweepPoint<number>
  readonly day: DayRuns
  readonly figures: SweepFigures
  /** Answers the replay needed that the recording did not have (see replay.ts). */
  readonly inferred: number
}

export const sweepEnd = (sweep: SweepReplay): ReadonlyArray<SweepRow> =>
  sweep.points.map((point, i) => {
    const g = sweep.gatherers[i]!
    for (const d of replayEnd(sweep.days[i]!)) g.add(d)
    const day = g.result()
    return { point, day, figures: sweepFigures(day), inferred: sweep.days[i]!.replay.inferred }
  })

const minutes = (ms: number): string => `${(ms / 60_000).toFixed(1)} min`
const span = (ms: number): string => formatDuration(roundToSecond(ms))

/** The sweep as a person reads it: a row per point, its figures in columns. */
const sweepTable = (rows: ReadonlyArray<SweepRow>): ReadonlyArray<string> => {
  const header = [
    "point",
    "failing",
    "recovered",
    "first failure → first announcement (min / median / max)",
    "unannounced",
    "runs (announced)",
    "said",
    "inferred",
  ]
  const cells = rows.map((r) => {
    const f = r.figures
    const toFirst =
      f.toFirst === undefined
        ? "never announced"
        : `${span(f.toFirst.min)} / ${span(f.toFirst.median)} / ${span(f.toFirst.max)}`
    return [
      r.point.label,
      String(f.failing),
      String(f.recovered),
      toFirst,
      minutes(f.unannounced),
      `${f.runs} (${f.announcedRuns})`,
      String(f.said),
      String(r.inferred),
    ]
  })
  const widths = header.map((h, c) => Math.max(h.length, ...cells.map((row) => row[c]!.length)))
  const line = (row: ReadonlyArray<string>) =>
    row
      .map((cell, c) => cell.padEnd(widths[c]!))
      .join("  ")
      .trimEnd()
  return [line(header), ...cells.map(line)]
}

/** The whole of what `simulate --sweep` prints: what was replayed, the table, and what its columns are. */
export const sweepReport = (
  input: {
    readonly file: string
    readonly facts: number
    readonly set: ReadonlyArray<string>
    readonly recorded: Settings
  },
  rows: ReadonlyArray<SweepRow>,
): ReadonlyArray<string> => [
  `sweep of ${input.file}: ${input.facts} facts, each replayed ${rows.length} times in one reading` +
    (input.set.length === 0 ? "" : `, with ${input.set.join(" ")}`),
  "",
  ...sweepTable(rows),
  "",
  `recorded under ${settingNames.map((n) => `${n}=${formatDuration(input.recorded[n])}`).join(" ")}`,
  `failing, recovered: announcements made. first failure → first announcement: over the runs announced. ` +
    `unannounced: how long failing consumers went unannounced, added over every run. runs: failing runs (of them announced). ` +
    `said: lines in the journal. inferred: answers the recording did not have.`,
]

/** The sweep for scripts: one JSON object, durations in milliseconds. */
export const sweepJson = (rows: ReadonlyArray<SweepRow>): string =>
  JSON.stringify({
    sweep: rows.map((r) => ({
      point: Object.fromEntries(r.point.values.map((v) => [v.name, v.text])),
      ...r.figures,
      toFirst: r.figures.toFirst ?? null,
      inferred: r.inferred,
    })),
  })
