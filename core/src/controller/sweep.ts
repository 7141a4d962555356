// `simulate FILE --sweep settle=1m,2m,5m` on a controller's log (issue 11): the release gate's day
// replayed once per value of its settings (settle, bound, every, passes), every replay fed each fact
// as the log is read once, and per value what the gate came to: its judgings, its verdicts, the
// rollbacks it asked for, and how long from a release to its verdict. The grid is core/src/sweep.ts.
import {
  type ControllerFact,
  gateSettingNames,
  gateSettingOverrides,
  type GateSettingsLine,
  gateSettingsOf,
  notGateSetting,
} from "./log.ts"
import { spreadOf, spreadText, type SweepPoint, sweepPoints, sweepTable } from "../sweep.ts"
import { freshTally, tallyProgram } from "./render.ts"
import { type DayModel, pageGatherer } from "./page.ts"
import {
  type ControllerDecision,
  type ControllerReplay,
  feedController,
  finishController,
  settingsWith,
  startControllerReplay,
} from "./replay.ts"

/** A gate setting's value as `--set` takes it: a duration as said, or a count of passes. */
export type GateValue = string | number

/** The gate's settings a sweep may try, each value under --set's rule. */
export const gateSweepPoints = (
  said: ReadonlyArray<string>,
): ReadonlyArray<SweepPoint<GateValue>> | { readonly problem: string } =>
  sweepPoints<GateValue>(said, (name, text) => {
    const unknown = notGateSetting(name)
    if (unknown !== undefined) return { problem: unknown }
    const r = gateSettingOverrides([`${name}=${text}`])
    if ("problem" in r) return { problem: r.problem.replace(/^--set [^:]*: /, "") }
    return { value: name === "passes" ? Number(text) : text }
  })

export const gateOverridesOf = (point: SweepPoint<GateValue>): GateSettingsLine =>
  Object.fromEntries(point.values.map((v) => [v.name, v.value]))

/** One point's replay and what it gathers, decision by decision. */
interface PointReplay {
  state: ControllerReplay
  readonly tally: ReturnType<typeof freshTally>
  readonly toVerdict: Array<number>
  readonly overrides: GateSettingsLine
  /** What the page draws of this point, gathered only when a page is asked for. */
  readonly page: ReturnType<typeof pageGatherer> | undefined
}

export interface GateSweep {
  readonly points: ReadonlyArray<SweepPoint<GateValue>>
  /** Undefined until the header is read: each point starts under the header's settings with its own over them. */
  replays: ReadonlyArray<PointReplay> | undefined
  readonly base: GateSettingsLine
  readonly withPage: boolean
}

/** `base` are the overrides every point shares (--set); each point's own go on top. */
export const gateSweep = (
  points: ReadonlyArray<SweepPoint<GateValue>>,
  base: GateSettingsLine = {},
  withPage = false,
): GateSweep => ({ points, replays: undefined, base, withPage })

/** The log's header: every point's replay starts under its settings, with the point's over them. */
export const gateSweepStart = (sweep: GateSweep, recorded: GateSettingsLine): void => {
  sweep.replays = sweep.points.map((p) => {
    const overrides = { ...sweep.base, ...gateOverridesOf(p) }
    return {
      state: startControllerReplay(gateSettingsOf({ ...recorded, ...overrides })),
      tally: freshTally(),
      toVerdict: [],
      overrides,
      page: sweep.withPage ? pageGatherer() : undefined,
    }
  })
}

const gather = (r: PointReplay, decisions: ReadonlyArray<ControllerDecision>): void => {
  tallyProgram(r.tally, decisions)
  r.page?.add(decisions)
  for (const d of decisions) {
    if (d.kind !== "act" || d.act.q !== "record-verdict") continue
    // The plan as the replay keeps it after this program, its saves included; sentAt never changes.
    const sentAt = r.state.plans.get(d.act.verdict.plan)?.sentAt
    if (sentAt !== undefined) r.toVerdict.push(d.at - sentAt)
  }
}

export const gateSweepFact = (sweep: GateSweep, fact: ControllerFact): void => {
  for (const r of sweep.replays ?? []) {
    const fed = feedController(r.state, fact, settingsWith(r.overrides))
    r.state = fed.state
    gather(r, fed.decisions)
  }
}

