// How a replayed day reads to a person: a timeline of what the provider said and announced, then
// what it comes to. Plain text, one decision a line; `--json` prints the decisions themselves.
import { formatDuration, rfc3339, roundToSecond } from "../duration.ts"
import type { Decision, ReplayState } from "./replay.ts"
import type { Provider } from "./model.ts"
import type { Summary } from "./summary.ts"

export const timelineLine = (d: Decision, provider: Provider): string | undefined => {
  // Calls are most decisions and are not on the timeline: their time is not written out for nothing.
  if (d.kind === "called") return undefined
  const when = rfc3339(d.at)
  if (d.kind === "said") return `${when}  said       [provisioner:${provider.resource}] ${d.text}`
  if (d.event === "provisioner.failing") {
    const b = d.body
    return (
      `${when}  ANNOUNCED  ${d.event} ${b.consumer} on ${b.node}: ${b.class} since ${b.since}, ` +
      `${b.attempts} attempts — ${b.error}`
    )
  }
  const b = d.body
  const since = b.since === undefined ? "" : ` (failing since ${b.since}, ${b.attempts} attempts)`
  return (
    `${when}  ANNOUNCED  ${d.event} ${b.consumer}${b.node === undefined ? "" : ` on ${b.node}`}` +
    `${b.why === undefined ? "" : ` why=${b.why}`}${since}`
  )
}

/** The decisions as JSON Lines: times in RFC 3339, everything else as decided. */
export const decisionJson = (d: Decision): string => JSON.stringify({ ...d, at: new Date(d.at).toISOString() })

/** What a replay counted (replay.ts ReplayState), and the facts read. */
export type ReplayCounts = Pick<ReplayState, "passes" | "inferred" | "unasked" | "cut" | "runs"> & {
  readonly facts: number
}

export const summaryLines = (s: Summary, counts: ReplayCounts): ReadonlyArray<string> => {
  const out: Array<string> = []
  const span =
    s.firstAt === undefined || s.lastAt === undefined
      ? "no facts"
      : `${rfc3339(s.firstAt)} to ${rfc3339(s.lastAt)} (${formatDuration(roundToSecond(s.lastAt - s.firstAt))})`
  out.push("", `summary: ${counts.facts} facts in ${counts.passes} passes, ${span}`)
  if (counts.runs > 1)
    out.push(`  runs: ${counts.runs} (the provider was restarted ${counts.runs - 1} times; memory empty from each)`)
  if (counts.cut > 0)
    out.push(
      `  cut short: ${counts.cut} passes ended with the recording (a restart or the end of the log), not guessed at`,
    )
  out.push(
    `  announcements: ${s.failing} provisioner.failing, ${s.recovered} provisioner.recovered; ${s.said} lines said`,
  )
  if (counts.inferred > 0 || counts.unasked > 0)
    out.push(
      `  what-if: ${counts.inferred} answers were not in the recording and were inferred; ` +
        `${counts.unasked} recorded answers were to questions not asked this time`,
    )
  const names = [...s.consumers.keys()].sort()
  out.push(`  consumers: ${names.length}`)
  for (const as of names) {
    const c = s.consumers.get(as)!
    out.push(`  ${as}: ${c.calls} calls, ${c.failures} failed`)
    if (c.runs.length === 0) out.push(`    never announced failing`)
    for (const run of c.runs) {
      const start = Date.parse(run.since)
      const end = run.recoveredAt ?? s.lastAt ?? start
      const lasted = formatDuration(roundToSecond(end - start))
      const ending =
        run.recoveredAt === undefined
          ? `still failing at the end of the log, ${lasted} in`
          : `recovered ${rfc3339(run.recoveredAt)} (${run.why}) after ${lasted}`
      out.push(
        `    failing since ${run.since} as ${run.class}, announced ${run.announcements} times, ` +
          `${run.attempts} attempts; ${ending}`,
      )
      out.push(`      last error: ${run.lastError}`)
    }
  }
  return out
}

export const summaryJson = (s: Summary, counts: ReplayCounts): string => {
  const consumers: Record<string, unknown> = {}
  for (const [as, c] of [...s.consumers].sort(([a], [b]) => a.localeCompare(b)))
    consumers[as] = {
      ...c,
      runs: c.runs.map(({ firstAnnouncedAt: _, ...r }) => ({
        ...r,
        recoveredAt: r.recoveredAt === undefined ? null : new Date(r.recoveredAt).toISOString(),
        why: r.why ?? null,
      })),
    }
  return JSON.stringify({ summary: { ...counts, failing: s.failing, recovered: s.recovered, consumers } })
}
