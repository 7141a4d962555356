// A provider's word on the bus, as the controller hears it (novox/hq ADR 0224): provisioner.failing
// or provisioner.recovered, its body exactly the seed's fields, and the time the provider said it,
// carried beside the body (the `Mesh-At` header), so words are ordered by when they were said, not
// by when they arrived.
//
// A word is read against the store's own limits here, before it reaches a transaction (issue 14:
// one `attempts: 2147483648`, `attempts: 1.5`, a NUL in `error` or a `Mesh-At` in the year 275760
// failed every batch for ever, and status said well). A word that passes can always be written; one
// that does not is set aside (dead-letters.ts), never in the way of the words beside it.
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import { EventFailing, EventRecovered } from "../provisioner/model.ts"
import { withRecorderShape } from "../recorder-time.ts"

/**
 * The limits a word is read against, each from what the store or the bus can hold (docs/bus.md).
 * - attempts: a PostgreSQL `integer`, and never negative or fractional.
 * - names (provider, provider-node, consumer, node): the three key names are the standings table's
 *   primary key, and a btree entry holds at most 2,704 bytes; 128 characters each (≤ 512 bytes of
 *   UTF-8) keep three well under it.
 * - class 64, error 1,000 (the provider clips to 300), why 200 characters.
 * - every text: no NUL (PostgreSQL text cannot hold one) and no lone surrogate (it would be written
 *   as U+FFFD, so the key kept would not be the key heard, and newest-word-wins would not hold).
 * - the body: at most 16 KiB, checked before it is parsed.
 * - times: RFC 3339 with a four-digit year from 1970 to 9999 (inside PostgreSQL's timestamptz range
 *   and JavaScript's); `since` no later than the word; and `Mesh-At` at most an hour after the
 *   stream received the word, since a word dated in the future would win over every true word for
 *   its key until that future came.
 */
export const wordLimits = {
  attemptsMax: 2_147_483_647,
  nameChars: 128,
  classChars: 64,
  errorChars: 1_000,
  whyChars: 200,
  bodyChars: 16_384,
  firstYear: 1970,
  lastYear: 9999,
  aheadOfStreamMs: 3_600_000,
  sinceAheadMs: 1_000,
} as const

// With the u flag a surrogate pair is one code point, so only a lone surrogate matches.
const storableText = Schema.isPattern(/^[^\u0000\uD800-\uDFFF]*$/u, {
  message: "holds a NUL or a lone surrogate, which the store cannot keep",
})
const text = (max: number) =>
  Schema.String.check(storableText, Schema.isMaxLength(max, { message: `longer than ${max} characters` }))
const Name = Schema.String.check(
  storableText,
  Schema.isMinLength(1, { message: "empty" }),
  Schema.isMaxLength(wordLimits.nameChars, { message: `longer than ${wordLimits.nameChars} characters` }),
)
const Attempts = Schema.Number.check(
  Schema.isInt({ message: "not a whole number" }),
  Schema.isBetween(
    { minimum: 0, maximum: wordLimits.attemptsMax },
    { message: `not between 0 and ${wordLimits.attemptsMax} (a PostgreSQL integer)` },
  ),
)

const rfc3339Pattern = /^(\d{4})-(\d\d)-(\d\d)[Tt](\d\d):(\d\d):(\d\d)(\.\d{1,9})?(?:([Zz])|([+-])(\d\d):(\d\d))$/
const daysIn = (year: number, month: number): number =>
  month === 2
    ? year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
      ? 29
      : 28
    : [4, 6, 9, 11].includes(month)
      ? 30
      : 31

/** The definition of `parseRfc3339`: the pattern, the calendar and the store's years. */
export const parseRfc3339Checked = (s: string): number | undefined => {
  const m = rfc3339Pattern.exec(s)
  if (m === null) return undefined
  const year = Number(m[1]),
    month = Number(m[2]),
    day = Number(m[3]),
    hour = Number(m[4]),
    minute = Number(m[5]),
    second = Number(m[6])
  if (
    year < wordLimits.firstYear ||
    year > wordLimits.lastYear ||
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > daysIn(year, month)
  )
    return undefined
  if (hour > 23 || minute > 59 || second > 59) return undefined
  const offsetH = m[10] === undefined ? 0 : Number(m[10])
  const offsetM = m[11] === undefined ? 0 : Number(m[11])
  if (offsetH > 23 || offsetM > 59) return undefined
  const sign = m[9] === "-" ? -1 : 1
  const fraction = m[7] === undefined ? 0 : Math.floor(Number(`0${m[7]}`) * 1_000)
  return Date.UTC(year, month - 1, day, hour, minute, second) + fraction - sign * (offsetH * 60 + offsetM) * 60_000
}

