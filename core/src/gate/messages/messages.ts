// What machines put on the bus for the controller, as Schemas: a statement of the health of what a
// machine runs (novox/hq ADR 0240), and the limits and reading every machine's message shares (a
// report of what a declaration came to is delivery's: core/src/delivery/messages.ts). The controller reads
// them with these and nothing else; a replay reads them with the same, so a statement naming a state
// nobody knows is set aside live exactly as it is refused in a replay.
import { isObject } from "../../by-hand.ts"
import { jsonOf, NotJson } from "../../json.ts"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import { HealthState, type StatementRecord } from "../judging/facts.ts"
import { decoderOf, firstIssue } from "../../decoding.ts"
import { Name, parseRfc3339, storableText, text, wordLimits } from "../../standings/word.ts"
import { withRecorderShape } from "../../recorder-time.ts"
import { type Readable, value } from "../../outcome.ts"

const rfc3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/

/** The definition of `timeOf`: the pattern, then Date.parse. */
export const timeOfChecked = (text: string): number | undefined => {
  if (!rfc3339.test(text)) return undefined
  const ms = Date.parse(text)
  return Number.isFinite(ms) ? ms : undefined
}

/** An RFC 3339 time as epoch ms; undefined for anything else (`"1"` is not the year 2001). */
export const timeOf = withRecorderShape(timeOfChecked)

// What a machine says is read against the store's own limits before it reaches a transaction
// (issue 14, as a provider's words are in core/src/standings/word.ts): text PostgreSQL cannot hold
// (a NUL, a lone surrogate), names longer than a key may be, a time outside timestamptz's range or
// a sequence beyond a bigint would fail the write for ever. One that fails is set aside, never kept.
export const messageLimits = {
  nameChars: wordLimits.nameChars,
  digestChars: 256,
  textChars: 1_000,
  listItems: 1_000,
  bodyChars: 256 * 1024,
} as const

export const list = <S extends Schema.Top>(item: S) =>
  Schema.Array(item).check(
    Schema.isMaxLength(messageLimits.listItems, { message: `more than ${messageLimits.listItems} entries` }),
  )

export const Time = Schema.String.check(
  Schema.makeFilter((s: string) => parseRfc3339(s) !== undefined || "an RFC 3339 time with a year from 1970 to 9999"),
)

export const StatementMessage = Schema.Struct({
  machine: Name,
  at: Time,
  resources: list(
    Schema.Struct({
      resource: Name,
      module: Name,
      state: HealthState,
      reason: Schema.optionalKey(text(messageLimits.textChars)),
    }),
  ),
})

type StatementMessage = typeof StatementMessage.Type
type ResourceState = StatementMessage["resources"][number]["state"]
const healthStates: ReadonlySet<unknown> = new Set<ResourceState>(HealthState.literals)
const isHealthState = (v: unknown): v is ResourceState => healthStates.has(v)
const isText = (v: unknown, max: number): v is string =>
  typeof v === "string" && v.length <= max && storableText.test(v)
const isName = (v: unknown): v is string => isText(v, messageLimits.nameChars) && v.length >= 1
const isReason = (v: unknown): v is string => isText(v, messageLimits.textChars)

/**
 * A statement's resources read by hand, each name and reason as `name` and `reason` accept them (a
 * message's limits, or any text once kept), or undefined for anything else: the Schema's to read.
 */
export const resourcesByHand = (
  resources: ReadonlyArray<unknown>,
  name: (v: unknown) => v is string,
  reason: (v: unknown) => v is string,
): Array<StatementMessage["resources"][number]> | undefined => {
  const out: Array<StatementMessage["resources"][number]> = []
  for (const r of resources) {
    if (!isObject(r)) return undefined
    const { resource, module, state, reason: said } = r
    if (!name(resource) || !name(module) || !isHealthState(state)) return undefined
    if (said === undefined) out.push({ resource, module, state })
    else if (reason(said)) out.push({ resource, module, state, reason: said })
    else return undefined
  }
  return out
}

/**
 * A statement as StatementMessage decodes it, read by hand (issue 11: its decoding was a tenth of a
 * controller log's replay, a statement a machine every few seconds), or undefined for anything it
 * does not recognise as valid, which the Schema then reads. A property test holds the two together.
 */
export const statementMessageFast = (json: unknown): StatementMessage | undefined => {
  if (!isObject(json)) return undefined
  const { machine, at, resources } = json
  if (!isName(machine) || typeof at !== "string" || parseRfc3339(at) === undefined) return undefined
  if (!Array.isArray(resources) || resources.length > messageLimits.listItems) return undefined
  const out = resourcesByHand(resources, isName, isReason)
  return out === undefined ? undefined : { machine, at, resources: out }
}

/** A value decoded by its Schema, or its first problem as a field and what is wrong with it. */
export const decode = <S extends Schema.Top>(
  schema: S,
  json: unknown,
): { ok: true; value: S["Type"] } | { ok: false; field: string; problem: string } => {
  const exit = decoderOf(schema)(json) as Exit.Exit<S["Type"], Schema.SchemaError>
  if (Exit.isSuccess(exit)) return { ok: true, value: exit.value }
  return { ok: false, ...firstIssue(exit)! }
}

export const decodeJson = <S extends Schema.Top>(
  schema: S,
  body: string,
  fast?: (json: unknown) => S["Type"] | undefined,
): Readable<S["Type"]> => {
  if (body.length > messageLimits.bodyChars)
    return {
      ok: false,
      why: `the body is ${body.length} characters, over the ${messageLimits.bodyChars} a message may be`,
    }
  const json = jsonOf(body)
  if (json instanceof NotJson) return { ok: false, why: "the body is not JSON" }
  const quick = fast?.(json)
  if (quick !== undefined) return { ok: true, value: quick }
  const d = decode(schema, json)
  return d.ok ? d : { ok: false, why: `${d.field}: ${d.problem}` }
}

export const readStatement = (body: string): Readable<StatementRecord> => {
  const r = decodeJson(StatementMessage, body, statementMessageFast)
  if (!r.ok) return r
  const { machine, at, resources } = r.value
  return value({ machine, at: parseRfc3339(at)!, resources })
}
