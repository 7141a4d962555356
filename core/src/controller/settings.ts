// The controller's settings as rules: what `serve` reads from its environment once at start, and
// refuses there with one line (exit 2) rather than falling back in silence (issue 8: a mistyped
// MESH_GATE_PASSES used to become 3 without a word). The shell reads them through Effect's Config
// with these Schemas; a fact log's header records the gate's in the same spelling.
import * as Schema from "effect/Schema"
import { formatDuration, parseDuration } from "../duration.ts"
import type { GateSettings } from "../gate/judging/judge.ts"

/** A duration longer than 0s, in Go's spelling (250ms, 3s, 2m, 1h30m). */
export const PositiveDuration = Schema.String.check(
  Schema.makeFilter(
    (s: string) =>
      (parseDuration(s) ?? 0) > 0 || "give a duration longer than 0s and at most 596h, as in 3s (250ms, 2m, 1h30m)",
  ),
)

/** A setting's text that `pattern` matches, or `problem`. */
const matching = (pattern: RegExp, problem: string) =>
  Schema.String.check(Schema.makeFilter((s: string) => pattern.test(s) || problem))

/** A count setting: a whole number from 1 to 999999. */
const wholeNumber = (of: string, example: number) =>
  matching(/^[1-9][0-9]{0,5}$/, `give a whole number of ${of}, at least 1, as in ${example}`)

/** MESH_GATE_PASSES: how many judgings in a row must find the build healthy. */
export const PassesSetting = wholeNumber("passes", 3)

/** MESH_GATE_ERROR_LIMIT: how many judgings in a row may fail to ask before a plan is paused. */
export const ErrorLimitSetting = wholeNumber("judgings", 4)

/**
 * MESH_BUS_PREFIX: put before every subject (`P.`) and stream (`P_`): a bus subject's tokens, with no
 * space or wildcard, or nothing.
 */
export const BusPrefixSetting = matching(
  /^([A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*)?$/,
  "letters, digits, _ and - in dot-separated tokens, or nothing",
)

/**
 * MESH_BUS_REPLICAS: the copies of each stream and bucket the mesh makes, 3 (or 5) on a clustered
 * bus so that one server's loss loses nothing. An even count adds no safety over the odd one below it
 * (a JetStream stream needs a majority), so only 1, 3 and 5 are read.
 */
export const ReplicasSetting = Schema.Literals(["1", "3", "5"])

/** MESH_STORE_SCHEMA: a PostgreSQL identifier as written unquoted (at most 63 bytes). */
export const StoreSchemaSetting = matching(
  /^[A-Za-z_][A-Za-z0-9_]{0,62}$/,
  "a PostgreSQL schema name: a letter or _, then letters, digits or _, at most 63",
)

/** `serve --batch`: the most words kept in one transaction (issue 27: `--batch -5` ran and kept no word). */
export const batchProblem = (n: number): string | undefined =>
  Number.isInteger(n) && n >= 1 && n <= 100_000
    ? undefined
    : `--batch ${n}: give a whole number of words from 1 to 100000, as in --batch 1000`

/** Milliseconds of a duration setting that passed PositiveDuration. */
export const durationMs = (s: string): number => parseDuration(s) ?? 0

/** The gate's settings as a fact log's header and `started` line write them. */
export const gateSettingsLine = (s: GateSettings) => ({
  settle: formatDuration(s.settle),
  bound: formatDuration(s.bound),
  every: formatDuration(s.every),
  passes: s.passes,
  // Judgings in a row that could not ask before a plan is paused: a replay under another limit pauses
  // elsewhere (issue 26: reports unread for a while are judged the same in a replay).
  ...(s.errorLimit === undefined ? {} : { errorLimit: s.errorLimit }),
})
