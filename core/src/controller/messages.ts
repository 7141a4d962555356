// What machines put on the bus for the controller, as Schemas: a report of what a declaration came to,
// and a statement of the health of what a machine runs (novox/hq ADR 0240). The controller reads
// them with these and nothing else; a replay reads them with the same, so a statement naming a state
// nobody knows is set aside live exactly as it is refused in a replay.
import { Exit, Schema } from "effect"
import type { ReportRecord } from "./questions.ts"
import type { StatementRecord } from "./records.ts"
import { HealthState } from "./records.ts"
import { firstIssue } from "../facts/issues.ts"

const rfc3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/

/** An RFC 3339 time as epoch ms; undefined for anything else (`"1"` is not the year 2001). */
export const timeOf = (text: string): number | undefined => {
  if (!rfc3339.test(text)) return undefined
  const ms = Date.parse(text)
  return Number.isFinite(ms) ? ms : undefined
}

const Time = Schema.String.pipe(Schema.check(Schema.makeFilter((s: string) => timeOf(s) !== undefined || "an RFC 3339 time")))

export const ReportMessage = Schema.Struct({
  node: Schema.String,
  digest: Schema.String,
  sequence: Schema.Number.pipe(Schema.check(Schema.makeFilter((n: number) => (Number.isSafeInteger(n) && n >= -1) || "a whole number"))),
  outcome: Schema.Literals(["applied", "failed", "refused"]),
  refused: Schema.optionalKey(Schema.NullOr(Schema.String)),
  failed: Schema.optionalKey(Schema.Array(Schema.String)),
  at: Time,
})

export const StatementMessage = Schema.Struct({
  machine: Schema.String,
  at: Time,
  resources: Schema.Array(Schema.Struct({
    resource: Schema.String, module: Schema.String, state: HealthState, reason: Schema.optionalKey(Schema.String),
  })),
})

export type Read<A> = { readonly ok: true; readonly value: A } | { readonly ok: false; readonly why: string }

const decodeJson = <S extends Schema.Top>(schema: S, body: string): Read<S["Type"]> => {
  let json: unknown
  try {
    json = JSON.parse(body)
  } catch {
    return { ok: false, why: "the body is not JSON" }
  }
  const exit = Schema.decodeUnknownExit(schema as unknown as Schema.Codec<S["Type"]>)(json)
  if (Exit.isSuccess(exit)) return { ok: true, value: exit.value }
  const issue = firstIssue(exit)!
  return { ok: false, why: `${issue.field}: ${issue.problem}` }
}

export const readReport = (body: string): Read<ReportRecord> => {
  const r = decodeJson(ReportMessage, body)
  if (!r.ok) return r
  const m = r.value
  return {
    ok: true,
    value: {
      node: m.node, digest: m.digest, sequence: m.sequence, outcome: m.outcome, at: timeOf(m.at)!, failed: m.failed ?? [],
      ...(typeof m.refused === "string" ? { refused: m.refused } : {}),
    },
  }
}

export const readStatement = (body: string): Read<StatementRecord> => {
  const r = decodeJson(StatementMessage, body)
  if (!r.ok) return r
  return { ok: true, value: { machine: r.value.machine, at: timeOf(r.value.at)!, resources: r.value.resources } }
}
