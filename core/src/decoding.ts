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
  const issue = SchemaIssue.makeFormatterStandardSchemaV1()(error.issue).issues[0]
  const path =
    issue?.path?.map((p) => (typeof p === "object" && p !== null && "key" in p ? String(p.key) : String(p))) ?? []
  return { field: path.length > 0 ? path.join(".") : "(line)", problem: issue?.message ?? String(error) }
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
