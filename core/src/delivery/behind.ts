// Which machines need a push (`push --behind`), how long to wait for one to apply what it was sent
// (`push <node> --wait D`), and what a push says of unmet seat dependencies.
import { formatDuration, parseDuration } from "../duration.ts"
import { compose, type Index } from "./compose.ts"
import type { ReportRecord } from "./questions.ts"

/** What a machine last reported of a declaration. */
export type Report = ReportRecord

/** A machine's report against the one kept: the newest said wins, whatever order they arrive in. */
export const newerReport = (
  kept: Pick<Report, "at" | "sequence"> | undefined,
  heard: Pick<Report, "at" | "sequence">,
): boolean => kept === undefined || heard.at > kept.at || (heard.at === kept.at && heard.sequence >= kept.sequence)

/** What a machine was last sent. */
export type Sent = Pick<Report, "digest" | "sequence">

/**
 * Whether a machine is not running what the mesh would send it now, composed under the sequence it
 * was last sent (so it is byte for byte what it was sent when nothing else changed); undefined when
 * it cannot be worked out.
 */
export const behindSent = (index: Index, node: string, last: Sent | undefined): boolean | undefined => {
  const would = compose(index, node, last?.sequence ?? 0)
  return would.ok ? last === undefined || would.digest !== last.digest : undefined
}

const when = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace("T", " ") + " UTC"

/**
 * The machines that need a push: those whose last declaration was refused or partly failed, and
 * every machine not running what the mesh would send it, compared by digest with what it was last
 * sent, composed under the sequence it was last sent (so it is byte for byte what it was sent when
 * nothing else changed; a fresh number would make every machine behind for ever). A machine that
 * cannot be worked out is left out here: that is a different problem with a different remedy.
 * Composed with what the plans hold, a machine behind only because a plan's build waits for its gate
 * is not behind (issue 259): `push --behind` during an open plan leaves the gated machines alone.
 */
export const behindSelection = (
  /** The records' index, or each machine's (core/src/delivery/held.ts indexFor: what plans hold, what it cannot host). */
  index: Index | ((node: string) => Index),
  nodes: ReadonlyArray<string>,
  reports: ReadonlyMap<string, Report>,
  sent: ReadonlyMap<string, Sent>,
  now: number,
): { readonly asked: ReadonlyArray<string>; readonly said: ReadonlyArray<string> } => {
  const asked: Array<string> = []
  const said: Array<string> = []
  for (const node of nodes) {
    const report = reports.get(node)
    if (report !== undefined && report.outcome !== "applied") {
      // A machine failing the same way for a long time will not stop because it was asked again:
      // said, and pushed to anyway, since this is a command somebody ran after fixing the cause.
      if (now - report.at > 6 * 3_600_000)
        said.push(
          `${node} has been ${report.outcome} since ${when(report.at)}; pushing again anyway, but the cause is unlikely to be timing`,
        )
      asked.push(node)
      continue
    }
    if (behindSent(typeof index === "function" ? index(node) : index, node, sent.get(node))) asked.push(node)
  }
  // "Nothing needed one" and "this did not run" must never look the same.
  if (asked.length === 0) said.push("every machine is doing what it was told")
  return { asked, said }
}

export type WaitVerdict =
  | { readonly done: false }
  | { readonly done: true; readonly ok: true; readonly said: string }
  | { readonly done: true; readonly ok: false; readonly error: string }

const stopped = (error: string): WaitVerdict => ({ done: true, ok: false, error })

/**
 * A named push waits until the machine reports applying exactly the declaration sent. A report of
 * failure or refusal for that same declaration ends the wait at once: the reason is the machine's own.
 */
export const waitVerdict = (
  node: string,
  digest: string,
  report: Report | undefined,
  now: number,
  deadline: number,
  wait: number,
): WaitVerdict => {
  if (digest === "") return { done: true, ok: true, said: "" }
  if (report !== undefined && report.digest === digest) {
    if (report.outcome === "applied") return { done: true, ok: true, said: `${node} applied it` }
    return stopped(
      report.outcome === "failed"
        ? `${node} applied what it was sent but ${report.failed.length} resource(s) failed`
        : `${node} refused what it was sent: ${report.refused ?? ""}`,
    )
  }
  if (now > deadline)
    return stopped(
      `${node} did not report applying what it was sent within ${formatDuration(wait)} (it may still be converging; check \`status\`)`,
    )
  return { done: false }
}

const unmetLines = (node: string, lines: ReadonlyArray<string>) => [
  `${node} has ${lines.length} unmet seat dependenc(ies) (novox/hq ADR 0207):`,
  ...lines.map((l) => `  ${l}`),
]

/**
 * Unmet seat dependencies, said after the sends: every line for a machine the push named (the one
 * somebody is looking at), one line per machine otherwise (a list per machine across the mesh is
 * the hundred lines that buried the one that mattered).
 */
export const unheldReport = (
  named: boolean,
  asked: ReadonlyArray<string>,
  unheld: ReadonlyMap<string, ReadonlyArray<string>>,
): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (const node of asked) {
    const lines = unheld.get(node) ?? []
    if (lines.length === 0) continue
    if (named) out.push("", ...unmetLines(node, lines))
    else out.push(`${node}: ${lines.length} unmet seat dependenc(ies) — see \`status\``)
  }
  return out
}

/**
 * What `serve` says of a machine's unmet seat dependencies after a send (seeds 002 and 004: serve is
 * "the one process whose log is read over time, so the one that says each change to a node's unmet seat
 * dependencies once", novox/hq ADR 0207): nothing when they are what it last said (none, before it said
 * any), else the new list in full, or that none is left.
 */
export const unheldChange = (node: string, before: ReadonlyArray<string> | undefined, now: ReadonlyArray<string>) => {
  const was = [...(before ?? [])].sort()
  const is = [...now].sort()
  if (was.length === is.length && was.every((l, i) => l === is[i])) return []
  return is.length === 0 ? [`${node} has no unmet seat dependency now (novox/hq ADR 0207)`] : unmetLines(node, is)
}

/** The push command's argument rules, as the seed's. */
export const pushArguments = (positionals: ReadonlyArray<string>, behind: boolean, wait = "0") => {
  if (positionals.length > 1) return { problem: "push [<node>] [--behind] — one node, or all of them" }
  const waitMs = parseDuration(wait)
  if (waitMs === undefined)
    return { problem: `--wait ${wait}: give a duration of at most 596h, as in --wait 30s (0: do not wait)` }
  // Issue 27: `push --wait 5s` with no machine waited for nothing and said so nowhere.
  if (waitMs > 0 && positionals.length === 0)
    return { problem: "--wait is for a named machine: push <node> --wait 30s waits until it reports applying" }
  // Naming a machine and asking for the ones that need it are two requests; guessing which was
  // meant would sometimes push to a machine somebody did not name.
  if (positionals.length === 1 && behind)
    return {
      problem: "push <node> or push --behind, not both: one names a machine and the other asks which machines need one",
    }
  return { node: positionals[0], waitMs }
}
