// What a provider's word does to the standings the controller keeps (novox/hq ADR 0224, hq issue
// 179: a provider's journal must not be the only place that says it keeps failing).
//
// One standing per provider, machine and consumer. The newest word wins, whatever the order words
// arrive in: a word older than the one kept changes nothing. A recovered word clears a failing
// standing, and is kept too (as a cleared standing), so a failing word said before it and delivered
// after it cannot bring the standing back. A recovered for a consumer never announced failing
// changes nothing anyone sees. A person may forget a failing standing (forget.ts); the forget is
// kept like a word, dated when it was made, so an older word cannot bring the standing back and a
// newer one still counts.
import { sha256Hex } from "../sha256.ts"
import type { KeptRecord } from "./questions.ts"
import { keyText, type Word } from "./word.ts"

/** A standing kept, as the write-standings question carries it: a word, or a person's forget (forget.ts). */
export type Kept = KeptRecord

export type StandingOutcome = "failing" | "cleared" | "nothing-to-clear" | "older-than-kept"

// Words said at the same millisecond are ordered all the same, so the outcome never depends on
// arrival: failing, then recovered, then a forget; then more attempts after fewer; then by a digest
// of everything else a standing keeps (any fixed order would do; a digest gives it a fixed width).
// Everything: with only the error, the why and who forgot it, two words of one millisecond differing
// in class (or node, since, or whether attempts was said) tied, and the one that arrived last was
// kept. Each field is escaped (`\` and `|`), an absent one is `\-`, and they are joined by `|`, so
// two standings that differ have different keys. Of attempts, only whether it was said (`+`): its
// count is already in the key before the digest, so the digest only meets counts that are equal,
// and a text without the count is one a provider repeats on every retry, remembered below (issue
// 11: the bench's digests were a tenth of the follower's time, each a fresh count). Migration 0012
// computes the same text in SQL.
const stateRank = { failing: 0, recovered: 1, forgotten: 2 } as const
// A text with neither `\` nor `|` is its own escape: most are (issue 30: the two replacements over
// every field of every standing written were a twelfth of making a batch's rows).
const digestField = (v: string | undefined): string =>
  v === undefined ? "\\-" : v.includes("\\") || v.includes("|") ? v.replaceAll("\\", "\\\\").replaceAll("|", "\\|") : v
// Remembered, since a provider says the same error for every consumer and every time (issue 11:
// the digest was a third of a batch's decisions); bounded, so memory stays flat whatever is said.
const digests = new Map<string, string>()
const textDigest = (k: Kept): string => {
  // Joined by hand rather than through an array: it is made for every standing written (issue 11).
  const text = `${digestField(k.error)}|${digestField(k.why)}|${digestField(k.by)}|${digestField(k.class)}|${digestField(k.consumerNode)}|${digestField(k.since)}|${k.attempts === undefined ? "\\-" : "+"}`
  let d = digests.get(text)
  if (d === undefined) {
    d = sha256Hex(text).slice(0, 16)
    if (digests.size >= 4_096) digests.clear()
    digests.set(text, d)
  }
  return d
}

/** Whether `word` is newer than `kept`: the one ordering rule of the standings. */
export const isNewer = (word: Kept, kept: Kept): boolean => {
  if (word.at !== kept.at) return word.at > kept.at
  if (word.state !== kept.state) return stateRank[word.state] > stateRank[kept.state]
  const [a, b] = [word.attempts ?? 0, kept.attempts ?? 0]
  if (a !== b) return a > b
  return textDigest(word) > textDigest(kept)
}

/**
 * The same ordering as a key of ASCII digits and hex, fixed width, so that comparing two keys as
 * bytes (PostgreSQL's `collate "C"`) answers exactly what isNewer answers (a property test holds
 * this). The store compares these keys in one conditional upsert (`… where excluded.word_order >
 * standings.word_order`): what is newer stays the core's decision; the store only compares the
 * keys the core made. Migration 0012 computes the same key for rows kept before it.
 */
export const orderOf = (k: Kept): string =>
  `${String(k.at).padStart(16, "0")}:${stateRank[k.state]}:${String(k.attempts ?? 0).padStart(10, "0")}:${textDigest(k)}`

/** One word against the standing kept for its key: the standing to keep, and what the word did. */
export const applyWord = (
  kept: Kept | undefined,
  word: Word,
): { readonly kept: Kept | undefined; readonly outcome: StandingOutcome; readonly write: boolean } => {
  if (kept !== undefined && !isNewer(word, kept)) return { kept, outcome: "older-than-kept", write: false }
  if (word.state === "failing") return { kept: word, outcome: "failing", write: true }
  return { kept: word, outcome: kept?.state === "failing" ? "cleared" : "nothing-to-clear", write: true }
}

/**
 * A batch of words against the standings kept for their keys. Answers the standings to write (one
 * per key, the newest) and what each word did, in the order given. With nothing kept (the follower
 * does not read first) the writes are the newest word per key, each to be compared with the row
 * kept by its orderOf key.
 */
export const applyWords = (
  kept: ReadonlyMap<string, Kept>,
  words: ReadonlyArray<Word>,
): { readonly writes: ReadonlyArray<Kept>; readonly outcomes: ReadonlyArray<StandingOutcome> } => {
  const now = new Map(kept)
  const changed = new Set<string>()
  const outcomes: Array<StandingOutcome> = []
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
