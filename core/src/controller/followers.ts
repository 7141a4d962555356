// What the controller does with what it hears: a batch of providers' words (novox/hq ADR 0224, the
// newest per provider, machine and consumer), a machine's report of a declaration (the newest said
// wins, whatever order they arrive in), and a machine's health statement (ADR 0240: the newest per
// machine, `module.<m>.<machine>.unhealthy` on the second unhealthy in a row). Each runs inside one
// transaction of the store, which the shell opens around it; a store that fails it makes nothing
// kept, and the messages come again.
import { newerReport, type Report } from "../delivery/behind.ts"
import { hearStatement, type HealthMemory } from "../gate/health.ts"
import { deadLetter, sortBatch } from "../standings/dead-letters.ts"
import { applyWords, type Kept } from "../standings/standings.ts"
import { readReport, readStatement } from "./messages.ts"
import { ask, type Program, say } from "./program.ts"
import type { DeadLetterRecord, KeptRecord, ReportRecord } from "./questions.ts"
import { statementOf } from "../gate/records.ts"

/** A message as the bus delivered it: the event its subject carries, its body and headers. */
export interface Heard {
  readonly subject: string
  readonly event: string
  readonly body: string
  readonly saidAt?: string
  readonly seq: number
  /** The stream that kept it: with seq, what names it among the messages set aside. */
  readonly stream?: string
  /** When the stream received it (epoch ms): a word said more than an hour later is refused (word.ts). */
  readonly receivedAt?: number
}

const letterOf = (kind: string, m: Heard, why: string): DeadLetterRecord =>
  deadLetter({ kind, stream: m.stream ?? "", subject: m.subject, streamSequence: m.seq, body: m.body, why })

/**
 * Sets messages aside, with why (issue 14): acknowledged like any other, never in the way of the
 * ones beside them, counted by status, and said once (a message whose acknowledgement was lost
 * comes again, and is found already set aside).
 */
function* setAside(what: string, letters: ReadonlyArray<DeadLetterRecord>): Program<void> {
  if (letters.length === 0) return
  const { fresh } = yield* ask({ q: "set-aside", letters })
  const isFresh = new Set(fresh)
  for (const d of letters) {
    if (isFresh.has(d.streamSequence)) yield* say(`[controller] set aside a ${what} on ${d.subject} (stream ${d.stream} sequence ${d.streamSequence}): ${d.why}`)
  }
}

export const keptOf = (k: KeptRecord): Kept => ({
  provider: k.provider, providerNode: k.providerNode, consumer: k.consumer, state: k.state, at: k.at,
  consumerNode: k.consumerNode, class: k.class, error: k.error, since: k.since, attempts: k.attempts, why: k.why, by: k.by,
})

/** A standing as the question carries it: a field not said is absent (in the order a standing has them). */
export const keptRecordOf = (k: Kept): KeptRecord => {
  // Field by field rather than over Object.entries: a thousand a batch (issue 11).
  const out: { -readonly [K in keyof KeptRecord]: KeptRecord[K] } = { provider: k.provider, providerNode: k.providerNode, consumer: k.consumer, state: k.state, at: k.at }
  if (k.consumerNode !== undefined) out.consumerNode = k.consumerNode
  if (k.class !== undefined) out.class = k.class
  if (k.error !== undefined) out.error = k.error
  if (k.since !== undefined) out.since = k.since
  if (k.attempts !== undefined) out.attempts = k.attempts
  if (k.why !== undefined) out.why = k.why
  if (k.by !== undefined) out.by = k.by
  return out
}

/**
 * A batch of providers' words, kept: sorted into the words to keep and the messages to set aside
 * (dead-letters.ts), the newest word per key written with one conditional upsert on the core's
 * order key (no read first: the store compares the keys the core made, issue 11). Answers how many
 * words it kept.
 */
export function* keepWords(messages: ReadonlyArray<Heard>): Program<number> {
  const { words, setAside: aside } = sortBatch(messages.map((m) => ({
    event: m.event, subject: m.subject, stream: m.stream ?? "", streamSequence: m.seq, body: m.body, saidAt: m.saidAt, receivedAt: m.receivedAt,
  })))
  yield* setAside("word", aside)
  const { writes } = applyWords(new Map(), words)
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
    yield* setAside("report", [letterOf("report", m, read.why)])
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
    yield* setAside("statement", [letterOf("statement", m, read.why)])
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
