// What a provider's word does to the standings the controller keeps (novox/hq ADR 0224, hq issue
// 179: a provider's journal must not be the only place that says it keeps failing).
//
// One standing per provider, machine and consumer. The newest word wins, whatever the order words
// arrive in: a word older than the one kept changes nothing. A recovered word clears a failing
// standing, and is kept too (as a cleared standing), so a failing word said before it and delivered
// after it cannot bring the standing back. A recovered for a consumer never announced failing
// changes nothing anyone sees.
import { keyText, type StandingKey, type Word } from "./word.ts"

export interface Kept extends StandingKey {
  readonly state: "failing" | "recovered"
  /** When the word kept was said. */
  readonly at: number
  readonly consumerNode: string | undefined
  readonly class: string | undefined
  readonly error: string | undefined
  readonly since: string | undefined
  readonly attempts: number | undefined
  readonly why: string | undefined
}

export type Outcome = "failing" | "cleared" | "nothing-to-clear" | "older-than-kept"

const keptOf = (w: Word): Kept => w.event === "failing"
  ? {
    provider: w.provider, providerNode: w.providerNode, consumer: w.consumer, state: "failing", at: w.at,
    consumerNode: w.consumerNode, class: w.class, error: w.error, since: w.since, attempts: w.attempts, why: undefined,
  }
  : {
    provider: w.provider, providerNode: w.providerNode, consumer: w.consumer, state: "recovered", at: w.at,
    consumerNode: w.consumerNode, class: undefined, error: undefined, since: w.since, attempts: w.attempts, why: w.why,
  }

// Words said at the same millisecond are ordered all the same, so the outcome never depends on
// arrival: recovered after failing, then more attempts after fewer, then by text.
const rank = (k: Kept): string =>
  `${k.state === "recovered" ? 1 : 0}:${String(k.attempts ?? 0).padStart(12, "0")}:${k.error ?? ""}:${k.why ?? ""}`

const isNewer = (word: Kept, kept: Kept): boolean =>
  word.at !== kept.at ? word.at > kept.at : rank(word) > rank(kept)

/** One word against the standing kept for its key: the standing to keep, and what the word did. */
export const applyWord = (
  kept: Kept | undefined, word: Word,
): { readonly kept: Kept | undefined; readonly outcome: Outcome; readonly write: boolean } => {
  const candidate = keptOf(word)
  if (kept !== undefined && !isNewer(candidate, kept)) return { kept, outcome: "older-than-kept", write: false }
  if (word.event === "failing") return { kept: candidate, outcome: "failing", write: true }
  return { kept: candidate, outcome: kept?.state === "failing" ? "cleared" : "nothing-to-clear", write: true }
}

/**
 * A batch of words against the standings kept for their keys. Answers the standings to write (one
 * per key, the newest) and what each word did, in the order given.
 */
export const applyWords = (
  kept: ReadonlyMap<string, Kept>, words: ReadonlyArray<Word>,
): { readonly writes: ReadonlyArray<Kept>; readonly outcomes: ReadonlyArray<Outcome> } => {
  const now = new Map(kept)
  const changed = new Set<string>()
  const outcomes: Array<Outcome> = []
  for (const w of words) {
    const k = keyText(w)
    const r = applyWord(now.get(k), w)
    outcomes.push(r.outcome)
    if (r.write && r.kept !== undefined) {
      now.set(k, r.kept)
      changed.add(k)
    }
  }
  return { writes: [...changed].map((k) => now.get(k)!), outcomes }
}

export interface Status {
  readonly well: boolean
  readonly failing: ReadonlyArray<Kept>
}

/** The mesh is well only while no failing standing is kept. */
export const statusOf = (kept: Iterable<Kept>): Status => {
  const failing = [...kept].filter((k) => k.state === "failing").sort((a, b) => keyText(a).localeCompare(keyText(b)))
  return { well: failing.length === 0, failing }
}
