// The provisioner's catalogue (issue 25): every question seed 000's loop asks as it reconciles (a
// secret read, Holds, Create, Remove) and the one act it does with its words (an announcement on
// the bus), each with the Schema of its question and of its answer and whether it is an act; what a
// what-if replay answers when the day never asked it is a table beside it. The pass (pass.ts) is a program of this
// catalogue; the live provider answers it in shells/src/provisioner/answers.ts; a replayed day
// answers the four calls from the fact log, whose lines are these answers (log.ts).
import * as Schema from "effect/Schema"
import { type AnswerOf, entry, type Inference, type QuestionOf } from "../program.ts"
import { type AnswerFact, Announcement, type Provision } from "./model.ts"

const q = <K extends string, F extends Schema.Struct.Fields>(kind: K, fields: F) =>
  Schema.Struct({ q: Schema.Literal(kind), ...fields })
const fact = <K extends string, F extends Schema.Struct.Fields>(kind: K, fields: F) =>
  Schema.Struct({ fact: Schema.Literal(kind), at: Schema.Number, as: Schema.String, ...fields })

const ProvisionSchema = Schema.Struct({
  as: Schema.String,
  password: Schema.String,
  values: Schema.JsonObject,
  derived: Schema.JsonObject,
  at: Schema.String,
  consumer: Schema.String,
})

const SecretAnswer = Schema.Union([
  fact("secret", { read: Schema.Literal("ok"), password: Schema.String }),
  fact("secret", { read: Schema.Literal("failed"), error: Schema.String }),
])
const HoldsAnswer = Schema.Union([
  fact("holds", { outcome: Schema.Literals(["held", "not-held"]) }),
  fact("holds", {
    outcome: Schema.Literal("error"),
    error: Schema.String,
    class: Schema.UndefinedOr(Schema.String),
    timedOut: Schema.Boolean,
  }),
])
const CreateAnswer = Schema.Union([
  fact("create", { outcome: Schema.Literal("ok") }),
  fact("create", { outcome: Schema.Literal("error"), error: Schema.String, class: Schema.UndefinedOr(Schema.String) }),
])
const RemoveAnswer = Schema.Union([
  fact("remove", { outcome: Schema.Literal("ok") }),
  fact("remove", { outcome: Schema.Literal("error"), error: Schema.String }),
])
/** An answer to one of the four calls: a line of the fact log, as the core is fed it. */
const RecordedAnswer = Schema.Union([SecretAnswer, HoldsAnswer, CreateAnswer, RemoveAnswer])

/** The calls a fact log records an answer to, and a replay matches by call and consumer. */
export type Call = "secret" | "holds" | "create" | "remove"

/** The last answer a replay heard to each call, by call and then consumer (two maps: no key strings). */
export type LastAnswers = ReadonlyMap<Call, ReadonlyMap<string, AnswerFact>>

/** What a what-if replay knows when the day never asked a question: the time, and what it heard last. */
export interface WhatIfWorld {
  readonly at: number
  readonly heard: LastAnswers
}

/** The last answer heard to `call` for `as`, at the time asked now. */
const lastHeard = (world: WhatIfWorld, call: Call, as: string): AnswerFact | undefined => world.heard.get(call)?.get(as)

export const provisionerQuestions = {
  secret: entry({
    question: q("secret", { as: Schema.String, path: Schema.String }),
    answer: SecretAnswer,
    act: false,
  }),
  holds: entry({
    question: q("holds", { as: Schema.String, provision: ProvisionSchema }),
    answer: HoldsAnswer,
    act: false,
  }),
  create: entry({
    question: q("create", { as: Schema.String, provision: ProvisionSchema }),
    answer: CreateAnswer,
    act: true,
  }),
  remove: entry({
    question: q("remove", { as: Schema.String, derived: Schema.JsonObject }),
    answer: RemoveAnswer,
    act: true,
  }),
  // The provider's words on the bus. Never in the fact log: a replay announces what the core
  // announces, which is what it checks; an act, done (the outbox publishes it, announcer.ts).
  announce: entry({
    question: q("announce", { announcement: Announcement }),
    answer: Schema.Undefined,
    act: true,
  }),
}

export type ProvisionerQuestions = typeof provisionerQuestions

/** Any question of the pass, its announcements among them. */
export type Question = QuestionOf<ProvisionerQuestions>

/** A question the fact log answers: one of the four calls. */
export type Request = QuestionOf<ProvisionerQuestions, Call>

/** Whether `fact` answers `request`: the same call, for the same consumer. */
export const answers = (fact: AnswerFact, request: Request): boolean =>
  fact.fact === request.q && fact.as === request.as

// A question the day never asked is answered with the last answer heard to it (a success when none
// was): a what-if says how much of it is inferred (the replay counts each).
const provisionerInference: Inference<ProvisionerQuestions, WhatIfWorld> = {
  secret: {
    whatIf: (question, world) => {
      const last = lastHeard(world, "secret", question.as)
      return last?.fact === "secret"
        ? { ...last, at: world.at }
        : { fact: "secret", at: world.at, as: question.as, read: "ok", password: "fingerprint:(not in the recording)" }
    },
  },
  holds: {
    whatIf: (question, world) => {
      const last = lastHeard(world, "holds", question.as)
      return last?.fact === "holds"
        ? { ...last, at: world.at }
        : { fact: "holds", at: world.at, as: question.as, outcome: "held" }
    },
  },
  create: {
    whatIf: (question, world) => {
      const last = lastHeard(world, "create", question.as)
      return last?.fact === "create"
        ? { ...last, at: world.at }
        : { fact: "create", at: world.at, as: question.as, outcome: "ok" }
    },
  },
  remove: {
    whatIf: (question, world) => {
      const last = lastHeard(world, "remove", question.as)
      return last?.fact === "remove"
        ? { ...last, at: world.at }
        : { fact: "remove", at: world.at, as: question.as, outcome: "ok" }
    },
  },
  announce: { whatIf: () => undefined },
}

/** What a what-if replay answers to `request`, which the day never asked. */
export const inferredAnswer = (request: Request, world: WhatIfWorld): AnswerFact => {
  // The row of `request.q` takes its own kind's question; the pass's time is in the world.
  const row: { whatIf(question: Request, world: WhatIfWorld, now: number): AnswerFact } =
    provisionerInference[request.q]
  return row.whatIf(request, world, 0)
}

const isRecorded = Schema.is(RecordedAnswer)

/** The fact a live answer is, when it answers one of the four calls (an announcement is none). */
export const factOf = (answer: unknown): AnswerFact | undefined => (isRecorded(answer) ? answer : undefined)

// The answers as the catalogue types them are the facts model.ts names: a change to either is a
// type error here, not a log that no longer reads.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
const same = <T extends true>(_: T): void => undefined
same<Same<AnswerOf<ProvisionerQuestions, "secret">, Extract<AnswerFact, { readonly fact: "secret" }>>>(true)
same<Same<AnswerOf<ProvisionerQuestions, "holds">, Extract<AnswerFact, { readonly fact: "holds" }>>>(true)
same<Same<AnswerOf<ProvisionerQuestions, "create">, Extract<AnswerFact, { readonly fact: "create" }>>>(true)
same<Same<AnswerOf<ProvisionerQuestions, "remove">, Extract<AnswerFact, { readonly fact: "remove" }>>>(true)
same<Same<typeof ProvisionSchema.Type, Provision>>(true)
