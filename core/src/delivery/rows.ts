// Delivery's tables' rows as the store answers them, read by Schema (no cast on what comes from
// outside: issue 8), and turned into the records the programs ask for.
import * as Schema from "effect/Schema"
import type { ReportRecord } from "./questions.ts"

const Text = Schema.NullOr(Schema.String)
const Names = Schema.Array(Schema.String)

export const ReportRow = Schema.Struct({
  node: Schema.String,
  digest: Schema.String,
  sequence: Schema.Number,
  outcome: Schema.Literals(["applied", "failed", "refused"]),
  reported_ms: Schema.Number,
  refused: Text,
  failed: Names,
  /** Null when the machine never said what it detects (migration 0009); absent before it. */
  detects: Schema.optionalKey(Schema.NullOr(Names)),
})

export const SentRow = Schema.Struct({
  node: Schema.String,
  digest: Schema.String,
  sequence: Schema.Number,
  bus_users_digest: Text,
  /** Each module's build the declaration carried; null for one sent by hand (not known, seed 002 issue 259). */
  builds: Schema.optionalKey(Schema.NullOr(Schema.Record(Schema.String, Schema.String))),
})
export const NodeNameRow = Schema.Struct({ name: Schema.String })
export const IdentityRow = Schema.Struct({ private_pem: Schema.String, public_pem: Schema.String })

export const reportOfRow = (r: typeof ReportRow.Type): ReportRecord => ({
  node: r.node,
  digest: r.digest,
  sequence: r.sequence,
  outcome: r.outcome,
  at: r.reported_ms,
  failed: r.failed,
  ...(r.refused === null ? {} : { refused: r.refused }),
  ...(r.detects === null || r.detects === undefined ? {} : { detects: r.detects }),
})
