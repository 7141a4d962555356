// Rows as the store answers them, read by Schema (no cast on what comes from outside: issue 8): each
// area's rows are in its own rows.ts; the first row that is not one answers why.
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import { firstIssue } from "./decoding.ts"
import type { Readable } from "./outcome.ts"

export const MigrationRow = Schema.Struct({ version: Schema.Number })

/** Reads every row with `schema`, then `f`: the first row that is not one answers why. */
export const readRows = <S extends Schema.Top, A>(
  what: string,
  schema: S,
  rows: ReadonlyArray<unknown>,
  f: (row: S["Type"]) => A,
): Readable<Array<A>> => {
  const decode = Schema.decodeUnknownExit(schema as unknown as Schema.Codec<S["Type"]>)
  const out: Array<A> = []
  for (const r of rows) {
    const e = decode(r)
    if (Exit.isFailure(e)) {
      // A decoding that failed always has its first issue.
      const issue = firstIssue(e)!
      return { ok: false, why: `a row of ${what} the store answered is not one: ${issue.field}: ${issue.problem}` }
    }
    out.push(f(e.value))
  }
  return { ok: true, value: out }
}
