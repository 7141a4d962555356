// Whether the mesh is well, from the standings kept and the words set aside.
//
// A standing no provider repeats is **stale** once two of the provider's SayAgainEvery (15m) have
// passed without a word (seed 000: a standing is said again "so that a standing nobody repeats can
// be told from one that holds"). Stale is not well: a consumer withdrawn while its provider was
// down, or a provider gone for good, may be why nobody repeats it, but so may a provider that is
// failing and cannot reach the bus; nothing here can tell those apart, so a stale standing is still
// counted as failing and marked stale, for a person to look at and, if it is over, to forget
// (`mesh-controller standings forget`). A word set aside is counted and named but makes nothing
// well or not well by itself: it is a message nobody could read, not a standing.
import * as Schema from "effect/Schema"
import { parseDuration } from "../duration.ts"
import { keyText } from "./word.ts"
import type { Kept } from "./standings.ts"

export interface Standing extends Kept {
  readonly stale: boolean
  /** How long since it was last said, at the time status was read. */
  readonly quietMs: number
}

export interface SetAsideCount {
  readonly count: number
  /** When the newest was set aside. */
  readonly newest: number | undefined
}

/** Two of the seed's SayAgainEvery (15m): the default the controller's MESH_STALE_AFTER overrides. */
export const defaultStaleAfterMs = 2 * 15 * 60_000

/** A standing is stale when nobody has said it for longer than staleAfter. */
export const isStale = (k: Kept, now: number, staleAfterMs: number): boolean =>
  k.state === "failing" && now - k.at > staleAfterMs

/** The mesh is well only while no failing standing is kept, stale or not. */
export const statusOf = (
  kept: Iterable<Kept>,
  now: number,
  staleAfterMs: number = defaultStaleAfterMs,
  setAside: SetAsideCount = { count: 0, newest: undefined },
) => {
  const failing = [...kept]
    .filter((k) => k.state === "failing")
    .sort((a, b) => (keyText(a) < keyText(b) ? -1 : keyText(a) > keyText(b) ? 1 : 0))
    .map((k): Standing => ({ ...k, stale: isStale(k, now, staleAfterMs), quietMs: Math.max(0, now - k.at) }))
  return { well: failing.length === 0, failing, stale: failing.filter((f) => f.stale).length, setAside, staleAfterMs }
}

/** MESH_STALE_AFTER, as the controller reads it: a duration longer than 0s (Go's spelling: 30m, 1h, 90s). */
export const StaleAfterSetting = Schema.String.check(
  Schema.makeFilter(
    (s: string) =>
      (parseDuration(s) ?? 0) > 0 || "give a duration longer than 0s and at most 596h, as in 30m (90s, 1h30m)",
  ),
)

/** Whether the mesh is well, its failing standings (stale or not) and how many are stale, and the words set aside. */
export type Status = ReturnType<typeof statusOf>
