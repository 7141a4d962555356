// A Schema decoding's first problem as a field and what is wrong with it: what `FILE:LINE: field:
// problem` and `FILE: field: problem` say.
import { Exit, type Schema, SchemaIssue } from "effect"

export const firstIssue = (exit: Exit.Exit<unknown, Schema.SchemaError>): { readonly field: string; readonly problem: string } | undefined => {
  if (Exit.isSuccess(exit)) return undefined
  const error = exit.cause.reasons.find((r) => r._tag === "Fail")?.error
  if (error === undefined) return { field: "(line)", problem: "could not be decoded" }
  const issue = SchemaIssue.makeFormatterStandardSchemaV1()(error.issue).issues[0]
  const path = issue?.path?.map((p) => (typeof p === "object" && p !== null && "key" in p ? String(p.key) : String(p))) ?? []
  return { field: path.length > 0 ? path.join(".") : "(line)", problem: issue?.message ?? String(error) }
}
