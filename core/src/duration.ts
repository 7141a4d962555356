// Durations as the seeds write and read them (Go's time.Duration), in milliseconds.
// Settings on the command line (`--set failingAfter=2m`) and the words the provider says
// ("FAILING for 5m0s", "not healthy within 10m0s") keep the seeds' spelling, so a person can
// compare a replayed day with the journal it came from.

const unitMs: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }

/**
 * The longest duration any setting takes: 596h, just under the longest a timer waits (2^31 − 1 ms).
 * A longer wait fires at once in Node and a lease that long never ends once its holder dies (issue
 * 27: `MESH_LEASE_DURATION=99999999999h` and `push --wait 99999999999999999999h` were taken).
 */
const longestDuration = 596 * 3_600_000

/** Parses "5s", "2m", "1h30m", "250ms" or "0", up to 596h; answers undefined for anything else. */
export const parseDuration = (text: string): number | undefined => {
  if (text === "0") return 0
  const pattern = /(\d+(?:\.\d+)?)(ms|h|m|s)/gy
  let total = 0
  let consumed = 0
  for (const match of text.matchAll(pattern)) {
    total += Number(match[1]) * (unitMs[match[2]!] ?? Number.NaN)
    consumed += match[0].length
  }
  if (consumed === 0 || consumed !== text.length || !Number.isFinite(total) || total > longestDuration) return undefined
  return Math.round(total)
}

/** Go's Duration.String for a whole number of milliseconds: "0s", "250ms", "5s", "2m0s", "1h0m0s". */
export const formatDuration = (ms: number): string => {
  if (ms < 0) return `-${formatDuration(-ms)}`
  if (ms === 0) return "0s"
  if (ms < 1_000) return `${ms}ms`
  const hours = Math.floor(ms / 3_600_000)
  const minutes = Math.floor((ms % 3_600_000) / 60_000)
  const seconds = (ms % 60_000) / 1_000
  const s = `${Number(seconds.toFixed(3))}s`
  if (hours > 0) return `${hours}h${minutes}m${s}`
  if (minutes > 0) return `${minutes}m${s}`
  return s
}

/** Go's d.Round(time.Second): half away from zero. */
export const roundToSecond = (ms: number): number => Math.sign(ms) * Math.round(Math.abs(ms) / 1_000) * 1_000

/** RFC 3339 in UTC to the second, as Go's `t.UTC().Format(time.RFC3339)` writes it. */
export const rfc3339 = (epochMs: number): string =>
  new Date(Math.floor(epochMs / 1_000) * 1_000).toISOString().replace(".000Z", "Z")

/** From a day's first fact to its last, as a page and a summary say it; `no facts` for a day without any. */
export const spanText = (first: number | undefined, last: number | undefined): string =>
  first === undefined || last === undefined
    ? "no facts"
    : `${rfc3339(first)} to ${rfc3339(last)} (${formatDuration(roundToSecond(last - first))})`
