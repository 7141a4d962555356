// Module health (ADR 0240). "Reported applied" judged a module by what the mesh saw from outside, so
// a container that crash-looped after it applied passed the gate. Each machine's engine now states
// the health of every long-running resource it runs; the controller keeps the newest statement per
// machine and raises `module.<module>.<machine>.unhealthy` on the second statement in a row that says
// the module unhealthy, and clears it on the first that does not.
import type { Statement } from "./facts.ts"

/**
 * What the controller keeps of one machine's health: its newest statement, and per module how many
 * statements in a row said it unhealthy.
 */
export interface HealthKept {
  readonly statement: Statement
  readonly streaks: Readonly<Record<string, number>>
}

export const unhealthyKey = (module: string, machine: string) => `module.${module}.${machine}.unhealthy`

export interface Raised {
  readonly key: string
  readonly module: string
  readonly machine: string
  readonly at: number
  readonly summary: string
}

export interface HealthWords {
  readonly memory: HealthKept
  /** False when the statement was older than the one kept, and changed nothing. */
  readonly kept: boolean
  readonly raise: ReadonlyArray<Raised>
  readonly clear: ReadonlyArray<string>
}

const unhealthyModules = (s: Statement): Map<string, string> => {
  const out = new Map<string, string>()
  for (const r of s.resources) {
    if (r.state === "unhealthy" && !out.has(r.module)) out.set(r.module, `${r.resource}: ${r.reason ?? "unhealthy"}`)
  }
  return out
}

/** One statement heard: kept if it is newer than the one kept for its machine, and the conditions it raises or clears. */
export const hearStatement = (kept: HealthKept | null, s: Statement): HealthWords => {
  if (kept !== null && kept.statement.at >= s.at) return { memory: kept, kept: false, raise: [], clear: [] }
  const before = new Map(Object.entries(kept?.streaks ?? {}))
  const unhealthy = unhealthyModules(s)
  const streak = new Map<string, number>()
  const raise: Array<Raised> = []
  for (const [module, reason] of unhealthy) {
    const n = (before.get(module) ?? 0) + 1
    streak.set(module, n)
    if (n === 2) {
      raise.push({
        key: unhealthyKey(module, s.machine),
        module,
        machine: s.machine,
        at: s.at,
        summary: `${module} on ${s.machine} is stated unhealthy twice in a row: ${reason}`,
      })
    }
  }
  const clear = [...before].flatMap(([module, n]) =>
    !unhealthy.has(module) && n >= 2 ? [unhealthyKey(module, s.machine)] : [],
  )
  return { memory: { statement: s, streaks: Object.fromEntries(streak) }, kept: true, raise, clear }
}
