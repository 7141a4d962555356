// What the controller does with what it hears: a batch of providers' words (novox/hq ADR 0224, the
// newest per provider, machine and consumer), a machine's report of a declaration (the newest said
// wins, whatever order they arrive in), and a machine's health statement (ADR 0240: the newest per
// machine, `module.<m>.<machine>.unhealthy` on the second unhealthy in a row). Each runs inside one
// transaction of the store, which the shell opens around it; a store that fails it makes nothing
// kept, and the messages come again.
import { newerReport, type Report } from "../delivery/behind.ts"
import { hearStatement, type HealthMemory } from "../gate/health.ts"
import { applyWords, type Kept } from "../standings/standings.ts"
import { hear, keyText, type Word } from "../standings/word.ts"
import { readReport, readStatement } from "./messages.ts"
import { ask, type Program, say } from "./program.ts"
import type { KeptRecord, ReportRecord } from "./questions.ts"
import { statementOf } from "./records.ts"

/** A message as the bus delivered it: the event its subject carries, its body and headers. */
export interface Heard {
  readonly subject: string
  readonly event: string
  readonly body: string
  readonly saidAt?: string
  readonly seq: number
}

export const keptOf = (k: KeptRecord): Kept => ({
  provider: k.provider, providerNode: k.providerNode, consumer: k.consumer, state: k.state, at: k.at,
  consumerNode: k.consumerNode, class: k.class, error: k.error, since: k.since, attempts: k.attempts, why: k.why, by: k.by,
})

export const keptRecordOf = (k: Kept): KeptRecord => {
  const out: Record<string, unknown> = {}
  for (const [key, v] of Object.entries(k)) if (v !== undefined) out[key] = v
  return out as KeptRecord
}

/** A batch of providers' words, kept: the newest per key wins. Answers how many words it read. */
export function* keepWords(messages: ReadonlyArray<Heard>): Program<number> {
  const words: Array<Word> = []
  for (const m of messages) {
    const heard = hear(m.event, m.body, m.saidAt, undefined)
    if (heard.ok) words.push(heard.word)
    else yield* say(`[controller] ignored a word on ${m.subject} (stream sequence ${m.seq}): ${heard.why}`)
  }
  if (words.length === 0) return 0
  const keys = [...new Map(words.map((w) => [keyText(w), { provider: w.provider, providerNode: w.providerNode, consumer: w.consumer }])).values()]
  const kept = yield* ask({ q: "kept-standings", keys })
  const { writes } = applyWords(new Map(kept.map((k) => [keyText(k), keptOf(k)])), words)
  if (writes.length > 0) yield* ask({ q: "write-standings", writes: writes.map(keptRecordOf) })
  return words.length
}

export type KeptOrNot = "kept" | "older-than-kept" | "set-aside"

const reportOf = (r: ReportRecord): Report => ({
  node: r.node, digest: r.digest, sequence: r.sequence, outcome: r.outcome, at: r.at, refused: r.refused, failed: r.failed,
})

/** A machine's report of what a declaration came to: kept when it is newer than the one kept. */
export function* keepReport(m: Heard): Program<KeptOrNot> {
  const read = readReport(m.body)
  if (!read.ok) {
    yield* say(`[controller] ignored a report on ${m.subject} (stream sequence ${m.seq}): ${read.why}`)
    return "set-aside"
  }
  const kept = yield* ask({ q: "kept-report", node: read.value.node })
  if (!newerReport(kept === null ? undefined : reportOf(kept), reportOf(read.value))) return "older-than-kept"
  yield* ask({ q: "write-report", report: read.value })
  return "kept"
}

/** A machine's health statement: kept when newest, and the conditions it raises or clears. */
export function* keepStatement(m: Heard): Program<KeptOrNot> {
  const read = readStatement(m.body)
  if (!read.ok) {
    yield* say(`[controller] ignored a statement on ${m.subject} (stream sequence ${m.seq}): ${read.why}`)
    return "set-aside"
  }
  const s = read.value
  const kept = yield* ask({ q: "kept-statement", machine: s.machine })
  const memory: HealthMemory = kept === null
    ? { statements: new Map(), streaks: new Map() }
    : {
      statements: new Map([[s.machine, statementOf(kept.statement)]]),
      streaks: new Map([[s.machine, new Map(Object.entries(kept.streaks))]]),
    }
  const words = hearStatement(memory, statementOf(s))
  if (!words.kept) return "older-than-kept"
  const streaks = Object.fromEntries(words.memory.streaks.get(s.machine) ?? new Map<string, number>())
  yield* ask({ q: "write-statement", statement: s, streaks })
  for (const r of words.raise) {
    yield* ask({
      q: "raise-condition", at: r.at,
      observation: {
        key: r.key, source: "DH", scope: "module", id: `${r.module}.${r.machine}`, machine: r.machine, also: [], kind: "unhealthy",
        severity: "warning", summary: r.summary,
      },
    })
    yield* say(`[controller] raised ${r.key}: ${r.summary}`)
  }
  for (const key of words.clear) {
    yield* ask({ q: "clear-condition", key, by: "DH" })
    yield* say(`[controller] cleared ${key}`)
  }
  return "kept"
}
