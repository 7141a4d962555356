// Module health (ADR 0240). "Reported applied" judged a module by what the mesh saw from outside, so
// a container that crash-looped after it applied passed the gate. Each machine's engine now states
// the health of every long-running resource it runs; the controller keeps the newest statement per
// machine and raises `module.<module>.<machine>.unhealthy` on the second statement in a row that says
// the module unhealthy, and clears it on the first that does not.
import type { Statement } from "./facts.ts"

export interface HealthMemory {
  /** The newest statement per machine. */
  readonly statements: ReadonlyMap<string, Statement>
  /** Per machine, per module: how many statements in a row said it unhealthy. */
  readonly streaks: ReadonlyMap<string, ReadonlyMap<string, number>>
}

export const freshHealth: HealthMemory = { statements: new Map(), streaks: new Map() }

export const unhealthyKey = (module: string, machine: string) => `module.${module}.${machine}.unhealthy`

export interface Raised {
  readonly key: string
  readonly module: string
  readonly machine: string
  readonly at: number
  readonly summary: string
}

export interface HealthWords {
  readonly memory: HealthMemory
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

/** One statement heard: kept if it is the newest for its machine, and the conditions it raises or clears. */
export const hearStatement = (memory: HealthMemory, s: Statement): HealthWords => {
  const was = memory.statements.get(s.machine)
  if (was !== undefined && was.at >= s.at) return { memory, kept: false, raise: [], clear: [] }
  const before = memory.streaks.get(s.machine) ?? new Map<string, number>()
  const unhealthy = unhealthyModules(s)
  const streak = new Map<string, number>()
  const raise: Array<Raised> = []
  const clear: Array<string> = []
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
  for (const [module, n] of before) if (!unhealthy.has(module) && n >= 2) clear.push(unhealthyKey(module, s.machine))
  return {
    memory: {
      statements: new Map(memory.statements).set(s.machine, s),
      streaks: new Map(memory.streaks).set(s.machine, streak),
    },
    kept: true,
    raise,
    clear,
  }
}
