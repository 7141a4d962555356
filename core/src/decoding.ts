// A Schema decoding's first problem as a field and what is wrong with it: what `FILE:LINE: field:
// problem` and `FILE: field: problem` say.
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"

export const firstIssue = (
  exit: Exit.Exit<unknown, Schema.SchemaError>,
): { readonly field: string; readonly problem: string } | undefined => {
  if (Exit.isSuccess(exit)) return undefined
  const error = exit.cause.reasons.find((r) => r._tag === "Fail")?.error
  if (error === undefined) return { field: "(line)", problem: "could not be decoded" }
  // Never empty: every issue formats to one at least (a Composite holds one issue at least).
  const issue = SchemaIssue.makeFormatterStandardSchemaV1()(error.issue).issues[0]!
  // Effect's paths are property keys, an array's index a number: `a.b`, `xs.1`.
  const field = (issue.path ?? []).map(String).join(".")
  return { field: field === "" ? "(line)" : field, problem: issue.message }
}

// One decoder per Schema, made once: making it again for every line and every message was a sixth
// of a controller log's replay (issue 11).
const decoders = new WeakMap<object, (json: unknown) => Exit.Exit<unknown, Schema.SchemaError>>()

/** `Schema.decodeUnknownExit(schema)`, made once per Schema. */
export const decoderOf = (schema: Schema.Top): ((json: unknown) => Exit.Exit<unknown, Schema.SchemaError>) => {
  let d = decoders.get(schema)
  if (d === undefined) {
    d = Schema.decodeUnknownExit(schema as unknown as Schema.Codec<unknown>)
    decoders.set(schema, d)
  }
  return d
}
