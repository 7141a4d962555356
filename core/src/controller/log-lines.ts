// The controller log's lines as Schemas and the facts they carry (docs/fact-log.md): what the
// reader (log.ts) and its hand-written fast path (log-fast.ts) both decode to.
import * as Schema from "effect/Schema"
import { GateWake } from "../gate/plan/wake.ts"
import { OperatorCommand } from "../gate/plan/records.ts"
import type { Question } from "./catalogue.ts"

export const GateSettingsLine = Schema.Struct({
  settle: Schema.optionalKey(Schema.String),
  bound: Schema.optionalKey(Schema.String),
  every: Schema.optionalKey(Schema.String),
  passes: Schema.optionalKey(Schema.Number),
  /** Judgings in a row that could not ask before a plan is paused (issue 10). */
  errorLimit: Schema.optionalKey(Schema.Number),
})
export type GateSettingsLine = typeof GateSettingsLine.Type

export const ControllerHeader = Schema.Struct({
  format: Schema.Literal("mesh-core.facts"),
  version: Schema.Literal(1),
  area: Schema.Literal("controller"),
  settings: Schema.Struct({ gate: GateSettingsLine }),
  recorded: Schema.optionalKey(Schema.String),
})
export type ControllerHeader = typeof ControllerHeader.Type

const HeardLine = Schema.Struct({
  subject: Schema.String,
  event: Schema.String,
  body: Schema.String,
  saidAt: Schema.optionalKey(Schema.String),
  seq: Schema.Number,
  // The stream and when it received the message: the live follower reads a word with both (a word
  // dated over an hour after the stream received it is set aside), so the replay must too.
  stream: Schema.optionalKey(Schema.String),
  receivedAt: Schema.optionalKey(Schema.Number),
})

export type HeardRecord = typeof HeardLine.Type

const at = Schema.String
export const ControllerFactLines = {
  started: Schema.Struct({ at, fact: Schema.Literal("started"), settings: Schema.Struct({ gate: GateSettingsLine }) }),
  /** A judging of the plans in flight; `wakes` what woke it (absent in logs before plans moved on events: every plan). */
  tick: Schema.Struct({ at, fact: Schema.Literal("tick"), wakes: Schema.optionalKey(Schema.Array(GateWake)) }),
  words: Schema.Struct({ at, fact: Schema.Literal("words"), messages: Schema.Array(HeardLine) }),
  report: Schema.Struct({ at, fact: Schema.Literal("report"), message: HeardLine }),
  statement: Schema.Struct({ at, fact: Schema.Literal("statement"), message: HeardLine }),
  /** A machine's witness's verdict on a core component (seed 003's witnessed, issue 26). */
  witness: Schema.Struct({ at, fact: Schema.Literal("witness"), message: HeardLine }),
  /** An operator's verb on a plan (issue 10): `plans pause|resume|promote|abort|retry ID`, as the holder received it. */
  verb: Schema.Struct({ at, fact: Schema.Literal("verb"), command: OperatorCommand }),
  "store-failed": Schema.Struct({
    at,
    fact: Schema.Literal("store-failed"),
    during: Schema.String,
    messages: Schema.Number,
    why: Schema.String,
  }),
  answer: Schema.Struct({ at, fact: Schema.Literal("answer"), q: Schema.Unknown, a: Schema.Unknown }),
} as const

export type FactKind = keyof typeof ControllerFactLines
export type InputFact = Exclude<
  { [K in FactKind]: (typeof ControllerFactLines)[K]["Type"] }[FactKind],
  { fact: "answer" }
>
/** An answer line as read: its question decoded by the catalogue's Schema of its kind. */
export type AnswerFact = Omit<(typeof ControllerFactLines.answer)["Type"], "q"> & { readonly q: Question }
export type ControllerFact = (InputFact | AnswerFact) & { readonly atMs: number }
