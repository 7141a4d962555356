// The page of `simulate FILE --html OUT.html` (issue 11), read as text without a browser: "one
// self-contained page (no network, no CDN): per consumer a band for each failing run with the
// announcements marked, … with the settings it was replayed under; a sweep draws one row per value."
// What is drawn is counted against the runs the page was given, counted here apart from the code;
// where a band or a mark stands is checked against the time axis the lanes themselves span.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { formatDuration, rfc3339, roundToSecond } from "@mesh-core/core/duration"
import type { Decision } from "@mesh-core/core/provisioner/replay"
import { dayPage, type PageRow, replayRow, sweepRows } from "@mesh-core/core/provisioner/page"
import { defaultSettings, type Provider, type Settings } from "@mesh-core/core/provisioner/model"
import {
  type DayRuns,
  type FailureRun,
  providerSweepPoints,
  sweepEnd,
  sweepFact,
  sweepFigures,
  sweepReplay,
} from "@mesh-core/core/provisioner/sweep"
import { decisionsAlone, factsOf } from "../support/provider-facts.ts"
import { day, live, passwords, provider, settings, start } from "../support/days.ts"

// ---- reading the page ----

interface Tag {
  readonly name: string
  readonly cls: string
  readonly attrs: Readonly<Record<string, string>>
  /** The text up to the next tag, unescaped. */
  readonly text: string
}

const unescape = (s: string): string =>
  s
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&")

