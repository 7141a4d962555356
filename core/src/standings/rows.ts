// The standings table's rows as the store answers them, read by Schema (no cast on what comes from
// outside), and the rows a kept standing is written as.
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
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

export const keptFromRow = (
  r: unknown,
): { readonly ok: true; readonly kept: Kept } | { readonly ok: false; readonly why: string } => {
  const e = decodeRow(r)
  if (Exit.isFailure(e)) return { ok: false, why: `a standings row the store answered is not one: ${String(e.cause)}` }
  const v = e.value
  return {
    ok: true,
    kept: {
      provider: v.provider,
      providerNode: v.provider_node,
      consumer: v.consumer,
      state: v.state,
      at: v.said_ms,
      consumerNode: v.consumer_node ?? undefined,
      class: v.class ?? undefined,
      error: v.error ?? undefined,
      since: v.since ?? undefined,
      attempts: v.attempts ?? undefined,
      why: v.why ?? undefined,
      by: v.forgotten_by ?? undefined,
    },
  }
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
