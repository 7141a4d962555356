// What an act answers, and what a read answers when it may fail: the shapes every area's catalogue
// answers with (issue 25: each area's questions say their answers with these).
import * as Schema from "effect/Schema"

/** An act done, or why not. */
export const Outcome = Schema.Union([
  Schema.Struct({ ok: Schema.Literal(true) }),
  Schema.Struct({ ok: Schema.Literal(false), why: Schema.String }),
])
export type Outcome = typeof Outcome.Type
export const done: Outcome = { ok: true }

/** A read, or why it could not be made: never read as nothing (seed 004). The one shape of it. */
export type Readable<A> = { readonly ok: true; readonly value: A } | { readonly ok: false; readonly why: string }

/** Something found, its fields beside `ok`, or why it could not be. */
export type Found<A> = ({ readonly ok: true } & A) | { readonly ok: false; readonly why: string }

/** The Schema of a read, or why it could not be made: `Readable` of the value's Schema. */
export const readable = <S extends Schema.Top>(value: S) =>
  Schema.Union([
    Schema.Struct({ ok: Schema.Literal(true), value }),
    Schema.Struct({ ok: Schema.Literal(false), why: Schema.String }),
  ])

/** A question's Schema: a Struct whose `q` is its kind, beside its arguments. */
export const question = <K extends string, F extends Schema.Struct.Fields>(kind: K, fields: F) =>
  Schema.Struct({ q: Schema.Literal(kind), ...fields })

/** A read made: what `readable` answers when it could. */
export const value = <V>(value: V): Readable<V> => ({ ok: true, value })

export const Names = Schema.Array(Schema.String)

/** The clock: one question, asked alike by the gate's tick and by the push. */
export const now = { question: question("now", {}), answer: Schema.Number, act: false as const }
