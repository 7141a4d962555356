// The standings table's rows as the store answers them, read by Schema (no cast on what comes from
// outside), and the rows a kept standing is written as.
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import type { Readable } from "../outcome.ts"
import { type Kept, orderOf } from "./standings.ts"

const Text = Schema.NullOr(Schema.String)

/** A row of `standings` as the store shells select it (said_at as epoch milliseconds). */
const StandingRow = Schema.Struct({
  provider: Schema.String,
  provider_node: Schema.String,
  consumer: Schema.String,
  state: Schema.Literals(["failing", "recovered", "forgotten"]),
  said_ms: Schema.Number,
  consumer_node: Text,
  class: Text,
  error: Text,
  since: Text,
  attempts: Schema.NullOr(Schema.Number),
  why: Text,
  forgotten_by: Text,
})

const decodeRow = Schema.decodeUnknownExit(StandingRow)

export const keptFromRow = (r: unknown): Readable<Kept> => {
  const e = decodeRow(r)
  if (Exit.isFailure(e)) return { ok: false, why: `a standings row the store answered is not one: ${String(e.cause)}` }
  const v = e.value
  // In the order a standing has its fields, each only when the row holds it.
  const kept: { -readonly [K in keyof Kept]: Kept[K] } = {
    provider: v.provider,
    providerNode: v.provider_node,
    consumer: v.consumer,
    state: v.state,
    at: v.said_ms,
  }
  if (v.consumer_node !== null) kept.consumerNode = v.consumer_node
  if (v.class !== null) kept.class = v.class
  if (v.error !== null) kept.error = v.error
  if (v.since !== null) kept.since = v.since
  if (v.attempts !== null) kept.attempts = v.attempts
  if (v.why !== null) kept.why = v.why
  if (v.forgotten_by !== null) kept.by = v.forgotten_by
  return { ok: true, value: kept }
}

/** The columns one kept standing is written as, its order key with it. */
export const rowOf = (k: Kept) => ({
  provider: k.provider,
  provider_node: k.providerNode,
  consumer: k.consumer,
  state: k.state,
  said_ms: k.at,
  consumer_node: k.consumerNode ?? null,
  class: k.class ?? null,
  error: k.error ?? null,
  since: k.since ?? null,
  attempts: k.attempts ?? null,
  why: k.why ?? null,
  forgotten_by: k.by ?? null,
  word_order: orderOf(k),
})

/** A row of `dead_letters` counted for status. */
const SetAsideRow = Schema.Struct({ count: Schema.Number, newest_ms: Schema.NullOr(Schema.Number) })
export const decodeSetAside = Schema.decodeUnknownExit(SetAsideRow)