/** An RFC 3339 time with a year from 1970 to 9999, as milliseconds since the epoch; undefined for anything else. */
export const parseRfc3339 = withRecorderShape(parseRfc3339Checked)

const Time = Schema.String.check(
  Schema.makeFilter(
    (s: string) => parseRfc3339(s) !== undefined || "not an RFC 3339 time with a year from 1970 to 9999",
  ),
)

const FailingBody = Schema.Struct({
  attempts: Attempts,
  class: text(wordLimits.classChars),
  consumer: Name,
  error: text(wordLimits.errorChars),
  node: Name,
  provider: Name,
  "provider-node": Name,
  since: Time,
})

const RecoveredBody = Schema.Struct({
  attempts: Schema.optionalKey(Attempts),
  consumer: Name,
  node: Schema.optionalKey(Name),
  provider: Name,
  "provider-node": Name,
  since: Schema.optionalKey(Time),
  why: Schema.optionalKey(text(wordLimits.whyChars)),
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

export type HeardWord = { readonly ok: true; readonly word: Word } | { readonly ok: false; readonly why: string }

const failingBySchema = Schema.decodeUnknownExit(FailingBody)
const recoveredBySchema = Schema.decodeUnknownExit(RecoveredBody)

// A body read by hand, beside the Schemas above that define it. The follower reads every word the
// mesh says, and decoding each through Schema was a fifth of its time (issue 11: the follower keeps
// up). The hand reading only recognises a body the Schema accepts as it is; anything else it
// declines (undefined) and the Schema answers, with its reasons for a body set aside. A test holds
// it to the Schemas on any body: it never accepts what they refuse, answers what they answer, and
// declines none the providers write.
const isStorable = (s: string): boolean => !/[\u0000\uD800-\uDFFF]/.test(s) || /^[^\u0000\uD800-\uDFFF]*$/u.test(s)
const isText = (v: unknown, max: number): v is string => typeof v === "string" && v.length <= max && isStorable(v)
const isName = (v: unknown): v is string =>
  typeof v === "string" && v.length >= 1 && v.length <= wordLimits.nameChars && isStorable(v)
const isAttempts = (v: unknown): v is number =>
  typeof v === "number" && Number.isSafeInteger(v) && v >= 0 && v <= wordLimits.attemptsMax
const isTime = (v: unknown): v is string => typeof v === "string" && parseRfc3339(v) !== undefined
const field = (o: object, key: string): unknown => (Object.hasOwn(o, key) ? Reflect.get(o, key) : undefined)
const isObject = (json: unknown): json is object => typeof json === "object" && json !== null && !Array.isArray(json)

/** A failing body the Schema accepts, read by hand; undefined for the Schema to answer. */
export const failingByHand = (json: unknown): typeof FailingBody.Type | undefined => {
  if (!isObject(json)) return undefined
  const attempts = field(json, "attempts"),
    klass = field(json, "class"),
    consumer = field(json, "consumer"),
    error = field(json, "error")
  const node = field(json, "node"),
    provider = field(json, "provider"),
    providerNode = field(json, "provider-node"),
    since = field(json, "since")
  if (
    !isAttempts(attempts) ||
    !isText(klass, wordLimits.classChars) ||
    !isName(consumer) ||
    !isText(error, wordLimits.errorChars)
  )
    return undefined
  if (!isName(node) || !isName(provider) || !isName(providerNode) || !isTime(since)) return undefined
  return { attempts, class: klass, consumer, error, node, provider, "provider-node": providerNode, since }
}

const optionalRecovered: ReadonlyArray<readonly [keyof typeof RecoveredBody.Type, (v: unknown) => boolean]> = [
  ["attempts", isAttempts],
  ["node", isName],
  ["since", isTime],
  ["why", (v) => isText(v, wordLimits.whyChars)],
]

/** A recovered body the Schema accepts, read by hand; undefined for the Schema to answer. */
export const recoveredByHand = (json: unknown): typeof RecoveredBody.Type | undefined => {
  if (!isObject(json)) return undefined
  const consumer = field(json, "consumer"),
    provider = field(json, "provider"),
    providerNode = field(json, "provider-node")
  if (!isName(consumer) || !isName(provider) || !isName(providerNode)) return undefined
  const out: { -readonly [K in keyof typeof RecoveredBody.Type]: (typeof RecoveredBody.Type)[K] } = {
    consumer,
    provider,
    "provider-node": providerNode,
  }
  // An optional key, when present, holds what the Schema would accept for it.
  for (const [key, ok] of optionalRecovered) {
    if (!Object.hasOwn(json, key)) continue
    const v = field(json, key)
    if (!ok(v)) return undefined
    Reflect.set(out, key, v)
  }
  return out
}

const decodeFailing = (json: unknown): Exit.Exit<typeof FailingBody.Type, Schema.SchemaError> => {
  const b = failingByHand(json)
  return b === undefined ? failingBySchema(json) : Exit.succeed(b)
}
const decodeRecovered = (json: unknown): Exit.Exit<typeof RecoveredBody.Type, Schema.SchemaError> => {
  const b = recoveredByHand(json)
  return b === undefined ? recoveredBySchema(json) : Exit.succeed(b)
}

/** The Schemas alone, without the hand reading: what a test holds the hand reading to. */
export const bySchema = { failing: failingBySchema, recovered: recoveredBySchema } as const

const refused = (why: string): HeardWord => ({ ok: false, why })
const clipped = (s: string, n = 80): string => (s.length > n ? `${s.slice(0, n)}…` : s)

const sinceIsSane = (since: string | undefined, at: number): HeardWord | undefined => {
  if (since === undefined) return undefined
  const s = parseRfc3339(since)!
  return s > at + wordLimits.sinceAheadMs
    ? refused(`since ${since} is after the word was said (${new Date(at).toISOString()})`)
    : undefined
}

/**
 * Reads one message: its subject's event, its JSON body, the time it was said (`Mesh-At`), and the
 * time the stream received it (undefined when the bus did not say). Never throws: a message that
 * cannot be kept answers why.
 */
export const hear = (
  event: string,
  body: string,
  saidAt: string | undefined,
  receivedAt: number | undefined,
): HeardWord => {
  if (event !== EventFailing && event !== EventRecovered)
    return refused(`${clipped(JSON.stringify(event))} is not a provider's word`)
  const at = saidAt === undefined ? undefined : parseRfc3339(saidAt)
  if (at === undefined)
    return refused(
      `no usable Mesh-At time (${clipped(JSON.stringify(saidAt) ?? "none")}): RFC 3339 with a year from 1970 to 9999`,
    )
  if (receivedAt !== undefined && at > receivedAt + wordLimits.aheadOfStreamMs) {
    return refused(`Mesh-At ${clipped(saidAt!)} is more than an hour after the stream received the word`)
  }
  if (body.length > wordLimits.bodyChars)
    return refused(`the body is ${body.length} characters, over the ${wordLimits.bodyChars} a word may be`)
  let json: unknown
  try {
    json = JSON.parse(body)
  } catch {
    return refused("the body is not JSON")
  }
  if (event === EventFailing) {
    const e = decodeFailing(json)
    if (Exit.isFailure(e)) return refused(`not a ${EventFailing} body the store can keep: ${String(e.cause)}`)
    const b = e.value
    return (
      sinceIsSane(b.since, at) ?? {
        ok: true,
        word: {
          event: "failing",
          at,
          provider: b.provider,
          providerNode: b["provider-node"],
          consumer: b.consumer,
          consumerNode: b.node,
          class: b.class,
          error: b.error,
          since: b.since,
          attempts: b.attempts,
        },
      }
    )
  }
  const e = decodeRecovered(json)
  if (Exit.isFailure(e)) return refused(`not a ${EventRecovered} body the store can keep: ${String(e.cause)}`)
  const b = e.value
  return (
    sinceIsSane(b.since, at) ?? {
      ok: true,
      word: {
        event: "recovered",
        at,
        provider: b.provider,
        providerNode: b["provider-node"],
        consumer: b.consumer,
        consumerNode: b.node,
        since: b.since,
        attempts: b.attempts,
        why: b.why,
      },
    }
  )
}
