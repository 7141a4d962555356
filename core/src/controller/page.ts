// A replayed controller's day as a page to look at (`simulate FILE --html OUT.html`, issue 29): a
// lane per plan and tier over time (a tier named by its machines, as the `[gate]` line names it), each
// judging a mark (its hover the `[gate]` line the timeline prints),
// the verdict, the rollback and its sends, conditions as spans from raised to cleared, operators'
// verbs as flags; with `--sweep`, one row per point under each plan. One self-contained page, plain
// SVG, no script. Marks that would touch at the page's scale are drawn as one mark with a count, so a
// week's log stays readable; a verdict or a rollback is never folded into a count of judgings. Each
// kind has its own band of the lane, and marks of a band never overlap (a later one is moved right
// of the one before; its hover keeps its own time), so a verdict, its rollback and its sends, which
// share a moment, are each seen.
import { formatDuration, rfc3339, roundToSecond } from "../duration.ts"
import { axisHeight, escape, htmlPage, svgWithAxis, timeAxis } from "../page-drawing.ts"
import { saidKinds } from "./render.ts"
import type { ControllerDecision } from "./replay.ts"

export type MarkKind = "judging" | "verdict" | "rollback" | "send" | "verb"

export interface PageMark {
  readonly at: number
  readonly plan: string
  /** The plan's lane: `tier N (its machines)`, `the rest`, `put back` (aborted before a tier was judged), or the operator's `verbs`. */
  readonly lane: string
  readonly kind: MarkKind
  /** What the hover says: the line as the timeline prints it. */
  readonly line: string
  readonly failed: boolean
}

export interface ConditionSpan {
  readonly key: string
  readonly from: number
  /** Undefined while still raised at the end of the log. */
  readonly to: number | undefined
}

export interface DayModel {
  readonly marks: ReadonlyArray<PageMark>
  readonly conditions: ReadonlyArray<ConditionSpan>
  readonly first: number | undefined
  readonly last: number | undefined
}

/** Gathers the page's model program by program, as the replay decides. */
export const pageGatherer = () => {
  const marks: Array<PageMark> = []
  const spans: Array<ConditionSpan> = []
  const open = new Map<string, number>()
  let first: number | undefined
  let last: number | undefined
  // A plan aborted before any of its tiers was judged is put back in a lane of its own.
  const putBack = "put back"
  // Per plan, its tiers in the order first seen (a tier is sent before it is judged), by their machines.
  const tiers = new Map<string, Map<string, string>>()
  const lastTier = new Map<string, string>()
  const tierLane = (plan: string, machines: ReadonlyArray<string>): string => {
    const key = [...machines].sort().join(", ")
    const known = tiers.get(plan) ?? new Map<string, string>()
    tiers.set(plan, known)
    const lane = known.get(key) ?? `tier ${known.size + 1} (${machines.join(", ")})`
    known.set(key, lane)
    return lane
  }
  const add = (program: ReadonlyArray<ControllerDecision>): void => {
    if (program.length === 0) return
    const kinds = saidKinds(program)
    let n = 0
    // The plan this program judged last: a rollback and its sends belong to its lane.
    let plan = "gate"
    for (const d of program) {
      first ??= d.at
      last = d.at
      if (d.kind === "said") {
        const kind = kinds[n++]!
        if (kind === "judging" || kind === "verdict") {
          const judged = /^\[gate\] ([^:]+): [^:]*: gate on ([^:]+): /.exec(d.line)
          plan = judged?.[1] ?? /^\[gate\] ([^:]+): /.exec(d.line)?.[1] ?? plan
          const lane = judged === null ? "gate" : tierLane(plan, judged[2]!.split(", "))
          lastTier.set(plan, lane)
          const failed = kind === "verdict" && d.line.includes(": FAILED,")
          marks.push({ at: d.at, plan, lane, kind, line: d.line, failed })
        } else if (kind === "rollback")
          marks.push({ at: d.at, plan, lane: lastTier.get(plan) ?? putBack, kind, line: d.line, failed: true })
        continue
      }
      if (d.kind !== "act") continue
      const act = d.act
      if (act.q === "send-plan") {
        plan = act.plan
        const lane =
          act.why === "tier"
            ? tierLane(plan, act.machines)
            : act.why === "rest"
              ? "the rest"
              : act.why === "rollback"
                ? (lastTier.get(plan) ?? putBack)
                : "sent by a person"
        const line = `send of ${act.plan} (${act.why}) to ${act.machines.join(", ")}`
        marks.push({ at: d.at, plan, lane, kind: "send", line, failed: act.why === "rollback" })
      } else if (act.q === "raise-condition") {
        if (!open.has(act.observation.key)) open.set(act.observation.key, d.at)
      } else if (act.q === "clear-condition") {
        const from = open.get(act.key)
        if (from !== undefined) {
          spans.push({ key: act.key, from, to: d.at })
          open.delete(act.key)
        }
      }
    }
    const { at, ...start } = program[0]!
    if (start.kind !== "started" && start.input === "verb")
      marks.push({ at, plan: "operator", lane: "verbs", kind: "verb", line: "an operator's verb", failed: false })
  }
  const result = (): DayModel => ({
    marks,
    conditions: [...spans, ...[...open].map(([key, from]) => ({ key, from, to: undefined }))],
    first,
    last,
  })
  return { add, result }
}

