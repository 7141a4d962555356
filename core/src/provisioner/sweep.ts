// What-if sweeps of the provider's settings (issue 11): the same day replayed once per value, in
// one reading of the log, each fact fed to every replay. What each replay comes to is measured from
// its decisions: a consumer's failing runs as its calls show them (from a failed call to the next
// success), the announcements made during each, and the words said. A run is the calls' alone, never
// what was announced of it, so the same day has the same runs under every setting an announcement
// depends on, and only what was said of them moves. So "what if failingAfter were
// 10m" reads as: how many announcements, how long from a consumer's first failure to its first
// announcement, and how long failing consumers went unannounced.
import { formatDuration } from "../duration.ts"
import type { LogFact } from "./log.ts"
import { dayReplay, type Decision, replayEnd, replayFact } from "./replay.ts"
import { spreadOf, spreadText, type SweepPoint, sweepPoints, sweepTable } from "../sweep.ts"
import { type SettingName, settingNames, type Settings } from "./model.ts"
import { settingValue } from "./settings.ts"

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
export const failures = new Set(["unreadable", "error", "timed-out"])
const successes = new Set(["held", "ok"])

/** A run while it is gathered. */
type OpenRun = { -readonly [K in keyof FailureRun]: FailureRun[K] } & { readonly announcedAt: Array<number> }

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
  return {
    add: (d: Decision): void => {
      firstAt ??= d.at
      lastAt = d.at
      if (d.kind === "said") said += 1
      else if (d.kind === "called") {
        if (d.call === "remove") return
        const run = open.get(d.as)
        if (failures.has(d.outcome)) {
          if (run !== undefined) run.lastFailure = d.at
          else {
            const begun: OpenRun = {
              consumer: d.as,
              start: d.at,
              lastFailure: d.at,
              end: undefined,
              announcedAt: [],
              recoveredAt: undefined,
            }
            runs.push(begun)
            open.set(d.as, begun)
            last.set(d.as, begun)
          }
        } else if (successes.has(d.outcome) && run !== undefined) {
          run.end = d.at
          open.delete(d.as)
        }
      } else if (d.event === "provisioner.failing") {
        failing += 1
        // Said right after the failed call it counts, so its run is open.
        open.get(d.body.consumer)?.announcedAt.push(d.at)
      } else {
        recovered += 1
        const run = last.get(d.body.consumer)
        if (run !== undefined && run.announcedAt.length > 0 && run.recoveredAt === undefined) run.recoveredAt = d.at
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

/**
 * A sweep's figures for one of its points: the announcements made and the lines said; the failing
 * runs and how many were announced at least once; from a run's first failed call to its first
 * announcement, over the runs announced (ms); and how long failing consumers went unannounced, added
 * over every run: to its first announcement, else to its end (the success), else to its last failure (ms).
 */
export const sweepFigures = (day: DayRuns) => {
  const toFirst = day.runs.flatMap((r) => (r.announcedAt.length > 0 ? [r.announcedAt[0]! - r.start] : []))
  return {
    failing: day.failing,
    recovered: day.recovered,
    said: day.said,
    runs: day.runs.length,
    announcedRuns: toFirst.length,
    toFirst: spreadOf(toFirst),
    unannounced: day.runs.reduce((sum, r) => sum + ((r.announcedAt[0] ?? r.end ?? r.lastFailure) - r.start), 0),
  }
}
export type SweepFigures = ReturnType<typeof sweepFigures>

/** The provider's settings a sweep may try: each of the loop's, as durations under --set's rule. */
export const providerSweepPoints = (said: ReadonlyArray<string>) =>
  sweepPoints(said, (name, text) =>
    settingValue(name, text, `${JSON.stringify(text)} is not a duration of at most 596h (5s, 90s, 1h30m, 250ms)`),
  )

export const overridesOf = (point: SweepPoint<number>): Partial<Settings> =>
  Object.fromEntries(point.values.map((v) => [v.name as SettingName, v.value]))

/** Every point's replay, fed the same facts as the log is read once; `base` are the overrides every point shares (--set), each point's own on top. */
export const sweepReplay = (points: ReadonlyArray<SweepPoint<number>>, base: Partial<Settings> = {}) => ({
  points,
  days: points.map((p) => dayReplay({ ...base, ...overridesOf(p) })),
  gatherers: points.map(() => runsGatherer()),
})
export type SweepReplay = ReturnType<typeof sweepReplay>

export const sweepFact = (sweep: SweepReplay, fact: LogFact): void => {
  for (let i = 0; i < sweep.days.length; i++)
    for (const d of replayFact(sweep.days[i]!, fact)) sweep.gatherers[i]!.add(d)
}

/** Each point's row: its day, its figures, and the answers its replay needed that the recording did not have (replay.ts). */
export const sweepEnd = (sweep: SweepReplay) =>
  sweep.points.map((point, i) => {
    const g = sweep.gatherers[i]!
    for (const d of replayEnd(sweep.days[i]!)) g.add(d)
    const day = g.result()
    return { point, day, figures: sweepFigures(day), inferred: sweep.days[i]!.replay.inferred }
  })
export type SweepRow = ReturnType<typeof sweepEnd>[number]

/** A point's figures as the sweep's table and the page (page.ts) show them, under `figureHeadings`. */
export const figureCells = (f: SweepFigures): ReadonlyArray<string> => [
  String(f.failing),
  String(f.recovered),
  spreadText(f.toFirst, "never announced"),
  `${(f.unannounced / 60_000).toFixed(1)} min`,
  `${f.runs} (${f.announcedRuns})`,
  String(f.said),
]
export const figureHeadings = [
  "failing",
  "recovered",
  "first failure → first announcement (min / median / max)",
  "unannounced",
  "runs (announced)",
  "said",
]

/** The sweep as a person reads it: a row per point, its figures in columns. */
const providerSweepTable = (rows: ReadonlyArray<SweepRow>): ReadonlyArray<string> =>
  sweepTable(
    ["point", ...figureHeadings, "inferred"],
    rows.map(({ point, figures, inferred }) => [point.label, ...figureCells(figures), String(inferred)]),
  )

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
  ...providerSweepTable(rows),
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
