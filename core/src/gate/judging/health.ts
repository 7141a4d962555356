// Module health (ADR 0240). "Reported applied" judged a module by what the mesh saw from outside, so
// a container that crash-looped after it applied passed the gate. Each machine's engine now states
// the health of every long-running resource it runs; the controller keeps the newest statement per
// machine and raises `module.<module>.<machine>.unhealthy` on the second statement in a row that says
// the module unhealthy, and clears it on the first that does not.
import * as Schema from "effect/Schema"
import { type ObservationRecord, type Statement, StatementRecord } from "./facts.ts"

/**
 * What the store keeps of one machine's health: its newest statement and, per module, how many
 * statements in a row said it unhealthy (the `kept-statement` answer, the `write-statement` question).
 */
export const KeptHealth = Schema.Struct({
  statement: StatementRecord,
  streaks: Schema.Record(Schema.String, Schema.Number),
})
export type KeptHealth = typeof KeptHealth.Type

export const unhealthyKey = (module: string, machine: string) => `module.${module}.${machine}.unhealthy`

/** Who raises and clears a module's health condition: the controller hearing statements. */
export const healthSource = "DH"

export interface HealthWords {
  /** What the machine's health is now; undefined when the statement was older than the one kept, and changed nothing. */
  readonly keep: KeptHealth | undefined
  /** Each condition raised, at the time of the statement that raised it. */
  readonly raise: ReadonlyArray<{ readonly at: number; readonly observation: ObservationRecord }>
  readonly clear: ReadonlyArray<string>
}

/**
 * One statement heard against what was kept of its machine: the health to keep if it is the newest,
 * and the conditions it raises or clears. Each module is said by its first unhealthy resource.
 */
export const hearStatement = (kept: KeptHealth | null, s: Statement): HealthWords => {
  if (kept !== null && kept.statement.at >= s.at) return { keep: undefined, raise: [], clear: [] }
  const before = kept?.streaks ?? {}
  const streaks = new Map<string, number>()
  const raise: Array<HealthWords["raise"][number]> = []
  for (const r of s.resources) {
    if (r.state !== "unhealthy" || streaks.has(r.module)) continue
    const n = (Object.hasOwn(before, r.module) ? before[r.module]! : 0) + 1
    streaks.set(r.module, n)
    if (n !== 2) continue
    raise.push({
      at: s.at,
      observation: {
        key: unhealthyKey(r.module, s.machine),
        source: healthSource,
        scope: "module",
        id: `${r.module}.${s.machine}`,
        machine: s.machine,
        also: [],
        kind: "unhealthy",
        severity: "warning",
        summary: `${r.module} on ${s.machine} is stated unhealthy twice in a row: ${r.resource}: ${r.reason ?? "unhealthy"}`,
      },
    })
  }
  const clear: Array<string> = []
  for (const [module, n] of Object.entries(before))
    if (!streaks.has(module) && n >= 2) clear.push(unhealthyKey(module, s.machine))
  // Most statements say every module healthy: nothing to carry over.
  return { keep: { statement: s, streaks: streaks.size === 0 ? {} : Object.fromEntries(streaks) }, raise, clear }
}