/** Marks as drawn: those of one kind closer than `apart` folded into one, with their count. */
export interface DrawnMark extends Omit<PageMark, "plan" | "lane"> {
  readonly count: number
}

export const drawnMarks = (marks: ReadonlyArray<PageMark>, apart: number): ReadonlyArray<DrawnMark> => {
  const out: Array<DrawnMark> = []
  const lastOf = new Map<string, number>()
  for (const m of [...marks].sort((a, b) => a.at - b.at)) {
    // A failed verdict or a rollback is drawn on its own: folding it would hide the day's news.
    const key = `${m.kind}${m.failed ? "!" : ""}`
    const i = lastOf.get(key)
    const prev = i === undefined ? undefined : out[i]
    if (prev !== undefined && !m.failed && m.at - prev.at < apart) {
      const count = prev.count + 1
      out[i!] = { ...prev, count, line: `${count} ${m.kind}s from ${rfc3339(prev.at)}; last: ${m.line}` }
      continue
    }
    lastOf.set(key, out.length)
    out.push({ at: m.at, kind: m.kind, count: 1, failed: m.failed, line: m.line })
  }
  return out
}

/** Each kind's band of a lane, from the top. */
const bandOf: Readonly<Record<MarkKind, number>> = { judging: 0, verdict: 1, rollback: 2, send: 3, verb: 0 }
const bands = 4

/**
 * Where each mark is drawn: in its kind's band, at its time, or just right of the mark before it in
 * the band when they would overlap.
 */
export const placedMarks = (drawn: ReadonlyArray<DrawnMark>, x: (t: number) => number) => {
  const right = new Map<number, number>()
  return [...drawn]
    .sort((a, b) => a.at - b.at)
    .map((m) => {
      const band = bandOf[m.kind]
      const width = m.kind === "judging" && m.count === 1 ? 2 : 5
      const left = Math.max(x(m.at) - width / 2, (right.get(band) ?? Number.NEGATIVE_INFINITY) + 1)
      right.set(band, left + width)
      return { ...m, band, left, width }
    })
}

const labelWidth = 260
const band = 7
const lane = bands * band + 4

/** A row of the page: what it is (the settings it was replayed under), its day, and its verdicts. */
export const controllerRow = (label: string, day: DayModel) => ({
  label,
  day,
  verdicts: {
    passed: day.marks.filter((m) => m.kind === "verdict" && !m.failed).length,
    failed: day.marks.filter((m) => m.kind === "verdict" && m.failed).length,
    rollbacks: day.marks.filter((m) => m.kind === "rollback").length,
  },
})

export type ControllerPageRow = ReturnType<typeof controllerRow>

