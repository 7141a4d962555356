// What the provisioner core knows: who it is, its settings, the facts it is fed and the memory it
// keeps between passes. All of it immutable; a step answers a new memory rather than changing one.
import * as Schema from "effect/Schema"
import type { JsonObject } from "../json.ts"

/** The provider this loop runs for: its resource, the file the mesh delivers, and its machine. */
export interface Provider {
  readonly resource: string
  readonly receives: string
  readonly node: string
  /**
   * Hold a document that would withdraw every consumer, or more than half (contributions.ts `heldWithdrawal`). The live
   * provider sets it unless a person passed --allow-mass-withdrawal; unset, the loop is the seed's.
   */
  readonly holdMassWithdrawal?: boolean
}

export const settingNames = ["every", "verifyEvery", "holdsTimeout", "failingAfter", "sayAgainEvery"] as const
export type SettingName = (typeof settingNames)[number]

/**
 * The loop's settings, in milliseconds. `failingAfter`: how long a consumer fails without a success
 * before it is announced (novox/hq ADR 0224); `sayAgainEvery`: how often it is announced again while it
 * lasts, so a controller that missed the first hears the next.
 */
export type Settings = { readonly [K in SettingName]: number }

export const defaultSettings: Settings = {
  every: 5_000,
  verifyEvery: 60_000,
  holdsTimeout: 30_000,
  failingAfter: 5 * 60_000,
  sayAgainEvery: 15 * 60_000,
}

/** One consumer's resource to bring into being: everything the mesh derived and delivered. */
export const Provision = Schema.Struct({
  as: Schema.String,
  password: Schema.String,
  values: Schema.JsonObject,
  derived: Schema.JsonObject,
  at: Schema.String,
  consumer: Schema.String,
})
export type Provision = typeof Provision.Type

/** One consumer's grant, as the contributions document gives it: its secret's path and its machine. */
export type Contribution = Omit<Provision, "password" | "consumer"> & { readonly secret: string; readonly node: string }

/** The password a secret file holds: one trailing newline is not part of it. */
export const passwordIn = (secretText: string): string =>
  secretText.endsWith("\n") ? secretText.slice(0, -1) : secretText

export type DocumentRead =
  | { readonly read: "ok"; readonly text: string }
  | { readonly read: "failed"; readonly error: string }

/** An answer about one consumer: which call it answers, when, and what came. */
const answered = <K extends string, F extends Schema.Struct.Fields>(call: K, fields: F) =>
  Schema.Struct({ fact: Schema.Literal(call), at: Schema.Number, as: Schema.String, ...fields })
const failedCall = { outcome: Schema.Literal("error"), error: Schema.String }
const adapterClass = Schema.UndefinedOr(Schema.String)

/** Each call's answer (questions.ts): a line of the fact log, as the core is fed it. */
export const CallAnswers = {
  secret: Schema.Union([
    answered("secret", { read: Schema.Literal("ok"), password: Schema.String }),
    answered("secret", { read: Schema.Literal("failed"), error: Schema.String }),
  ]),
  holds: Schema.Union([
    answered("holds", { outcome: Schema.Literals(["held", "not-held"]) }),
    answered("holds", { ...failedCall, class: adapterClass, timedOut: Schema.Boolean }),
  ]),
  create: Schema.Union([
    answered("create", { outcome: Schema.Literal("ok") }),
    answered("create", { ...failedCall, class: adapterClass }),
  ]),
  remove: Schema.Union([answered("remove", { outcome: Schema.Literal("ok") }), answered("remove", failedCall)]),
}

/** An answer to one of the pass's questions (questions.ts), as the fact log records it. */
export const AnswerFact = Schema.Union([CallAnswers.secret, CallAnswers.holds, CallAnswers.create, CallAnswers.remove])
export type AnswerFact = typeof AnswerFact.Type

