// The mesh's records, as far as delivery reads them: machines, modules (what each publishes,
// subscribes to, keeps as state, receives contributions for, requires, and which seats it claims
// or needs) and assignments of modules to machines. Given to the controller as one JSON document
// (`mesh-controller mesh apply FILE`), checked against these Schemas.
import { Exit, Schema } from "effect"
import { firstIssue } from "../facts/issues.ts"
import type { JsonObject } from "../json.ts"

const Names = Schema.Array(Schema.String)

export const ModuleRecord = Schema.Struct({
  name: Schema.String,
  build: Schema.String,
  /** The commit its build was made from, where known: what a rollback puts back. */
  commit: Schema.optionalKey(Schema.String),
  publishes: Schema.optionalKey(Names),
  subscribes: Schema.optionalKey(Names),
  /** Buckets of state the module keeps on the bus (novox/hq ADR 0201). */
  states: Schema.optionalKey(Names),
  /** Requirements it is the provider of: it receives contributions for them. */
  receives: Schema.optionalKey(Names),
  /** Requirements it needs a provider for. */
  requires: Schema.optionalKey(Names),
  /** Seats it claims (the bus is the seat `bus`); seats it needs someone to hold (ADR 0207). */
  claims: Schema.optionalKey(Names),
  needsSeats: Schema.optionalKey(Names),
  /** Its declaration carries the bus's user list: the module that runs the bus. */
  busUsers: Schema.optionalKey(Schema.Boolean),
})
export type ModuleRecord = typeof ModuleRecord.Type

export const Assignment = Schema.Struct({
  module: Schema.String,
  node: Schema.String,
  config: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)),
})
export type Assignment = typeof Assignment.Type

export const MeshRecords = Schema.Struct({
  mesh: Schema.String,
  nodes: Names,
  modules: Schema.Array(ModuleRecord),
  assignments: Schema.Array(Assignment),
})
export type MeshRecords = typeof MeshRecords.Type

export type Decoded<A> = { readonly ok: true; readonly value: A } | { readonly ok: false; readonly field: string; readonly problem: string }

export const decodeRecords = (json: unknown): Decoded<MeshRecords> => {
  const exit = Schema.decodeUnknownExit(MeshRecords)(json)
  if (Exit.isSuccess(exit)) return { ok: true, value: exit.value }
  const issue = firstIssue(exit)!
  return { ok: false, field: issue.field === "(line)" ? "(document)" : issue.field, problem: issue.problem }
}

export const configOf = (a: Assignment): JsonObject => (a.config ?? {}) as JsonObject

/** The seat the bus is: the module claiming it runs the bus. */
export const busSeat = "bus"