export const controllerPage = (input: { readonly file: string; readonly rows: ReadonlyArray<ControllerPageRow> }) => {
  const { rows } = input
  const axis = timeAxis(
    rows.map((r) => r.day),
    labelWidth,
  )
  const { x, inner, length } = axis
  // Two marks closer than 4 pixels would touch.
  const apart = (4 / inner) * length
  // A lane per plan and tier: by plan, then in the order the plan first reached each.
  const firstAt = new Map<string, { readonly plan: string; readonly lane: string; readonly at: number }>()
  for (const m of rows.flatMap((r) => r.day.marks)) {
    const key = `${m.plan}\u0000${m.lane}`
    const seen = firstAt.get(key)
    if (seen === undefined || m.at < seen.at) firstAt.set(key, { plan: m.plan, lane: m.lane, at: m.at })
  }
  const lanes = [...firstAt.values()].sort((a, b) => (a.plan < b.plan ? -1 : a.plan > b.plan ? 1 : a.at - b.at))
  const keys = [...new Set(rows.flatMap((r) => r.day.conditions.map((c) => c.key)))].sort()
  const named = [
    ...lanes.map((l) => ({ kind: "plan", name: l.plan, lane: l.lane })),
    ...keys.map((k) => ({ kind: "condition", name: k, lane: undefined })),
  ]
  const nameHeight = rows.length > 1 ? 16 : 0
  const groupHeight = nameHeight + rows.length * lane + 8
  const height = axisHeight + Math.max(1, named.length) * groupHeight + 10
  const svg = svgWithAxis(axis, height)
  named.forEach((g, i) => {
    const top = axisHeight + i * groupHeight
    const laneAttr = g.lane === undefined ? "" : ` data-lane="${escape(g.lane)}"`
    svg.push(`<g class="${g.kind}" data-name="${escape(g.name)}"${laneAttr}>`)
    // The lane is named after the plan when rows are named under it, else on a line of its own.
    const laneName = g.lane === undefined ? undefined : escape(g.lane)
    svg.push(
      `<text class="name" x="4" y="${top + 12}">${escape(g.name)}${nameHeight > 0 && laneName !== undefined ? ` · ${laneName}` : ""}</text>`,
    )
    if (nameHeight === 0 && laneName !== undefined)
      svg.push(`<text class="lane-label" x="4" y="${top + 25}">${laneName}</text>`)
    rows.forEach((row, r) => {
      const y = top + nameHeight + r * lane
      if (rows.length > 1)
        svg.push(`<text class="row-label" x="${labelWidth - 6}" y="${y + lane - 9}">${escape(row.label)}</text>`)
      svg.push(`<rect class="lane" x="${labelWidth}" y="${y + 2}" width="${inner}" height="${lane - 4}"/>`)
      if (g.kind === "condition") {
        for (const c of row.day.conditions.filter((c) => c.key === g.name)) {
          const end = c.to ?? axis.to
          const title = `${c.key}: raised ${rfc3339(c.from)}, ${c.to === undefined ? "still raised at the end" : `cleared ${rfc3339(c.to)} (${formatDuration(roundToSecond(c.to - c.from))})`}`
          svg.push(
            `<rect class="span" data-row="${r}" x="${x(c.from).toFixed(1)}" y="${y + 6}" width="${Math.max(2, x(end) - x(c.from)).toFixed(1)}" height="${lane - 12}"><title>${escape(title)}</title></rect>`,
          )
        }
        return
      }
      const ours = row.day.marks.filter((m) => m.plan === g.name && m.lane === g.lane)
      for (const m of placedMarks(drawnMarks(ours, apart), x)) {
        const cls = `mark ${m.kind}${m.failed ? " failed" : ""}${m.count > 1 ? " aggregate" : ""}`
        const top = y + 2 + m.band * band
        svg.push(
          `<g class="${cls}" data-row="${r}" data-count="${m.count}" data-at="${m.at}"><rect x="${m.left.toFixed(1)}" y="${top}" width="${m.width}" height="${band}"/>` +
            (m.count > 1
              ? `<text class="count" x="${(m.left + m.width + 1).toFixed(1)}" y="${top + band}">${m.count}</text>`
              : "") +
            `<title>${escape(m.line)}</title></g>`,
        )
      }
    })
    svg.push(`</g>`)
  })
  svg.push(`</svg>`)
  const table = [
    `<table><thead><tr><th>row</th><th>verdicts passed</th><th>verdicts failed</th><th>rollbacks</th></tr></thead><tbody>`,
    ...rows.map(
      (row, r) =>
        `<tr class="row" data-row="${r}" data-failed="${row.verdicts.failed}" data-rollbacks="${row.verdicts.rollbacks}"><td>${escape(row.label)}</td>` +
        `<td>${row.verdicts.passed}</td><td class="${row.verdicts.failed > 0 ? "bad" : ""}">${row.verdicts.failed}</td><td>${row.verdicts.rollbacks}</td></tr>`,
    ),
    `</tbody></table>`,
  ]
  return htmlPage(
    `release gate: ${input.file}`,
    [
      `body{font:14px system-ui,sans-serif;margin:16px;color:#222}h1{font-size:18px;margin:0 0 4px}p{margin:2px 0 10px;color:#555}`,
      `table{border-collapse:collapse;margin:10px 0 16px}th,td{border:1px solid #ccc;padding:3px 8px;text-align:left}th{background:#f3f3f3}td.bad{color:#b00;font-weight:600}`,
      `.lane{fill:#f6f6f6}.tick{stroke:#ddd}.tick-label{font-size:11px;fill:#777;text-anchor:middle}.name{font-size:12px;font-weight:600}.lane-label{font-size:11px;fill:#555}`,
      `.row-label{font-size:11px;fill:#555;text-anchor:end}.count{font-size:8px;fill:#333}.span{fill:#f2b84b}`,
      `.judging rect{fill:#8aa4c8}.verdict rect{fill:#2e8b57}.verdict.failed rect{fill:#c0392b}.rollback rect{fill:#5a0d0a}`,
      `.send rect{fill:#6a5acd}.send.failed rect{fill:#e67e22}.verb rect{fill:#111}`,
      `.legend span{display:inline-block;width:14px;height:10px;margin:0 4px 0 12px}`,
    ],
    [
      `<h1>The release gate's day: judgings, verdicts, rollbacks</h1>`,
      `<p>${escape(input.file)} · ${escape(axis.span)} · ${new Set(lanes.map((l) => l.plan)).size} plans in ${lanes.length} lanes, ${keys.length} conditions</p>`,
      `<p class="legend"><span style="background:#8aa4c8"></span>judging <span style="background:#2e8b57"></span>passed ` +
        `<span style="background:#c0392b"></span>FAILED <span style="background:#5a0d0a"></span>rollback <span style="background:#6a5acd"></span>send ` +
        `<span style="background:#e67e22"></span>rollback send <span style="background:#f2b84b"></span>condition raised <span style="background:#111"></span>operator's verb · in each lane, from the top: judgings, verdicts, rollbacks, sends · a number: marks folded into one</p>`,
      ...table,
      ...svg,
    ],
  )
}
