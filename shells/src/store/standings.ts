// Reading and writing kept standings. What to write is the core's decision (applyWords); this only
// moves rows.
import type { Kept } from "@mesh-core/core/standings/standings"
import { keyText, type StandingKey } from "@mesh-core/core/standings/word"
import type { Sql, Tx } from "./postgres.ts"

type Row = Record<string, unknown>

const keptOf = (r: Row): Kept => ({
  provider: r["provider"] as string,
  providerNode: r["provider_node"] as string,
  consumer: r["consumer"] as string,
  state: r["state"] as Kept["state"],
  at: (r["said_at"] as Date).getTime(),
  consumerNode: (r["consumer_node"] as string | null) ?? undefined,
  class: (r["class"] as string | null) ?? undefined,
  error: (r["error"] as string | null) ?? undefined,
  since: (r["since"] as string | null) ?? undefined,
  attempts: (r["attempts"] as number | null) ?? undefined,
  why: (r["why"] as string | null) ?? undefined,
})

const rowOf = (k: Kept) => ({
  provider: k.provider, provider_node: k.providerNode, consumer: k.consumer, state: k.state, said_at: new Date(k.at),
  consumer_node: k.consumerNode ?? null, class: k.class ?? null, error: k.error ?? null, since: k.since ?? null,
  attempts: k.attempts ?? null, why: k.why ?? null,
})

/** The standings kept for these keys, locked until the transaction ends. */
export const readKept = async (tx: Tx, keys: ReadonlyArray<StandingKey>): Promise<Map<string, Kept>> => {
  if (keys.length === 0) return new Map()
  const rows = await tx`
    select s.* from standings s
    join unnest(${keys.map((k) => k.provider)}::text[], ${keys.map((k) => k.providerNode)}::text[], ${keys.map((k) => k.consumer)}::text[])
      as k(provider, provider_node, consumer)
      on s.provider = k.provider and s.provider_node = k.provider_node and s.consumer = k.consumer
    order by s.provider, s.provider_node, s.consumer
    for update of s`
  return new Map(rows.map((r) => {
    const k = keptOf(r)
    return [keyText(k), k]
  }))
}

export const writeKept = async (tx: Tx, kept: ReadonlyArray<Kept>): Promise<void> => {
  if (kept.length === 0) return
  await tx`
    insert into standings ${tx(kept.map(rowOf))}
    on conflict (provider, provider_node, consumer) do update set
      state = excluded.state, said_at = excluded.said_at, consumer_node = excluded.consumer_node,
      class = excluded.class, error = excluded.error, since = excluded.since, attempts = excluded.attempts,
      why = excluded.why, heard_at = now()`
}

export const failingStandings = async (sql: Sql): Promise<Array<Kept>> =>
  (await sql`select * from standings where state = 'failing' order by provider, provider_node, consumer`).map(keptOf)