const tagsOf = (html: string): ReadonlyArray<Tag> =>
  [...html.matchAll(/<([a-zA-Z][\w-]*)((?:\s+[\w:-]+="[^"]*")*)\s*\/?>([^<]*)/g)].map((m) => {
    const attrs = Object.fromEntries([...m[2]!.matchAll(/([\w:-]+)="([^"]*)"/g)].map((a) => [a[1]!, unescape(a[2]!)]))
    return { name: m[1]!, cls: attrs["class"] ?? "", attrs, text: unescape(m[3]!) }
  })

const num = (t: Tag, a: string): number => {
  const v = Number(t.attrs[a])
  expect(Number.isFinite(v), `${t.name}.${t.cls} ${a}=${t.attrs[a]}`).toBe(true)
  return v
}

/** What follows a tag's opening (a band's or a mark's `<title>`). */
const titleAfter = (tags: ReadonlyArray<Tag>, t: Tag): string => {
  const next = tags[tags.indexOf(t) + 1]!
  expect(next.name).toBe("title")
  return next.text
}

// ---- what the page is given ----

const weird = ["letta", "grafana", 'a<b>&"c"', "z&amp;", "<script>x</script>"]
const oddProvider: Provider = { resource: "pg<&>", receives: "/run/x.json", node: 'hq "1"' }
const setting = fc.constantFrom(1_000, 5_000, 60_000, 300_000, 900_000)
const anySettings: fc.Arbitrary<Settings> = fc.record({
  every: setting,
  verifyEvery: setting,
  holdsTimeout: setting,
  failingAfter: setting,
  sayAgainEvery: setting,
})

const minute = 60_000
// Spans from minutes to months, so the time axis picks each of its steps.
const spans = [
  4 * minute,
  25 * minute,
  3 * 60 * minute,
  20 * 60 * minute,
  5 * 1440 * minute,
  40 * 1440 * minute,
  150 * 1440 * minute,
]

const runArb = (span: number): fc.Arbitrary<FailureRun> =>
  fc
    .record({
      consumer: fc.constantFrom(...weird),
      times: fc.uniqueArray(fc.integer({ min: 0, max: span / 1000 }), { minLength: 3, maxLength: 8 }),
      announced: fc.nat(4),
      ended: fc.boolean(),
      recovered: fc.boolean(),
    })
    .map(({ consumer, times, announced, ended, recovered }) => {
      const ts = [...times].sort((a, b) => a - b).map((s) => start + 7_000 + s * 1000)
      const end = ended ? ts[ts.length - 1] : undefined
      const lastFailure = ended ? ts[ts.length - 2]! : ts[ts.length - 1]!
      const announcedAt = ts.slice(1, 1 + announced).filter((t) => t <= lastFailure)
      return {
        consumer,
        start: ts[0]!,
        lastFailure,
        end,
        announcedAt,
        recoveredAt: recovered && end !== undefined && announcedAt.length > 0 ? end + 1000 : undefined,
      }
    })

const dayArb = (span: number): fc.Arbitrary<DayRuns> =>
  fc
    .record({
      runs: fc.array(runArb(span), { maxLength: 7 }),
      said: fc.nat(50),
      empty: fc.boolean(),
      before: fc.nat(span / 2000),
      after: fc.nat(span / 2000),
    })
    .map(({ runs, said, empty, before, after }) => {
      const times = runs.flatMap((r) => [r.start, r.lastFailure, r.end ?? r.start, r.recoveredAt ?? r.start])
      if (runs.length === 0 && empty)
        return { firstAt: undefined, lastAt: undefined, runs, failing: 0, recovered: 0, said: 0 }
      return {
        firstAt: Math.min(start + 7_000 + span, ...times) - before * 1000,
        lastAt: Math.max(start + 7_000, ...times) + after * 1000,
        runs,
        failing: runs.reduce((n, r) => n + r.announcedAt.length, 0),
        recovered: runs.filter((r) => r.recoveredAt !== undefined).length,
        said,
      }
    })

const pageArb = fc.constantFrom(...spans).chain((span) =>
  fc.record({
    rows: fc.array(
      fc.record({
        label: fc.constantFrom("as recorded", "failingAfter=2m", 'x<y>&"z"'),
        settings: anySettings,
        day: dayArb(span),
      }),
      { minLength: 1, maxLength: 4 },
    ),
    file: fc.constantFrom("day.facts.jsonl", 'a <b>&"c".jsonl'),
    provider: fc.constantFrom(provider, oddProvider),
  }),
)

const rowsOf = (rows: ReadonlyArray<{ label: string; settings: Settings; day: DayRuns }>): ReadonlyArray<PageRow> =>
  rows.map((r) => ({ ...r, figures: sweepFigures(r.day) }))

// ---- the rules, written from the words ----

const settingsWords = (s: Settings): string =>
  `every=${formatDuration(s.every)} verifyEvery=${formatDuration(s.verifyEvery)} holdsTimeout=${formatDuration(s.holdsTimeout)} ` +
  `failingAfter=${formatDuration(s.failingAfter)} sayAgainEvery=${formatDuration(s.sayAgainEvery)}`

const span = (ms: number): string => formatDuration(roundToSecond(ms))

/** The table's cells for a row, from its runs: the figures, counted here. */
const expectedCells = (row: { label: string; settings: Settings; day: DayRuns }): ReadonlyArray<string> => {
  const firsts = row.day.runs.filter((r) => r.announcedAt.length > 0).map((r) => r.announcedAt[0]! - r.start)
  firsts.sort((a, b) => a - b)
  // The median of an even count is the lower middle one.
  const toFirst =
    firsts.length === 0
      ? "never announced"
      : `${span(firsts[0]!)} / ${span(firsts[Math.ceil(firsts.length / 2) - 1]!)} / ${span(firsts.at(-1)!)}`
  let unannounced = 0
  for (const r of row.day.runs)
    unannounced +=
      (r.announcedAt.length > 0 ? r.announcedAt[0]! : r.end !== undefined ? r.end : r.lastFailure) - r.start
  const announcedRuns = firsts.length
  return [
    row.label,
    settingsWords(row.settings),
    String(row.day.failing),
    String(row.day.recovered),
    toFirst,
    `${(unannounced / minute).toFixed(1)} min`,
    `${row.day.runs.length} (${announcedRuns})`,
    String(row.day.said),
  ]
}

const allowedTags = new Set([
  "!doctype",
  "html",
  "head",
  "meta",
  "title",
  "style",
  "body",
  "h1",
  "p",
  "span",
  "table",
  "thead",
  "tbody",
  "tr",
  "th",
  "td",
  "code",
  "svg",
  "line",
  "text",
  "g",
  "rect",
])
const roundSteps = [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440, 2880, 10080, 20160]

const near = (a: number, b: number, what: string) =>
  expect(Math.abs(a - b), `${what}: ${a} against ${b}`).toBeLessThanOrEqual(0.11)

/** Every rule of the page for the rows it was given; the counts and positions found are returned for examples. */
const checkPage = (
  input: { file: string; provider: Provider; rows: ReadonlyArray<{ label: string; settings: Settings; day: DayRuns }> },
  html: string,
) => {
  const { rows } = input
  // Self-contained: no script, nothing fetched, nothing linked; the one URL is the SVG namespace.
  expect(
    [...html.matchAll(/<\/?([^\s>/]+)/g)].map((m) => m[1]!.toLowerCase()).filter((n) => !allowedTags.has(n)),
  ).toEqual([])
  expect([...html.matchAll(/(?:src|href)=|url\(|@import|https?:\/\/(?!www\.w3\.org\/2000\/svg")/g)]).toEqual([])
  expect(html.startsWith('<!doctype html>\n<html lang="en"><head><meta charset="utf-8">\n')).toBe(true)
  expect(html).toContain(
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
  )
  expect(html.endsWith("</svg>\n</body></html>\n")).toBe(true)
  // Every element opened is closed (a self-closed one needs no closing), and no text stands loose between the table and the drawing.
  for (const name of [
    "html",
    "head",
    "style",
    "body",
    "h1",
    "p",
    "span",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "code",
    "svg",
    "g",
    "text",
    "rect",
    "title",
    "line",
  ]) {
    const opened = [...html.matchAll(new RegExp(`<${name}(?=[\\s>])[^>]*>`, "g"))].filter(
      (m) => !m[0].endsWith("/>"),
    ).length
    expect(count(html, `</${name}>`), name).toBe(opened)
  }
  expect(html.slice(html.indexOf("</table>") + "</table>".length, html.indexOf("<svg"))).toBe("\n")
  for (const name of [
    ...weird,
    input.file,
    input.provider.resource,
    input.provider.node,
    ...rows.map((r) => r.label),
  ]) {
    const escaped = [...name].map((c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;" })[c] ?? c).join("")
    if (/[<>&"]/.test(name)) expect(html.split(escaped).join("").includes(name), name).toBe(false)
  }

  const tags = tagsOf(html)
  const one = (pred: (t: Tag) => boolean) => {
    const found = tags.filter(pred)
    expect(found.length).toBe(1)
    return found[0]!
  }
  const firstAts = rows.flatMap((r) => (r.day.firstAt === undefined ? [] : [r.day.firstAt]))
  const lastAts = rows.flatMap((r) => (r.day.lastAt === undefined ? [] : [r.day.lastAt]))
  const from = firstAts.length > 0 ? Math.min(...firstAts) : undefined
  const to = lastAts.length > 0 ? Math.max(...lastAts) : undefined
  const consumers = [...new Set(rows.flatMap((r) => r.day.runs.map((x) => x.consumer)))].sort()

  // The page's own title is the first; each band and mark has one of its own.
  expect(tags.find((t) => t.name === "title")!.text).toBe(
    `${input.provider.resource} on ${input.provider.node}: ${input.file}`,
  )
  expect(one((t) => t.name === "h1").text).toBe(
    `${input.provider.resource} provider on ${input.provider.node}: failing runs and announcements`,
  )
  const spanText =
    from === undefined || to === undefined ? "no facts" : `${rfc3339(from)} to ${rfc3339(to)} (${span(to - from)})`
  expect(tags.find((t) => t.name === "p" && t.cls === "")!.text).toBe(
    `${input.file} · ${spanText} · ${consumers.length} consumers with failing runs`,
  )

  // The legend says what each colour is: its swatches are the colours the bands and marks are filled with.
  const style = html.slice(html.indexOf("<style>"), html.indexOf("</style>"))
  const fill = (selector: string) =>
    style.match(new RegExp(`(?:^|[}\\n])${selector.replace(/\./g, "\\.")}\\{fill:(#[0-9a-f]{6})\\}`))?.[1]
  const swatches = [...html.matchAll(/<span style="([^"]*)"><\/span>([^<]*)/g)].map((m) => [m[1], m[2]])
  expect(swatches).toEqual([
    [`background:${fill(".band.announced")}`, "failing run, announced "],
    [`background:${fill(".band")}`, "failing run, never announced "],
    [`background:${fill(".mark.failing")}`, "provisioner.failing "],
    [`background:${fill(".mark.recovered")}`, "provisioner.recovered"],
  ])
  expect(new Set(swatches.map((s) => s[0])).size).toBe(4)
  for (const selector of [".lane", ".band", ".band.announced", ".mark.failing", ".mark.recovered"])
    expect(fill(selector), selector).toMatch(/^#/)
  // Styled by the page itself, no stylesheet fetched: every element and class it uses has its rule here.
  for (const selector of [
    "body{",
    "h1{",
    "p{",
    "table{",
    "th,td{",
    "th{",
    "code{",
    ".tick{stroke:",
    ".tick-label{",
    ".consumer-label{",
    ".row-label{",
    ".legend span{",
  ]) {
    expect(style, selector).toMatch(new RegExp(`(?:^|[}\\n])${selector.replace(/[.{]/g, "\\$&")}[^}]+\\}`))
  }

  // The table: one row per replay, in order, under the settings it was replayed with.
  const trs = tags.filter((t) => t.name === "tr" && t.cls === "row")
  expect(trs.map((t) => t.attrs["data-row"])).toEqual(rows.map((_, r) => String(r)))
  const cells = tags
    .filter((t) => t.name === "td" || t.name === "code")
    .map((t) => t.text)
    .filter((t) => t !== "")
  expect(cells).toEqual(rows.flatMap(expectedCells))
  trs.forEach((tr, r) => {
    expect(tr.attrs["data-failing"]).toBe(String(rows[r]!.day.failing))
    expect(tr.attrs["data-runs"]).toBe(String(rows[r]!.day.runs.length))
  })
  expect(tags.filter((t) => t.name === "th").map((t) => t.text)).toEqual([
    "row",
    "settings",
    "failing",
    "recovered",
    "first failure → first announcement (min / median / max)",
    "unannounced",
    "runs (announced)",
    "said",
  ])

  // The drawing: a group per consumer, in order of name; in it a lane per row, and on each lane that
  // row's bands and marks for the consumer, each band over its run and each mark at its moment.
  const svg = one((t) => t.name === "svg")
  const width = num(svg, "width"),
    height = num(svg, "height")
  expect(svg.attrs["viewBox"]).toBe(`0 0 ${width} ${height}`)
  expect(tags.filter((t) => t.name === "g").map((t) => t.attrs["data-consumer"])).toEqual(consumers)
  interface Lane {
    consumer: string
    row: number
    y: number
    h: number
    x: number
    w: number
    items: Array<Tag>
    labels: Array<Tag>
  }
  const lanes: Array<Lane> = []
  const consumerLabels: Array<Tag> = []
  let group: string | undefined
  for (const t of tags.slice(tags.indexOf(svg))) {
    if (t.name === "g") group = t.attrs["data-consumer"]
    else if (t.cls === "consumer-label") consumerLabels.push(t)
    else if (t.cls === "row-label")
      lanes.push({ consumer: group!, row: -1, y: 0, h: 0, x: 0, w: 0, items: [], labels: [t] })
    else if (t.cls === "lane") {
      const row = lanes.filter((l) => l.consumer === group && l.row >= 0).length
      const pending = lanes.at(-1)?.row === -1 ? lanes.pop()!.labels : []
      lanes.push({
        consumer: group!,
        row,
        y: num(t, "y"),
        h: num(t, "height"),
        x: num(t, "x"),
        w: num(t, "width"),
        items: [],
        labels: pending,
      })
    } else if (t.cls.startsWith("band") || t.cls.startsWith("mark")) lanes.at(-1)!.items.push(t)
  }
  expect(lanes.map((l) => [l.consumer, l.row])).toEqual(consumers.flatMap((c) => rows.map((_, r) => [c, r])))
  expect(consumerLabels.map((t) => t.text)).toEqual(consumers)

  const left = lanes[0]?.x ?? 0,
    plot = lanes[0]?.w ?? 0
  const pos = (t: number) =>
    left + (from === undefined || to === undefined ? 0 : (t - from) / (to > from ? to - from : 1)) * plot
  lanes.forEach((lane, i) => {
    expect([lane.x, lane.w]).toEqual([left, plot])
    expect(left + plot).toBeLessThanOrEqual(width)
    expect(lane.h).toBeGreaterThan(0)
    const prev = lanes[i - 1]
    if (prev !== undefined) expect(lane.y, "lanes stack without overlapping").toBeGreaterThan(prev.y + prev.h)
    expect(lane.y + lane.h).toBeLessThanOrEqual(height)
    // A row is named beside its lane when there are several; one row needs no name.
    expect(lane.labels.map((t) => t.text)).toEqual(rows.length > 1 ? [rows[lane.row]!.label] : [])
    for (const t of lane.labels) {
      expect(num(t, "x")).toBeLessThanOrEqual(left)
      expect(num(t, "y")).toBeGreaterThan(lane.y)
      expect(num(t, "y")).toBeLessThanOrEqual(lane.y + lane.h)
    }
    const runs = rows[lane.row]!.day.runs.filter((r) => r.consumer === lane.consumer)
    const bands = lane.items.filter((t) => t.cls.startsWith("band"))
    const failing = lane.items.filter((t) => t.cls === "mark failing")
    const recovered = lane.items.filter((t) => t.cls === "mark recovered")
    expect(bands.length + failing.length + recovered.length).toBe(lane.items.length)
    expect(bands.length).toBe(runs.length)
    expect(failing.length).toBe(runs.reduce((n, r) => n + r.announcedAt.length, 0))
    expect(recovered.length).toBe(runs.filter((r) => r.recoveredAt !== undefined).length)
    for (const t of lane.items) {
      expect(t.attrs["data-consumer"]).toBe(lane.consumer)
      expect(t.attrs["data-row"]).toBe(String(lane.row))
    }
    // The lane's items in order are each run's band, then its announcements, then its recovery.
    const expectedOrder = runs.flatMap((r) => [
      r.announcedAt.length > 0 ? "band announced" : "band",
      ...r.announcedAt.map(() => "mark failing"),
      ...(r.recoveredAt === undefined ? [] : ["mark recovered"]),
    ])
    expect(lane.items.map((t) => t.cls)).toEqual(expectedOrder)
    let k = 0
    for (const run of runs) {
      const band = lane.items[k++]!
      const end = run.end ?? run.lastFailure
      near(num(band, "x"), pos(run.start), "band's left edge at its first failure")
      near(num(band, "width"), Math.max(1, pos(end) - pos(run.start)), "band's width to its end")
      expect(num(band, "y")).toBeGreaterThanOrEqual(lane.y)
      expect(num(band, "y") + num(band, "height")).toBeLessThanOrEqual(lane.y + lane.h)
      expect(num(band, "height")).toBeGreaterThan(0)
      const title = titleAfter(tags, band)
      expect(title.startsWith(`${lane.consumer}: failing from ${rfc3339(run.start)} to ${rfc3339(end)}`)).toBe(true)
      expect(title.endsWith(run.end === undefined ? ", no success after" + afterWords(run) : afterWords(run))).toBe(
        true,
      )
      const marks = [
        ...run.announcedAt.map((at) => ["provisioner.failing", at] as const),
        ...(run.recoveredAt === undefined ? [] : [["provisioner.recovered", run.recoveredAt] as const]),
      ]
      for (const [event, at] of marks) {
        const mark = lane.items[k++]!
        near(num(mark, "x") + num(mark, "width") / 2, pos(at), `${event} mark centred on its moment`)
        expect(num(mark, "width")).toBeGreaterThan(0)
        // A mark crosses its own lane and no other.
        expect(num(mark, "y")).toBeLessThanOrEqual(lane.y)
        expect(num(mark, "y") + num(mark, "height")).toBeGreaterThanOrEqual(lane.y + lane.h)
        if (prev !== undefined && prev.consumer === lane.consumer)
          expect(num(mark, "y")).toBeGreaterThanOrEqual(prev.y + prev.h)
        const next = lanes[i + 1]
        if (next !== undefined) expect(num(mark, "y") + num(mark, "height")).toBeLessThanOrEqual(next.y)
        expect(titleAfter(tags, mark)).toBe(`${event} ${lane.consumer} at ${rfc3339(at)}`)
      }
    }
  })
  // Each consumer's name is at the head of its own group: after the lanes above it, not below its first.
  consumerLabels.forEach((t, c) => {
    const own = lanes.filter((l) => l.consumer === consumers[c])
    const above = lanes.filter((l) => l.consumer === consumers[c - 1]).at(-1)
    expect(num(t, "x")).toBeLessThan(left)
    // Beside its one lane when there is one row; above the first when the rows are named.
    if (rows.length === 1) expect(num(t, "y")).toBeGreaterThan(own[0]!.y)
    else expect(num(t, "y")).toBeLessThanOrEqual(own[0]!.y)
    expect(num(t, "y")).toBeLessThanOrEqual(own[0]!.y + own[0]!.h)
    if (above !== undefined) expect(num(t, "y")).toBeGreaterThan(above.y + above.h)
  })

  // The time axis: lines on round times, about a dozen across, each labelled with its own minute.
  const lines = tags.filter((t) => t.name === "line" && t.cls === "tick")
  const labels = tags.filter((t) => t.cls === "tick-label")
  expect(labels.length).toBe(lines.length)
  if (from === undefined || to === undefined) {
    expect(lines).toEqual([])
    return
  }
  const year = new Date(from).getUTCFullYear()
  const times = labels.map((t) => {
    const m = t.text.match(/^(\d\d)-(\d\d) (\d\d):(\d\d)$/)
    expect(m, t.text).not.toBeNull()
    // The label leaves the year out: it is the one that puts the time in the span.
    const inYear = (y: number) => Date.UTC(y, Number(m![1]) - 1, Number(m![2]), Number(m![3]), Number(m![4]))
    return inYear(year) >= from ? inYear(year) : inYear(year + 1)
  })
  lines.forEach((line, i) => {
    // With no consumer drawn there is no lane to measure the axis by.
    if (lanes.length > 0) near(num(line, "x1"), pos(times[i]!), `tick ${labels[i]!.text} at its time`)
    expect(line.attrs["x2"]).toBe(line.attrs["x1"])
    expect(labels[i]!.attrs["x"]).toBe(line.attrs["x1"])
    expect(num(labels[i]!, "y")).toBeLessThanOrEqual(num(line, "y1"))
    expect(num(labels[i]!, "y")).toBeGreaterThan(0)
    expect(num(line, "y1")).toBeLessThanOrEqual(Math.min(...lanes.map((l) => l.y)))
    expect(num(line, "y2")).toBeGreaterThanOrEqual(Math.max(0, ...lanes.map((l) => l.y + l.h)))
    expect(num(line, "y2")).toBeLessThanOrEqual(height)
    expect(times[i]!).toBeGreaterThanOrEqual(from)
    expect(times[i]!).toBeLessThanOrEqual(to)
  })
  const minutes = (to - from) / minute
  const step = roundSteps.find((m) => minutes / m <= 14) ?? roundSteps.at(-1)!
  const smaller = roundSteps[roundSteps.indexOf(step) - 1]
  // The step is the finest round one giving at most 14 intervals: a finer one gives more.
  if (smaller !== undefined) expect(minutes / smaller).toBeGreaterThan(14)
  for (const t of times) expect(t % (step * minute)).toBe(0)
  times.forEach((t, i) => {
    if (i > 0) expect(t - times[i - 1]!).toBe(step * minute)
  })
  // Every round time in the span has its line.
  const firstRound = Math.ceil(from / (step * minute)) * step * minute
  expect(times.length).toBe(firstRound > to ? 0 : Math.floor((to - firstRound) / (step * minute)) + 1)
  if (times.length > 0) expect(times[0]).toBe(firstRound)
}

const afterWords = (run: FailureRun): string =>
  run.announcedAt.length === 0
    ? ", never announced"
    : `, first announced after ${span(run.announcedAt[0]! - run.start)}, ${run.announcedAt.length} times`

// ---- replays, for the page of a real day ----

/** Failing runs per consumer from the calls alone: a failed call when the consumer was not failing begins one. */
const runsFromCalls = (decisions: ReadonlyArray<Decision>): Map<string, number> => {
  const failingNow = new Set<string>()
  const runs = new Map<string, number>()
  for (const d of decisions) {
    if (d.kind !== "called" || d.call === "remove") continue
    if (["unreadable", "error", "timed-out"].includes(d.outcome)) {
      if (!failingNow.has(d.as)) runs.set(d.as, (runs.get(d.as) ?? 0) + 1)
      failingNow.add(d.as)
    } else if (["held", "ok"].includes(d.outcome)) failingNow.delete(d.as)
  }
  return runs
}

const count = (html: string, pattern: string): number => html.split(pattern).length - 1

describe("the page of a replayed day", () => {
  it("draws every run it is given, each mark at its moment, names escaped, nothing fetched, one table row per replay", () => {
    fc.assert(
      fc.property(pageArb, (input) => {
        const rows = rowsOf(input.rows)
        checkPage(input, dayPage({ file: input.file, provider: input.provider, rows }))
      }),
      { numRuns: 300 },
    )
  })

  it("a sweep's page has a row per value, each under its settings, with a band per failing run and a mark per provisioner.failing its replay made", () => {
    fc.assert(
      fc.property(
        day,
        settings,
        passwords,
        fc.subarray(["0s", "10s", "1m", "5m", "20m"], { minLength: 2 }),
        (scripts, s, pw, values) => {
          const facts = factsOf(live(scripts, s, pw).facts, s)
          const points = providerSweepPoints([`failingAfter=${values.join(",")}`])
          if ("problem" in points) throw new Error(points.problem)
          const sweep = sweepReplay(points, { sayAgainEvery: 60_000 })
          for (const f of facts) sweepFact(sweep, f)
          const rows = sweepRows(sweepEnd(sweep), s, { sayAgainEvery: 60_000 })
          const html = dayPage({ file: "day.facts.jsonl", provider, rows })
          checkPage({ file: "day.facts.jsonl", provider, rows }, html)
          expect(count(html, `<tr class="row"`)).toBe(values.length)
          values.forEach((v, r) => {
            const decisions = decisionsAlone(facts, {
              failingAfter: rows[r]!.settings.failingAfter,
              sayAgainEvery: 60_000,
            })
            expect(rows[r]!.label).toBe(`failingAfter=${v}`)
            expect(rows[r]!.settings).toEqual({
              ...s,
              sayAgainEvery: 60_000,
              failingAfter: { "0s": 0, "10s": 10_000, "1m": 60_000, "5m": 300_000, "20m": 1_200_000 }[v],
            })
            for (const [consumer, n] of runsFromCalls(decisions)) {
              expect(
                count(html, `data-consumer="${consumer}" data-row="${r}" x=`) -
                  count(html, `<rect class="mark failing" data-consumer="${consumer}" data-row="${r}"`) -
                  count(html, `<rect class="mark recovered" data-consumer="${consumer}" data-row="${r}"`),
              ).toBe(n)
              expect(count(html, `<rect class="mark failing" data-consumer="${consumer}" data-row="${r}"`)).toBe(
                decisions.filter(
                  (d) => d.kind === "announced" && d.event === "provisioner.failing" && d.body.consumer === consumer,
                ).length,
              )
            }
          })
        },
      ),
      { numRuns: 60 },
    )
  })

  it("a plain replay is one row: 'as recorded', or the --set it was given, over the recorded settings", () => {
    const recorded: Settings = {
      every: 5_000,
      verifyEvery: 60_000,
      holdsTimeout: 30_000,
      failingAfter: 300_000,
      sayAgainEvery: 900_000,
    }
    const dayRuns: DayRuns = {
      firstAt: start,
      lastAt: start + 10 * minute,
      runs: [],
      failing: 0,
      recovered: 0,
      said: 3,
    }
    expect(replayRow(dayRuns, recorded, {}, [])).toMatchObject({
      label: "as recorded",
      settings: recorded,
      day: dayRuns,
    })
    const set = replayRow(dayRuns, recorded, { failingAfter: 120_000, every: 1_000 }, ["failingAfter=2m", "every=1s"])
    expect(set.label).toBe("failingAfter=2m every=1s")
    expect(set.settings).toEqual({ ...recorded, failingAfter: 120_000, every: 1_000 })
    expect(set.figures).toEqual({
      failing: 0,
      recovered: 0,
      said: 3,
      runs: 0,
      announcedRuns: 0,
      toFirst: undefined,
      unannounced: 0,
    })
    // A sweep's point goes over --set, which goes over what was recorded.
    const [row] = sweepRows(
      [
        {
          point: { label: "failingAfter=1m", values: [{ name: "failingAfter", text: "1m", value: 60_000 }] },
          day: dayRuns,
          figures: set.figures,
          inferred: 0,
        },
      ],
      recorded,
      { failingAfter: 120_000, every: 1_000 },
    )
    expect(row!.label).toBe("failingAfter=1m")
    expect(row!.settings).toEqual({ ...recorded, every: 1_000, failingAfter: 60_000 })
  })

  it("the issue-179 shape: one consumer failing, announced twice and recovered, the words on its band and marks and in the table", () => {
    const at = (m: number, s = 0) => Date.parse("2026-10-05T10:00:00Z") + m * minute + s * 1000
    const run: FailureRun = {
      consumer: "letta",
      start: at(1),
      lastFailure: at(20),
      end: at(21),
      announcedAt: [at(6), at(21)],
      recoveredAt: at(21, 5),
    }
    const dayRuns: DayRuns = { firstAt: at(0), lastAt: at(30), runs: [run], failing: 2, recovered: 1, said: 7 }
    const recorded: Settings = {
      every: 5_000,
      verifyEvery: 60_000,
      holdsTimeout: 30_000,
      failingAfter: 300_000,
      sayAgainEvery: 900_000,
    }
    const html = dayPage({
      file: "identity-issue-179.facts.jsonl.gz",
      provider,
      rows: [replayRow(dayRuns, recorded, {}, [])],
    })
    checkPage(
      {
        file: "identity-issue-179.facts.jsonl.gz",
        provider,
        rows: [{ label: "as recorded", settings: recorded, day: dayRuns }],
      },
      html,
    )
    expect(html).toContain(
      "<title>letta: failing from 2026-10-05T10:01:00Z to 2026-10-05T10:21:00Z, first announced after 5m0s, 2 times</title>",
    )
    expect(html).toContain("<title>provisioner.failing letta at 2026-10-05T10:06:00Z</title>")
    expect(html).toContain("<title>provisioner.recovered letta at 2026-10-05T10:21:05Z</title>")
    expect(html).toContain(
      "<p>identity-issue-179.facts.jsonl.gz · 2026-10-05T10:00:00Z to 2026-10-05T10:30:00Z (30m0s) · 1 consumers with failing runs</p>",
    )
    expect(html).toContain(
      `<tr class="row" data-row="0" data-failing="2" data-runs="1"><td>as recorded</td><td><code>every=5s verifyEvery=1m0s holdsTimeout=30s failingAfter=5m0s sayAgainEvery=15m0s</code></td>` +
        `<td>2</td><td>1</td><td>5m0s / 5m0s / 5m0s</td><td>5.0 min</td><td>1 (1)</td><td>7</td></tr>`,
    )
    // Half an hour: a line every 5 minutes, labelled with month, day and time.
    expect([...html.matchAll(/<text class="tick-label"[^>]*>([^<]*)</g)].map((m) => m[1])).toEqual([
      "10-05 10:00",
      "10-05 10:05",
      "10-05 10:10",
      "10-05 10:15",
      "10-05 10:20",
      "10-05 10:25",
      "10-05 10:30",
    ])
    expect(count(html, `class="row-label"`)).toBe(0)
  })

  it("a span of exactly fourteen five-minute steps is drawn in five-minute steps, its last moment included", () => {
    const at = Date.parse("2026-10-05T10:00:00Z")
    const run: FailureRun = {
      consumer: "letta",
      start: at + minute,
      lastFailure: at + 69 * minute,
      end: undefined,
      announcedAt: [],
      recoveredAt: undefined,
    }
    const dayRuns: DayRuns = { firstAt: at, lastAt: at + 70 * minute, runs: [run], failing: 0, recovered: 0, said: 0 }
    const html = dayPage({ file: "f", provider, rows: [replayRow(dayRuns, defaultSettings, {}, [])] })
    checkPage({ file: "f", provider, rows: [{ label: "as recorded", settings: defaultSettings, day: dayRuns }] }, html)
    expect(count(html, `<line class="tick"`)).toBe(15)
    expect(html).toContain(">10-05 11:10</text>")
  })

  it("a day whose facts all fall on one moment draws that moment at the left of the axis", () => {
    const at = Date.parse("2026-10-05T10:00:00Z")
    const run: FailureRun = {
      consumer: "letta",
      start: at,
      lastFailure: at,
      end: undefined,
      announcedAt: [at],
      recoveredAt: undefined,
    }
    const dayRuns: DayRuns = { firstAt: at, lastAt: at, runs: [run], failing: 1, recovered: 0, said: 0 }
    const html = dayPage({ file: "f", provider, rows: [replayRow(dayRuns, defaultSettings, {}, [])] })
    checkPage({ file: "f", provider, rows: [{ label: "as recorded", settings: defaultSettings, day: dayRuns }] }, html)
    expect(count(html, `<line class="tick"`)).toBe(1)
    expect(html).toContain(
      "<p>f · 2026-10-05T10:00:00Z to 2026-10-05T10:00:00Z (0s) · 1 consumers with failing runs</p>",
    )
  })

  it("a day with no facts draws no axis and says so", () => {
    const empty: DayRuns = { firstAt: undefined, lastAt: undefined, runs: [], failing: 0, recovered: 0, said: 0 }
    const html = dayPage({ file: "empty.jsonl", provider, rows: [replayRow(empty, defaultSettings, {}, [])] })
    checkPage(
      { file: "empty.jsonl", provider, rows: [{ label: "as recorded", settings: defaultSettings, day: empty }] },
      html,
    )
    expect(html).toContain("<p>empty.jsonl · no facts · 0 consumers with failing runs</p>")
    expect(html).toContain("<td>never announced</td><td>0.0 min</td><td>0 (0)</td>")
  })
})
