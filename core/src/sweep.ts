// A what-if sweep: one setting tried at several values, or a grid of two, each point a replay of
// the same day. `simulate FILE --sweep failingAfter=1m,2m,5m` (issue 11). Which settings there are,
// and what a value may be, is each area's: the provider's loop (provisioner/sweep.ts), and the
// release gate's settle, bound, every and passes when a controller log is swept. Here only the
// grid: what was asked, and the points it comes to, and how a sweep's table and JSON are laid out.
import { formatDuration, roundToSecond } from "./duration.ts"

/** One `--sweep name=v1,v2,…`: a setting and the values it is tried at, as said. */
export interface SweepAxis {
  readonly name: string
  readonly values: ReadonlyArray<string>
}

/** One point of the grid: a value for each axis, in the order the axes were given. */
export interface SweepPoint<V> {
  /** `failingAfter=2m` or `failingAfter=2m sayAgainEvery=5m`: how a person names the point. */
  readonly label: string
  readonly values: ReadonlyArray<{ readonly name: string; readonly text: string; readonly value: V }>
}

/** The most axes a sweep may have: one setting, or a grid of two. */
export const mostAxes = 2
/** The most points a sweep may replay in one reading: each is a whole replay, held side by side. */
export const mostPoints = 64

/** `name=v1,v2,…` as an axis, or why it cannot be one. */
export const sweepAxis = (said: string): SweepAxis | { readonly problem: string } => {
  const eq = said.indexOf("=")
  const name = eq < 0 ? said : said.slice(0, eq)
  const listed = said.slice(eq + 1).trim()
  const values = eq < 0 ? [] : listed.split(/\s*,\s*/)
  if (name === "" || values.length === 0 || values.some((v) => v === ""))
    return { problem: `--sweep ${said}: give a setting and its values, as in failingAfter=1m,2m,5m` }
  const twice = values.find((v, i) => values.indexOf(v) !== i)
  if (twice !== undefined) return { problem: `--sweep ${said}: ${twice} is given twice` }
  return { name, values }
}

/**
 * The points of a grid: every value of the first axis, each with every value of the second. `read`
 * says what a value of a setting is for the area (a duration, a count), or why it cannot be.
 */
export const sweepPoints = <V>(
  said: ReadonlyArray<string>,
  read: (name: string, text: string) => { readonly value: V } | { readonly problem: string },
): ReadonlyArray<SweepPoint<V>> | { readonly problem: string } => {
  if (said.length > mostAxes)
    return { problem: `--sweep is given ${said.length} times; a sweep is one setting, or a grid of two` }
  const axes: Array<Array<{ name: string; text: string; value: V }>> = []
  for (const s of said) {
    const axis = sweepAxis(s)
    if ("problem" in axis) return axis
    if (axes.some((a) => a[0]!.name === axis.name)) return { problem: `--sweep ${s}: ${axis.name} is swept twice` }
    const values: Array<{ name: string; text: string; value: V }> = []
    for (const text of axis.values) {
      const r = read(axis.name, text)
      if ("problem" in r) return { problem: `--sweep ${s}: ${r.problem}` }
      values.push({ name: axis.name, text, value: r.value })
    }
    axes.push(values)
  }
  let points: Array<ReadonlyArray<{ name: string; text: string; value: V }>> = [[]]
  for (const axis of axes) points = points.flatMap((p) => axis.map((v) => [...p, v]))
  if (points.length > mostPoints)
    return { problem: `--sweep: ${points.length} points; at most ${mostPoints} are replayed in one reading` }
  return points.map((values) => ({ label: values.map((v) => `${v.name}=${v.text}`).join(" "), values }))
}

/** Times over one point's replay: the least, the median (the lower of the two middle ones) and the most; ms. */
export const spreadOf = (times: ReadonlyArray<number>) => {
  const sorted = [...times].sort((a, b) => a - b)
  return sorted.length === 0
    ? undefined
    : { min: sorted[0]!, median: sorted[Math.floor((sorted.length - 1) / 2)]!, max: sorted.at(-1)! }
}

export type Spread = NonNullable<ReturnType<typeof spreadOf>>

/** A spread to the second, `1m0s / 2m0s / 5m0s`, or `none` when nothing was timed. */
export const spreadText = (s: Spread | undefined, none: string): string =>
  s === undefined ? none : [s.min, s.median, s.max].map((ms) => formatDuration(roundToSecond(ms))).join(" / ")

/** The sweep as a person reads it: a row per point, its figures in columns under `header`. */
export const sweepTable = (header: ReadonlyArray<string>, cells: ReadonlyArray<ReadonlyArray<string>>) => {
  const widths = header.map((h, c) => Math.max(h.length, ...cells.map((row) => row[c]!.length)))
  const line = (row: ReadonlyArray<string>) =>
    row
      .map((cell, c) => cell.padEnd(widths[c]!))
      .join("  ")
      .trimEnd()
  return [line(header), ...cells.map(line)]
}
