// What the controller keeps of its releases, as Schemas: a plan, its gate, its history and the verbs
// given to it, the builds and the verdicts, in the JSON shapes that go into the store and into a
// recording (what a judging reads is judging/facts.ts). One rule for a fact live and replayed: the
// live shell decodes a row with these, and a replay decodes the recorded answer with the same (issue 8).
import * as Schema from "effect/Schema"
import { Person, Reason } from "../../person.ts"
import { Names } from "../../outcome.ts"
import { JudgingOutcome } from "../../observed.ts"

export { GateRecord, VerdictRecord } from "../judging/facts.ts"
import { GateRecord } from "../judging/facts.ts"

// ---- a release plan's progress (issue 9, seed 003's tiers, ADR 0221) ----
// `sending`: its last tier passed, and the rest are sent and re-sent until every machine has it;
// `rolling-back`: it failed, its rollback saved before it is sent, and re-sent until it lands. A
// plan is never `passed` with a machine of its tiers unsent.
export const PlanState = Schema.Literals(["open", "sending", "passed", "rolling-back", "failed"])

/** What a failed plan puts back, saved before it is sent, and the machines it has reached so far. */
const PutBackRecord = Schema.Struct({
  build: Schema.String,
  commit: Schema.String,
  machines: Names,
  sent: Names,
})

// ---- what operators do to a plan, and what its gate judged (issue 10) ----
/** The verbs a person gives a plan (Nomad's deployment pause/resume/fail/promote, Argo's abort/promote/retry). */
export const VerbName = Schema.Literals(["pause", "resume", "promote", "abort", "retry"])
export type VerbName = typeof VerbName.Type

/** An operator's command: a fact the core decides on, recorded and replayed (`verb` in the controller's log). */
export const OperatorCommand = Schema.Struct({
  verb: VerbName,
  plan: Schema.String,
  /** Who gave it, as the CLI knows them (the user, or `--as`). */
  by: Schema.String,
  /** When the controller received it, epoch ms. */
  at: Schema.Number,
  /** Why, in the person's words (`--why`), or "". */
  why: Schema.String,
})
export type OperatorCommand = typeof OperatorCommand.Type

/** A verb as the CLI sends it on the bus to a controller; the controller stamps `at` when it receives it. */
export const VerbRequest = Schema.Struct({ verb: VerbName, plan: Schema.String, by: Person, why: Reason })
export type VerbRequest = typeof VerbRequest.Type

/** The controller's reply: the sentence said, and the exit code (0 done, 2 refused, 3 something could not be read). */
export const VerbReply = Schema.Struct({
  ok: Schema.Boolean,
  code: Schema.Literals([0, 2, 3]),
  said: Schema.String,
  plan: Schema.optionalKey(Schema.Unknown),
})
export type VerbReply = typeof VerbReply.Type

export const commandOf = (r: VerbRequest, at: number): OperatorCommand => ({ ...r, at })

/** What one judging found, or that it could not ask (the store or the bus unreadable: issue 10). */
export const JudgingWord = JudgingOutcome
export type JudgingWord = typeof JudgingWord.Type

/** One line of a plan's history: a judging of its gate, or a verb given to it. */
export const HistoryEntry = Schema.Union([
  Schema.Struct({
    kind: Schema.Literal("judging"),
    at: Schema.Number,
    tier: Schema.Number,
    word: JudgingWord,
    /** What was wanting (not yet, broken), what could not be asked, or "" when healthy. */
    why: Schema.String,
    passes: Schema.Number,
    /** The verdict this judging gave, if it gave one. */
    decided: Schema.optionalKey(Schema.Literals(["passed", "failed"])),
  }),
  Schema.Struct({
    kind: Schema.Literal("verb"),
    at: Schema.Number,
    verb: Schema.Union([VerbName, Schema.Literal("paused-by-errors")]),
    by: Schema.String,
    why: Schema.String,
  }),
])
export type HistoryEntry = typeof HistoryEntry.Type

/**
 * A plan's history, bounded (core/src/gate/plan/history.ts): the first entries and the newest, and how
 * many between them were dropped.
 */
export const HistoryRecord = Schema.Struct({
  first: Schema.Array(HistoryEntry),
  newest: Schema.Array(HistoryEntry),
  dropped: Schema.Number,
})
export type HistoryRecord = typeof HistoryRecord.Type

