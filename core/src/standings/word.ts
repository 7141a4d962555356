// A provider's word on the bus, as the controller hears it (novox/hq ADR 0224): provisioner.failing
// or provisioner.recovered, its body exactly the seed's fields, and the time the provider said it,
// carried beside the body (the `Mesh-At` header), so words are ordered by when they were said, not
// by when they arrived.
import { Exit, Schema } from "effect"
import { EventFailing, EventRecovered } from "../provisioner/model.ts"

export const FailingBody = Schema.Struct({
  attempts: Schema.Number,
  class: Schema.String,
  consumer: Schema.String,
  error: Schema.String,
  node: Schema.String,
  provider: Schema.String,
  "provider-node": Schema.String,
  since: Schema.String,
})

export const RecoveredBody = Schema.Struct({
  attempts: Schema.optionalKey(Schema.Number),
  consumer: Schema.String,
  node: Schema.optionalKey(Schema.String),
  provider: Schema.String,
  "provider-node": Schema.String,
  since: Schema.optionalKey(Schema.String),
  why: Schema.optionalKey(Schema.String),
})

/** Who a standing is about: a provider, its machine, and the consumer it fails. */
export interface StandingKey {
  readonly provider: string
  readonly providerNode: string
  readonly consumer: string
}

export const keyText = (k: StandingKey): string => `${k.provider}\u0000${k.providerNode}\u0000${k.consumer}`

export type Word =
  | (StandingKey & {
    readonly event: "failing"
    readonly at: number
    readonly consumerNode: string
    readonly class: string
    readonly error: string
    readonly since: string
    readonly attempts: number
  })
  | (StandingKey & {
    readonly event: "recovered"
    readonly at: number
    readonly consumerNode: string | undefined
    readonly since: string | undefined
    readonly attempts: number | undefined
    readonly why: string | undefined
  })

export type Heard = { readonly ok: true; readonly word: Word } | { readonly ok: false; readonly why: string }

const decodeFailing = Schema.decodeUnknownExit(FailingBody)
const decodeRecovered = Schema.decodeUnknownExit(RecoveredBody)

/** Reads one message: its subject's event, its JSON body and the time it was said. */
export const hear = (event: string, body: string, saidAt: string | undefined): Heard => {
  const at = saidAt === undefined ? Number.NaN : Date.parse(saidAt)
  if (!Number.isFinite(at)) return { ok: false, why: `no usable Mesh-At time (${JSON.stringify(saidAt)})` }
  let json: unknown
  try {
    json = JSON.parse(body)
  } catch {
    return { ok: false, why: "the body is not JSON" }
  }
  if (event === EventFailing) {
    const e = decodeFailing(json)
    if (Exit.isFailure(e)) return { ok: false, why: `not a ${EventFailing} body: ${String(e.cause)}` }
    const b = e.value
    return {
      ok: true,
      word: {
        event: "failing", at, provider: b.provider, providerNode: b["provider-node"], consumer: b.consumer,
        consumerNode: b.node, class: b.class, error: b.error, since: b.since, attempts: b.attempts,
      },
    }
  }
  if (event === EventRecovered) {
    const e = decodeRecovered(json)
    if (Exit.isFailure(e)) return { ok: false, why: `not a ${EventRecovered} body: ${String(e.cause)}` }
    const b = e.value
    return {
      ok: true,
      word: {
        event: "recovered", at, provider: b.provider, providerNode: b["provider-node"], consumer: b.consumer,
        consumerNode: b.node, since: b.since, attempts: b.attempts, why: b.why,
      },
    }
  }
  return { ok: false, why: `${event} is not a provider's word` }
}
