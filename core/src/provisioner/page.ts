// A replayed day as a page to look at (`simulate FILE --html OUT.html`, issue 11): per consumer, a
// band for each failing run with its announcements marked, one row per replay (the settings it was
// replayed under, or each value of a sweep). One self-contained page: plain SVG written here, no
// script, no network. Every band and mark carries a class (`band`, `mark failing`, `mark recovered`)
// and its consumer and row, so a test can count what is drawn against the replay's own figures.
import { formatDuration, rfc3339, roundToSecond } from "../duration.ts"
import { axisHeight, escape, htmlPage, svgWithAxis, timeAxis } from "../page-drawing.ts"
import { EventFailing, EventRecovered, type Provider, settingNames, type Settings } from "./model.ts"
import { type DayRuns, figureCells, figureHeadings, overridesOf, sweepFigures, type SweepRow } from "./sweep.ts"

export interface PageInput {
  readonly file: string
  readonly provider: Provider
  readonly rows: ReadonlyArray<PageRow>
}

/** The page's one row for a plain replay: the settings the log was recorded under, with --set on top. */
export const replayRow = (
  day: DayRuns,
  recorded: Settings,
  overrides: Partial<Settings>,
  set: ReadonlyArray<string>,
) => ({
  label: set.length === 0 ? "as recorded" : set.join(" "),
  settings: { ...recorded, ...overrides },
  day,
  figures: sweepFigures(day),
})
/** A row of the page: what it is (the settings it differs by, "failingAfter=2m", or "as recorded"), its settings, its day and its figures. */
export type PageRow = ReturnType<typeof replayRow>

/** A sweep's rows on the page: each point's settings, on the recorded ones with --set under them. */
export const sweepRows = (rows: ReadonlyArray<SweepRow>, recorded: Settings, overrides: Partial<Settings>) =>
  rows.map((r) => ({
    label: r.point.label,
    settings: { ...recorded, ...overrides, ...overridesOf(r.point) },
    day: r.day,
    figures: r.figures,
  }))

const labelWidth = 220
const lane = 16
const gap = 10

const settingsText = (s: Settings): string => settingNames.map((n) => `${n}=${formatDuration(s[n])}`).join(" ")

export const dayPage = (input: PageInput): string => {
  const { rows, provider } = input
  const spans = rows.map((r) => ({ first: r.day.firstAt, last: r.day.lastAt }))
  const axis = timeAxis(spans, labelWidth)
  const x = axis.x
  const consumers = [...new Set(rows.flatMap((r) => r.day.runs.map((run) => run.consumer)))].sort()
  // A consumer's name on a line of its own, then a lane for each row.
  const nameHeight = rows.length > 1 ? 16 : 0
  const groupHeight = nameHeight + rows.length * lane + gap
  const height = axisHeight + Math.max(1, consumers.length) * groupHeight + 10

  const svg = svgWithAxis(axis, height)
  consumers.forEach((consumer, c) => {
    const top = axisHeight + c * groupHeight
    svg.push(`<g class="consumer" data-consumer="${escape(consumer)}">`)
    svg.push(
      `<text class="consumer-label" x="4" y="${top + (nameHeight > 0 ? 12 : lane - 4)}">${escape(consumer)}</text>`,
    )
    rows.forEach((row, r) => {
      const y = top + nameHeight + r * lane
      if (rows.length > 1)
        svg.push(`<text class="row-label" x="${labelWidth - 6}" y="${y + lane - 4}">${escape(row.label)}</text>`)
      svg.push(`<rect class="lane" x="${labelWidth}" y="${y + 2}" width="${axis.inner}" height="${lane - 4}"/>`)
      // An announcement's mark, `width` wide, centred on its moment.
      const mark = (event: string, at: number, width: number) =>
        `<rect class="mark ${event.slice("provisioner.".length)}" data-consumer="${escape(consumer)}" data-row="${r}" x="${(x(at) - width / 2).toFixed(1)}" y="${y}" width="${width}" height="${lane}">` +
        `<title>${escape(`${event} ${consumer} at ${rfc3339(at)}`)}</title></rect>`
      for (const run of row.day.runs) {
        if (run.consumer !== consumer) continue
        const end = run.end ?? run.lastFailure
        const announced = run.announcedAt.length > 0
        const title =
          `${consumer}: failing from ${rfc3339(run.start)} ` +
          (run.end === undefined ? `to ${rfc3339(run.lastFailure)}, no success after` : `to ${rfc3339(run.end)}`) +
          (announced
            ? `, first announced after ${formatDuration(roundToSecond(run.announcedAt[0]! - run.start))}, ${run.announcedAt.length} times`
            : ", never announced")
        svg.push(
          `<rect class="band${announced ? " announced" : ""}" data-consumer="${escape(consumer)}" data-row="${r}" ` +
            `x="${x(run.start).toFixed(1)}" y="${y + 3}" width="${Math.max(1, x(end) - x(run.start)).toFixed(1)}" height="${lane - 6}">` +
            `<title>${escape(title)}</title></rect>`,
        )
        for (const at of run.announcedAt) svg.push(mark(EventFailing, at, 2))
        if (run.recoveredAt !== undefined) svg.push(mark(EventRecovered, run.recoveredAt, 3))
      }
    })
    svg.push(`</g>`)
  })
  svg.push(`</svg>`)

  const cell = (text: string) => `<td>${escape(text)}</td>`
  const table = [
    `<table><thead><tr>${["row", "settings", ...figureHeadings].map((h) => `<th>${h}</th>`).join("")}</tr></thead><tbody>`,
    ...rows.map(
      ({ figures: f, ...row }, r) =>
        `<tr class="row" data-row="${r}" data-failing="${f.failing}" data-runs="${f.runs}">${cell(row.label)}<td><code>${escape(settingsText(row.settings))}</code></td>` +
        `${figureCells(f).map(cell).join("")}</tr>`,
    ),
    `</tbody></table>`,
  ]
  return htmlPage(
    `${provider.resource} on ${provider.node}: ${input.file}`,
    [
      `body{font:14px system-ui,sans-serif;margin:16px;color:#222}`,
      `h1{font-size:18px;margin:0 0 4px}p{margin:2px 0 10px;color:#555}`,
      `table{border-collapse:collapse;margin:10px 0 16px}th,td{border:1px solid #ccc;padding:3px 8px;text-align:left}th{background:#f3f3f3}`,
      `code{font-size:12px}`,
      `.lane{fill:#f6f6f6}.band{fill:#f2b84b}.band.announced{fill:#e8554e}`,
      `.mark.failing{fill:#5a0d0a}.mark.recovered{fill:#2e8b57}.tick{stroke:#ddd}`,
      `.tick-label{font-size:11px;fill:#777;text-anchor:middle}.consumer-label{font-size:12px;font-weight:600}`,
      `.row-label{font-size:11px;fill:#555;text-anchor:end}.legend span{display:inline-block;width:14px;height:10px;margin:0 4px 0 12px}`,
    ],
    [
      `<h1>${escape(provider.resource)} provider on ${escape(provider.node)}: failing runs and announcements</h1>`,
      `<p>${escape(input.file)} · ${escape(axis.span)} · ${consumers.length} consumers with failing runs</p>`,
      `<p class="legend"><span style="background:#e8554e"></span>failing run, announced <span style="background:#f2b84b"></span>failing run, never announced ` +
        `<span style="background:#5a0d0a"></span>provisioner.failing <span style="background:#2e8b57"></span>provisioner.recovered</p>`,
      ...table,
      ...svg,
    ],
  )
}
