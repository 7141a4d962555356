// `status` as the one place a person looks (issue 9): the failing standings, the open conditions (an
// urgent one makes the mesh not well: a failed rollback, a core component put back, an unhealthy
// module), the release plans in flight, the machines they hold back, and what could not be read.
//
// **What cannot be read is never well** (seed 004: a store of conditions that cannot be opened makes
// status "not well — louder than not serving at all"): the conditions unreadable is not well, exit 1,
// never a quiet 0 over a mesh nobody could look at. Exit 3 only when nothing at all could be read.
import type { PlanRecord } from "../gate/plan/records.ts"
import { type Hold, holdJson } from "../delivery/held.ts"
import { inFlight, phaseOf, putBackLeft, unsentOf } from "../gate/plan/plan.ts"
import { rfc3339 } from "../duration.ts"
import type { Readable } from "../outcome.ts"
import { plural, staleWords, statusJson, statusLines } from "../standings/render.ts"
import type { Status } from "../standings/status.ts"
import { failingStandingKind } from "../standings/conditions.ts"
import { type OpenCondition, openConditions } from "./conditions.ts"

export type { OpenCondition } from "./conditions.ts"

export interface StatusInputs {
  readonly standings: Readable<Status>
  readonly conditions: Readable<ReadonlyArray<OpenCondition>>
  readonly plans: Readable<ReadonlyArray<PlanRecord>>
  /** What the plans in flight hold back now (core/src/delivery/held.ts, asked as a sweep). */
  readonly held: Readable<ReadonlyArray<Hold>>
}

/** The machines a send has yet to reach, or that it has reached them all. */
export const left = (machines: ReadonlyArray<string>): string =>
  machines.length === 0 ? "every machine has been sent it" : `${machines.join(", ")} not sent yet`

const planLine = (p: PlanRecord): string => {
  const where =
    p.state === "sending"
      ? `sending the rest: ${left(unsentOf(p))}`
      : p.state === "rolling-back"
        ? `putting back ${p.putBack?.build ?? "the previous build"}: ${left(putBackLeft(p))}`
        : phaseOf(p)
  return `  plan ${p.id}: ${p.module} ${p.build}, ${p.state} — ${where}${(p.tries ?? 0) > 0 ? ` (${plural(p.tries!, "try", "tries")} so far)` : ""}`
}

/**
 * Urgent for `status`: what the condition says of itself, and a module a machine says is unhealthy
 * (issue 9). The health follower raises that one as a warning — for the gate it is one observation
 * among many — but a module not serving is the mesh not well, whatever a plan makes of it.
 */
const isUrgent = (c: OpenCondition): boolean => c.severity === "urgent" || c.kind === "unhealthy"

/**
 * Whether the mesh is well; its exit code (0 well, 1 not well, 3 nothing could be read); its lines and
 * JSON; what could not be read, and why; and what is said on standard error when nothing could be read
 * (exit 3): every reason, each once.
 */
export const wholeStatus = (i: StatusInputs) => {
  const sources = [
    { what: "the standings", r: i.standings },
    { what: "the conditions", r: i.conditions },
    { what: "the release plans", r: i.plans },
    { what: "what the plans hold", r: i.held },
  ]
  const unread = sources.flatMap((s) => (s.r.ok ? [] : [{ what: s.what, why: s.r.why }]))
  // One list of what is wrong (issue 28): the failing standings as conditions, then the store's.
  const standings = i.standings.ok ? i.standings.value : undefined
  const conditions = openConditions(standings, i.conditions.ok ? i.conditions.value : undefined)
  const urgent = conditions.filter(isUrgent)
  const warnings = conditions.filter((c) => !isUrgent(c))
  const plans = i.plans.ok ? i.plans.value.filter(inFlight) : []
  const held = i.held.ok ? i.held.value : []
  const failing = urgent.filter((c) => c.kind === failingStandingKind).length
  const otherUrgent = urgent.filter((c) => c.kind !== failingStandingKind)
  const well = unread.length === 0 && urgent.length === 0
  const code: 0 | 1 | 3 = unread.length === sources.length ? 3 : well ? 0 : 1

  const lines: Array<string> = []
  if (code === 3) lines.push("mesh: NOT KNOWN — nothing could be read")
  else if (well)
    lines.push(
      `mesh: well — no provider is failing any consumer, no urgent condition is open${warnings.length > 0 ? ` (${plural(warnings.length, "warning")})` : ""}`,
    )
  else {
    const stale = standings === undefined ? "" : staleWords(standings)
    const why = [
      otherUrgent.length > 0 ? `${plural(otherUrgent.length, "urgent condition")} open` : "",
      failing > 0 ? `${plural(failing, "failing standing")} (a provider keeps failing a consumer)${stale}` : "",
      ...unread.map((u) => `${u.what} cannot be read`),
    ]
    lines.push(`mesh: NOT WELL — ${why.filter((w) => w !== "").join("; ")}`)
  }
  for (const u of unread) lines.push(`${u.what} cannot be read: ${u.why}`)
  if (standings !== undefined) lines.push(...statusLines(standings).slice(1))
  // A failing standing's words are the standings' own lines above, as status has always said them.
  for (const c of otherUrgent)
    lines.push(
      `URGENT ${c.key}${c.resolver === "operator" ? " (for a person)" : ""}, raised ${rfc3339(c.raised)} by ${c.source}: ${c.summary}`,
    )
  for (const c of warnings) lines.push(`warning ${c.key}, raised ${rfc3339(c.raised)} by ${c.source}: ${c.summary}`)
  if (plans.length > 0) lines.push(`${plural(plans.length, "release plan")} in flight:`, ...plans.map(planLine))
  if (held.length > 0) {
    lines.push(`${plural(new Set(held.map((h) => h.machine)).size, "machine")} held back by a plan:`)
    for (const h of held)
      lines.push(`  ${h.machine}: ${h.module} ${h.build === "" ? "not sent at all" : `stays at ${h.build}`}, ${h.why}`)
  }

  const raisedAt = (c: OpenCondition) => ({ ...c, raised: rfc3339(c.raised) })
  const json: Record<string, unknown> = {
    ...(standings === undefined ? { failing: null } : (JSON.parse(statusJson(standings)) as Record<string, unknown>)),
    well,
    code,
    conditions: i.conditions.ok ? { urgent: urgent.map(raisedAt), warnings: warnings.map(raisedAt) } : null,
    plans: i.plans.ok
      ? plans.map((p) => ({
          id: p.id,
          module: p.module,
          build: p.build,
          state: p.state,
          tier: (p.tier ?? 0) + 1,
          tiers: p.tiers ?? [p.machines],
          sent: p.sent ?? p.machines,
          note: p.note,
        }))
      : null,
    held: i.held.ok ? held.map(holdJson) : null,
    unread,
  }
  const stopped = code === 3 ? [...new Set(unread.map((u) => u.why))].join("\n") : ""
  return { well, code, lines, json, unread, stopped }
}
export type WholeStatus = ReturnType<typeof wholeStatus>