/** A module another than the plan's whose build a send changed on a machine; `before`, the build it had there (absent: none). */
export const CarriedRecord = Schema.Struct({
  node: Schema.String,
  module: Schema.String,
  build: Schema.String,
  before: Schema.optionalKey(Schema.String),
})
export type CarriedRecord = typeof CarriedRecord.Type

/** A plan paused: by a person, or by the controller after measurement errors in a row. */
const PausedRecord = Schema.Struct({ by: Schema.String, at: Schema.Number, why: Schema.String })

/**
 * A release plan, as the plans table keeps it. What rows kept before lack stays optional here, though
 * the store has their tiers, what was sent and the history back-filled (migration 0019): the shipped
 * logs' recorded plans lack them too, and `simulate --json` prints each plan a replay saves as its
 * code spelt it: a default given by this Schema's decoding would add those keys, in the Schema's
 * order, to every such plan, and a recorded day's replay would print otherwise (issue 39).
 */
export const PlanRecord = Schema.Struct({
  id: Schema.String,
  module: Schema.String,
  build: Schema.String,
  commit: Schema.String,
  previous: Schema.String,
  previousBuild: Schema.optionalKey(Schema.String),
  machines: Names,
  rest: Names,
  sentAt: Schema.Number,
  state: PlanState,
  gate: Schema.optionalKey(GateRecord),
  note: Schema.String,
  // Absent on rows kept before tiers (core/src/gate/plan/plan.ts reads them): one tier, the first
  // machines, which the release sent.
  /** The machines judged in turn, each tier by the gate before the next is sent. */
  tiers: Schema.optionalKey(Schema.Array(Names)),
  /** The tier being sent or judged, from 0. */
  tier: Schema.optionalKey(Schema.Number),
  /** The machines sent the new build so far (reached). */
  sent: Schema.optionalKey(Names),
  putBack: Schema.optionalKey(PutBackRecord),
  /** How many sends in a row did not reach every machine asked (the rest, a tier, the rollback). */
  tries: Schema.optionalKey(Schema.Number),
  /** When it last sent, or was about to: the next try waits for the retry policy (core/src/gate/plan/plan.ts). */
  triedAt: Schema.optionalKey(Schema.Number),
  // Issue 10 (all absent on rows kept before: not paused, not a dry run, no errors, no history).
  /** Paused: not judged (it still holds its machines) until resumed. */
  paused: Schema.optionalKey(PausedRecord),
  /** How long the current tier's gate was paused: not counted against its bound. */
  pausedFor: Schema.optionalKey(Schema.Number),
  /** A dry run: judges its first tier as a real gate would and says what it would have decided; registers, holds, sends and puts back nothing else. */
  dryRun: Schema.optionalKey(Schema.Boolean),
  /** Judgings in a row that could not ask (measurement errors); reset by one that could. */
  errors: Schema.optionalKey(Schema.Number),
  history: Schema.optionalKey(HistoryRecord),
  // Issue 26 (absent on rows kept before, and while the tier's sends moved nothing else).
  /** Each other module whose build the current tier's sends changed on a machine: judged and passed with it (seed 003's Carried). */
  carried: Schema.optionalKey(Schema.Array(CarriedRecord)),
  /** The tier's machines told a declaration without the module: not judged on it (seed 003's running filter). */
  without: Schema.optionalKey(Names),
})
export type PlanRecord = typeof PlanRecord.Type

export const BuildRecord = Schema.Struct({
  build: Schema.String,
  module: Schema.String,
  commit: Schema.String,
  source: Schema.optionalKey(Schema.String),
  /** The fingerprints of the manifest it was made from and of the artifacts it made (seed 003's unchangedBy). */
  manifest: Schema.optionalKey(Schema.String),
  artifacts: Schema.optionalKey(Schema.String),
})
export type BuildRecord = typeof BuildRecord.Type

/**
 * A plan's send: the machines told; those told a declaration without the module (`without`); each
 * other module whose build it changed on a machine told (`carried`). Absent in logs from before.
 */
export const Sent = Schema.Struct({
  told: Names,
  error: Schema.optionalKey(Schema.String),
  without: Schema.optionalKey(Names),
  carried: Schema.optionalKey(Schema.Array(CarriedRecord)),
})
export type Sent = typeof Sent.Type
