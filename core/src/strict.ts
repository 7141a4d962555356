// `simulate --strict` (issue 27): a replay that could not reproduce the day says so and ends non-zero.
// A recording that differs from the day once said "0 acts differ"; now every count that tells a replay
// from the day it replays — an act the core asked that is not the one recorded, an answer the
// recording did not have and the replay made up, an answer recorded that the replay never asked for
// — is a reason `--strict` refuses the day. A what-if (`--set`, `--sweep`) asks what another day would
// be, so it is not asked to reproduce this one.

/** What a replay counted of how it matched the day it replayed (a controller's or a provider's). */
export interface ReplayCounts {
  readonly inferred: number
  readonly unasked: number
  /** Acts not the ones recorded; a provider's replay compares its acts in `unasked`. */
  readonly differed?: number
}

/** `n` of something in words, or nothing when there are none. */
const counted = (n: number, one: string, many: string): ReadonlyArray<string> =>
  n === 0 ? [] : [n === 1 ? `1 ${one}` : `${n} ${many}`]

/** Why the replay does not reproduce the day, or undefined when it does. */
export const unreproduced = (c: ReplayCounts): string | undefined => {
  const parts = [
    ...counted(c.differed ?? 0, "act differs from the one recorded", "acts differ from the ones recorded"),
    ...counted(c.inferred, "answer was not recorded and was inferred", "answers were not recorded and were inferred"),
    ...counted(c.unasked, "recorded answer was never asked for", "recorded answers were never asked for"),
  ]
  return parts.length === 0 ? undefined : `--strict: the replay does not reproduce the day: ${parts.join("; ")}`
}

/** `--strict` beside a what-if, refused: the two ask different things of a replay. */
export const strictWithWhatIf = (set: ReadonlyArray<string>, sweep: ReadonlyArray<string>): string | undefined =>
  set.length === 0 && sweep.length === 0
    ? undefined
    : "--strict asks that the replay reproduce the day as recorded; --set and --sweep ask what another day would be: give one or the other"
