// A provider's word on the bus, as the controller hears it (novox/hq ADR 0224): provisioner.failing
// or provisioner.recovered, its body exactly the seed's fields, and the time the provider said it,
// carried beside the body (the `Mesh-At` header), so words are ordered by when they were said, not
// by when they arrived.
//
// A word is read against the store's own limits here, before it reaches a transaction (issue 14:
// one `attempts: 2147483648`, `attempts: 1.5`, a NUL in `error` or a `Mesh-At` in the year 275760
// failed every batch for ever, and status said well). A word that passes can always be written; one
// that does not is set aside (dead-letters.ts), never in the way of the words beside it.
import { jsonOf, NotJson } from "../json.ts"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import { EventFailing, EventRecovered, FailingBody, RecoveredBody } from "../provisioner/model.ts"
import { parseRfc3339Checked as anyRfc3339 } from "../provisioner/log.ts"
import { withRecorderShape } from "../recorder-time.ts"
import type { KeptRecord } from "./questions.ts"

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

// With the u flag a surrogate pair is one code point, so only a lone surrogate matches. The one rule
// of text the store can keep, for a provider's words and every machine's message alike.
export const storableText = /^[^\u0000\uD800-\uDFFF]*$/u
const storable = Schema.isPattern(storableText, {
  message: "holds a NUL or a lone surrogate, which the store cannot keep",
})
export const text = (max: number) =>
  Schema.String.check(storable, Schema.isMaxLength(max, { message: `longer than ${max} characters` }))
export const Name = text(wordLimits.nameChars).check(Schema.isMinLength(1, { message: "empty" }))
const Attempts = Schema.Number.check(
  Schema.isInt({ message: "not a whole number" }),
  Schema.isBetween(
    { minimum: 0, maximum: wordLimits.attemptsMax },
    { message: `not between 0 and ${wordLimits.attemptsMax} (a PostgreSQL integer)` },
  ),
)

/** The definition of `parseRfc3339`: the fact log's RFC 3339, then the store's years. */
export const parseRfc3339Checked = (s: string): number | undefined => {
  const year = Number(s.slice(0, 4))
  return year < wordLimits.firstYear || year > wordLimits.lastYear ? undefined : anyRfc3339(s)
}

/** An RFC 3339 time with a year from 1970 to 9999, as milliseconds since the epoch; undefined for anything else. */
export const parseRfc3339 = withRecorderShape(parseRfc3339Checked)

const Time = Schema.String.check(
  Schema.makeFilter(
    (s: string) => parseRfc3339(s) !== undefined || "not an RFC 3339 time with a year from 1970 to 9999",
  ),
)

// The provider's own bodies (provisioner/model.ts), each field read against the store's limits; `why`
// any short text, so a reason a newer provider gives is kept rather than set aside.
const FailingWord = FailingBody.mapFields((f) => ({
  ...f,
  attempts: Attempts,
  class: text(wordLimits.classChars),
  consumer: Name,
  error: text(wordLimits.errorChars),
  node: Name,
  provider: Name,
  "provider-node": Name,
  since: Time,
}))
const RecoveredWord = RecoveredBody.mapFields((f) => ({
  ...f,
  attempts: Schema.optionalKey(Attempts),
  consumer: Name,
  node: Schema.optionalKey(Name),
  provider: Name,
  "provider-node": Name,
  since: Schema.optionalKey(Time),
  why: Schema.optionalKey(text(wordLimits.whyChars)),
}))

/** Who a standing is about: a provider, its machine, and the consumer it fails. */
export type StandingKey = Pick<KeptRecord, "provider" | "providerNode" | "consumer">

export const keyText = (k: StandingKey): string => `${k.provider}\u0000${k.providerNode}\u0000${k.consumer}`

/**
 * A word heard: the standing it asks to keep, as the write-standings question carries it and the
 * store keeps it (a field the provider did not say is absent).
 */
export type Word = KeptRecord & { readonly state: "failing" | "recovered" }

export type HeardWord = { readonly ok: true; readonly word: Word } | { readonly ok: false; readonly why: string }

const decodeFailing = Schema.decodeUnknownExit(FailingWord)
const decodeRecovered = Schema.decodeUnknownExit(RecoveredWord)

const refused = (why: string): HeardWord => ({ ok: false, why })
const clipped = (s: string, n = 80): string => (s.length > n ? `${s.slice(0, n)}…` : s)

const sinceIsSane = (since: string | undefined, at: number): HeardWord | undefined =>
  since !== undefined && parseRfc3339(since)! > at + wordLimits.sinceAheadMs
    ? refused(`since ${since} is after the word was said (${new Date(at).toISOString()})`)
    : undefined

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
  if (receivedAt !== undefined && at > receivedAt + wordLimits.aheadOfStreamMs)
    return refused(`Mesh-At ${clipped(saidAt!)} is more than an hour after the stream received the word`)
  if (body.length > wordLimits.bodyChars)
    return refused(`the body is ${body.length} characters, over the ${wordLimits.bodyChars} a word may be`)
  const json = jsonOf(body)
  if (json instanceof NotJson) return refused("the body is not JSON")
  const e: Exit.Exit<Partial<typeof FailingWord.Type> & typeof RecoveredWord.Type, Schema.SchemaError> =
    event === EventFailing ? decodeFailing(json) : decodeRecovered(json)
  if (Exit.isFailure(e)) return refused(`not a ${event} body the store can keep: ${String(e.cause)}`)
  const b = e.value
  // In the order a standing has its fields, each only when said (a failing word says all of them).
  const word: { -readonly [K in keyof Word]: Word[K] } = {
    provider: b.provider,
    providerNode: b["provider-node"],
    consumer: b.consumer,
    state: event === EventFailing ? "failing" : "recovered",
    at,
  }
  if (b.node !== undefined) word.consumerNode = b.node
  if (b.class !== undefined) word.class = b.class
  if (b.error !== undefined) word.error = b.error
  if (b.since !== undefined) word.since = b.since
  if (b.attempts !== undefined) word.attempts = b.attempts
  if (b.why !== undefined) word.why = b.why
  return sinceIsSane(b.since, at) ?? { ok: true, word }
}