/** Everything the core is fed: a pass beginning with the document as read, and each call's answer. */
export type Fact = { readonly fact: "pass"; readonly at: number; readonly document: DocumentRead } | AnswerFact

/** A line the provider says in its journal, without the "[provisioner:<resource>] " prefix. */
export interface Said {
  readonly at: number
  readonly text: string
}

export const EventFailing = "provisioner.failing"
export const EventRecovered = "provisioner.recovered"

// The provider's two words on the bus (novox/hq ADR 0224), spelled once for the provider that sends
// them (the announce act, the outbox file) and the controller that hears them (standings/word.ts
// reads the same fields against the store's limits).
const Count = Schema.Number.check(
  Schema.isInt({ message: "not a whole number" }),
  Schema.isGreaterThanOrEqualTo(0, { message: "negative" }),
)

export const FailingBody = Schema.Struct({
  attempts: Count,
  class: Schema.String,
  consumer: Schema.String,
  error: Schema.String,
  node: Schema.String,
  provider: Schema.String,
  "provider-node": Schema.String,
  since: Schema.String,
})

export const RecoveredBody = Schema.Struct({
  attempts: Schema.optionalKey(Count),
  consumer: Schema.String,
  node: Schema.optionalKey(Schema.String),
  provider: Schema.String,
  "provider-node": Schema.String,
  since: Schema.optionalKey(Schema.String),
  why: Schema.optionalKey(Schema.Literals(["withdrawn", "first-success"])),
})
export type RecoveredBody = typeof RecoveredBody.Type

export const Announcement = Schema.Union([
  Schema.Struct({ at: Schema.Number, event: Schema.Literal(EventFailing), body: FailingBody }),
  Schema.Struct({ at: Schema.Number, event: Schema.Literal(EventRecovered), body: RecoveredBody }),
])
export type Announcement = typeof Announcement.Type

// ---- memory ----

export interface Applied {
  readonly hash: string
  readonly derived: JsonObject
  /** Kept so a failed Remove's error can be scrubbed too; memory is never said or recorded. */
  readonly passwordForms: ReadonlyArray<string>
}

/** One consumer's unbroken run of failures: since when, how often, and the last error. */
export interface Standing {
  readonly node: string
  readonly since: number
  readonly attempts: number
  readonly class: string
  readonly text: string
  readonly saidAt: number | undefined
}

/** What a secret and a contribution came to, kept so an unchanged pass does not work it out again. */
export interface Worked {
  readonly secretText: string
  readonly contribution: Contribution
  readonly provision: Provision
  readonly hash: string
  readonly forms: ReadonlyArray<string>
}

export interface ConsumerMemory {
  readonly worked: Worked | undefined
  readonly applied: Applied | undefined
  /** The brake on a consumer whose create keeps failing to satisfy Holds. */
  readonly lost: { readonly times: number; readonly nextAt: number | undefined } | undefined
  /** Passes in a row the secret could not be read (novox/hq issue 225). */
  readonly waiting: number
  readonly createFailure: { readonly text: string; readonly times: number } | undefined
  readonly trouble: Standing | undefined
  /** A success has been heard for this consumer since the process started. */
  readonly cleared: boolean
}

export const freshConsumer: ConsumerMemory = {
  worked: undefined,
  applied: undefined,
  lost: undefined,
  waiting: 0,
  createFailure: undefined,
  trouble: undefined,
  cleared: false,
}

export interface Memory {
  readonly verifiedAt: number | undefined
  readonly lastWarning: string
  readonly consumers: ReadonlyMap<string, ConsumerMemory>
  /** The document last read and what it said, so the same text is not read again each pass. */
  readonly document: { readonly text: string; readonly given: ReadonlyArray<Contribution> } | undefined
  /** The held withdrawal's standing (contributions.ts `heldWithdrawal`), kept as a consumer's. */
  readonly held?: ConsumerMemory
}

export const freshMemory: Memory = { verifiedAt: undefined, lastWarning: "", consumers: new Map(), document: undefined }
