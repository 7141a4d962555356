// How `status` reads: whether the mesh is well, every failing standing by name (the stale ones
// marked), and how many words were set aside.
import { formatDuration, rfc3339 } from "../duration.ts"
import type { Status } from "./status.ts"

export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

/** How many failing standings nobody has said lately, as `status` says it after their count. */
export const staleWords = (s: Status): string =>
  s.stale === 0
    ? ""
    : `, ${s.stale} of them stale (nobody has said ${s.stale === 1 ? "it" : "them"} for over ${formatDuration(s.staleAfterMs)})`

export const statusLines = (s: Status): ReadonlyArray<string> => {
  const out: Array<string> = []
  if (s.well) out.push("mesh: well — no provider is failing any consumer")
  else
    out.push(
      `mesh: NOT WELL — ${plural(s.failing.length, "failing standing")} (a provider keeps failing a consumer)${staleWords(s)}`,
    )
  for (const f of s.failing) {
    out.push(
      `  ${f.stale ? "STALE " : ""}${f.provider} on ${f.providerNode} is failing ${f.consumer}${f.consumerNode ? ` on ${f.consumerNode}` : ""}: ` +
        `${f.class} since ${f.since}, ${f.attempts} attempts (said ${rfc3339(f.at)}${f.stale ? `, nothing since for ${formatDuration(Math.floor(f.quietMs / 1_000) * 1_000)}` : ""})`,
      `    last error: ${f.error}`,
    )
    if (f.stale)
      out.push(
        `    if it is over (a consumer withdrawn while its provider was down): mesh-controller standings forget ${f.provider} ${f.consumer} --node ${f.providerNode}`,
      )
  }
  if (s.setAside.count > 0)
    out.push(
      `${plural(s.setAside.count, "word")} set aside, unreadable or beyond the store's limits (the newest at ${rfc3339(s.setAside.newest ?? 0)}); ` +
        "they are kept with why in the store's dead_letters table",
    )
  return out
}

export const statusJson = (s: Status): string =>
  JSON.stringify({
    well: s.well,
    failing: s.failing.map((f) => ({
      provider: f.provider,
      providerNode: f.providerNode,
      consumer: f.consumer,
      consumerNode: f.consumerNode ?? null,
      class: f.class,
      since: f.since,
      attempts: f.attempts,
      error: f.error,
      saidAt: new Date(f.at).toISOString(),
      stale: f.stale,
    })),
    stale: s.stale,
    staleAfter: formatDuration(s.staleAfterMs),
    setAside: {
      count: s.setAside.count,
      newest: s.setAside.newest === undefined ? null : new Date(s.setAside.newest).toISOString(),
    },
  })