/**
 * What one replay of the day came to: rollbacks are the builds marked for rollback (set-rollback
 * asked), rollbackSends the sends of a rollback to machines; toVerdict, from a plan's release (sentAt)
 * to its verdict, over the verdicts given; open, the plans released and never judged to a verdict;
 * inferred, the answers the replay needed that the recording did not have (replay.ts).
 */
const figuresOf = (r: PointReplay) => {
  const t = r.tally
  return {
    judgings: t.judgings,
    passed: t.passed,
    failed: t.failed,
    rollbacks: [...t.rollbacks.values()].reduce((a, b) => a + b, 0),
    rollbackSends: t.sends.rollback,
    toVerdict: spreadOf(r.toVerdict),
    open: [...t.plans.values()].filter((p) => p.state === "open").length,
    said: t.said,
    inferred: r.state.counts.inferred,
  }
}
export type GateFigures = ReturnType<typeof figuresOf>

export interface GateSweepRow {
  readonly point: SweepPoint<GateValue>
  readonly figures: GateFigures
  readonly state: ControllerReplay
  readonly page?: DayModel | undefined
}

export const gateSweepEnd = (sweep: GateSweep): ReadonlyArray<GateSweepRow> =>
  (sweep.replays ?? []).map((r, i) => {
    const end = finishController(r.state)
    r.state = end.state
    gather(r, end.decisions)
    return { point: sweep.points[i]!, figures: figuresOf(r), state: r.state, page: r.page?.result() }
  })

/** The sweep's columns: each heading, and its cell of a row. */
const columns: ReadonlyArray<readonly [string, (row: GateSweepRow) => string]> = [
  ["point", (r) => r.point.label],
  ["judgings", (r) => String(r.figures.judgings)],
  ["passed", (r) => String(r.figures.passed)],
  ["failed", (r) => String(r.figures.failed)],
  ["rollbacks (sends)", (r) => `${r.figures.rollbacks} (${r.figures.rollbackSends})`],
  ["release → verdict (min / median / max)", (r) => spreadText(r.figures.toVerdict, "no verdict")],
  ["open at end", (r) => String(r.figures.open)],
  ["said", (r) => String(r.figures.said)],
  ["inferred", (r) => String(r.figures.inferred)],
]

/** The sweep as a person reads it: a row per point, its figures in columns. */
export const gateSweepTable = (rows: ReadonlyArray<GateSweepRow>): ReadonlyArray<string> =>
  sweepTable(
    columns.map(([heading]) => heading),
    rows.map((row) => columns.map(([, cell]) => cell(row))),
  )

/** The whole of what `simulate --sweep` prints for a controller's log. */
export const gateSweepReport = (
  input: {
    readonly file: string
    readonly facts: number
    readonly set: ReadonlyArray<string>
    readonly recorded: GateSettingsLine
  },
  rows: ReadonlyArray<GateSweepRow>,
): ReadonlyArray<string> => [
  `sweep of ${input.file}: ${input.facts} facts, each replayed ${rows.length} times in one reading` +
    (input.set.length === 0 ? "" : `, with ${input.set.join(" ")}`),
  "",
  ...gateSweepTable(rows),
  "",
  `recorded under ${gateSettingNames.flatMap((n) => (input.recorded[n] === undefined ? [] : [`${n}=${input.recorded[n]}`])).join(" ")}`,
  `judgings: the gate's judgings said. passed, failed: verdicts kept. rollbacks: builds marked for rollback (the sends that put ` +
    `the previous build back). release → verdict: from a plan's release to its verdict, over the verdicts given. open at end: plans ` +
    `never judged to a verdict. said: lines in the journal. inferred: answers the recording did not have.`,
]

/** The sweep for scripts: one JSON object, durations in milliseconds. */
export const gateSweepJson = (rows: ReadonlyArray<GateSweepRow>): string =>
  JSON.stringify({
    sweep: rows.map((r) => ({
      point: Object.fromEntries(r.point.values.map((v) => [v.name, v.text])),
      ...r.figures,
      toVerdict: r.figures.toVerdict ?? null,
    })),
  })
