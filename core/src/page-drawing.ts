// What the pages of a replayed day share (`simulate FILE --html OUT.html`: the provider's, issue 11,
// and the release gate's, issue 29): one self-contained document, plain SVG written by hand, no
// script, no network; a time axis across from the day's first fact to its last, with a line and a
// label on round minutes or hours.
import { rfc3339, spanText } from "./duration.ts"

export const escape = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")

/** Time lines and their labels: about a dozen across, on a round number of minutes or hours. */
export const ticks = (from: number, to: number): ReadonlyArray<number> => {
  const minutes = (to - from) / 60_000
  const step = [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440, 2880, 10080].find((m) => minutes / m <= 14) ?? 20160
  const first = Math.ceil(from / (step * 60_000)) * step * 60_000
  const out: Array<number> = []
  for (let t = first; t <= to; t += step * 60_000) out.push(t)
  return out
}

export const pageWidth = 1200
export const axisHeight = 28

/**
 * The time axis of rows replayed from one log, right of a column of labels `labelWidth` wide: where a
 * time is drawn (`x`), and the span the page says. A day with no facts draws no time line.
 */
export const timeAxis = (
  days: ReadonlyArray<{ readonly first: number | undefined; readonly last: number | undefined }>,
  labelWidth: number,
) => {
  const from = Math.min(...days.map((d) => d.first ?? Number.POSITIVE_INFINITY))
  const to = Math.max(...days.map((d) => d.last ?? Number.NEGATIVE_INFINITY))
  const known = Number.isFinite(from) && Number.isFinite(to)
  const start = known ? from : 0
  const length = known && to > from ? to - from : 1
  const inner = pageWidth - labelWidth - 10
  return {
    from,
    to,
    length,
    inner,
    x: (t: number): number => labelWidth + ((t - start) / length) * inner,
    ticks: known ? ticks(from, to) : [],
    span: spanText(known ? from : undefined, to),
  }
}

/** The drawing's opening tag, and the axis's time lines with their labels across its `height`. */
export const svgWithAxis = (axis: ReturnType<typeof timeAxis>, height: number): Array<string> => [
  `<svg xmlns="http://www.w3.org/2000/svg" width="${pageWidth}" height="${height}" viewBox="0 0 ${pageWidth} ${height}" role="img">`,
  ...axis.ticks.flatMap((t) => [
    `<line class="tick" x1="${axis.x(t).toFixed(1)}" y1="${axisHeight - 6}" x2="${axis.x(t).toFixed(1)}" y2="${height - 10}"/>`,
    `<text class="tick-label" x="${axis.x(t).toFixed(1)}" y="${axisHeight - 10}">${escape(rfc3339(t).slice(5, 16).replace("T", " "))}</text>`,
  ]),
]

/** The whole document: its title, its style's lines, and its body's. */
export const htmlPage = (title: string, style: ReadonlyArray<string>, body: ReadonlyArray<string>): string =>
  [
    `<!doctype html>`,
    `<html lang="en"><head><meta charset="utf-8">`,
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    `<title>${escape(title)}</title>`,
    `<style>`,
    ...style,
    `</style></head><body>`,
    ...body,
    `</body></html>`,
    ``,
  ].join("\n")
