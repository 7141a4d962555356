// The provisioner's catalogue (issue 25): every question seed 000's loop asks as it reconciles (a
// secret read, Holds, Create, Remove) and the one act it does with its words (an announcement on
// the bus), each with the Schema of its question and of its answer and whether it is an act; what a
// what-if replay answers when the day never asked it is a table beside it. The pass (pass.ts) is a program of this
// catalogue; the live provider answers it in shells/src/provisioner/answers.ts; a replayed day
// answers the four calls from the fact log, whose lines are these answers (log.ts).
import * as Schema from "effect/Schema"
import { question as q } from "../outcome.ts"
import { type AnswerOf, entry, type Inference, type QuestionOf } from "../program.ts"
import { AnswerFact, Announcement, CallAnswers, Provision } from "./model.ts"

/** The calls a fact log records an answer to, and a replay matches by call and consumer. */
export type Call = "secret" | "holds" | "create" | "remove"

/** The last answer a replay heard to each call, by call and then consumer (two maps: no key strings). */
export type LastAnswers = ReadonlyMap<Call, ReadonlyMap<string, AnswerFact>>

/** What a what-if replay knows when the day never asked a question: the time, and what it heard last. */
export interface WhatIfWorld {
  readonly at: number
  readonly heard: LastAnswers
}

/** The answer to the call `K`, as the fact log records it. */
type Answer<K extends Call> = AnswerOf<ProvisionerQuestions, K>

/**
 * A question the day never asked is answered with the last answer heard to it, at the time asked now,
 * else with `fresh` (a success).
 */
const lastHeardOr = <K extends Call>(call: K, fresh: (as: string, at: number) => Answer<K>) => ({
  whatIf: (question: { readonly as: string }, world: WhatIfWorld): Answer<K> => {
    const last = world.heard.get(call)?.get(question.as)
    return isAnswerTo(last, call) ? { ...last, at: world.at } : fresh(question.as, world.at)
  },
})
const isAnswerTo = <K extends Call>(a: AnswerFact | undefined, call: K): a is Answer<K> => a?.fact === call

/** One of the four calls: asked about one consumer, answered as the fact log records its answer. */
const call = <K extends Call, F extends Schema.Struct.Fields, A extends boolean>(kind: K, fields: F, act: A) =>
  entry({ question: q(kind, { as: Schema.String, ...fields }), answer: CallAnswers[kind], act })

export const provisionerQuestions = {
  secret: call("secret", { path: Schema.String }, false),
  holds: call("holds", { provision: Provision }, false),
  create: call("create", { provision: Provision }, true),
  remove: call("remove", { derived: Schema.JsonObject }, true),
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

// A what-if says how much of what it answers is inferred (the replay counts each).
const provisionerInference: Inference<ProvisionerQuestions, WhatIfWorld> = {
  secret: lastHeardOr("secret", (as, at) => ({
    fact: "secret",
    at,
    as,
    read: "ok",
    password: "fingerprint:(not in the recording)",
  })),
  holds: lastHeardOr("holds", (as, at) => ({ fact: "holds", at, as, outcome: "held" })),
  create: lastHeardOr("create", (as, at) => ({ fact: "create", at, as, outcome: "ok" })),
  remove: lastHeardOr("remove", (as, at) => ({ fact: "remove", at, as, outcome: "ok" })),
  announce: { whatIf: () => undefined },
}

/** What a what-if replay answers to `request`, which the day never asked. */
export const inferredAnswer = (request: Request, world: WhatIfWorld): AnswerFact => {
  // The row of `request.q` takes its own kind's question; the pass's time is in the world.
  const row: { whatIf(question: Request, world: WhatIfWorld, now: number): AnswerFact } =
    provisionerInference[request.q]
  return row.whatIf(request, world, 0)
}

const isRecorded = Schema.is(AnswerFact)

/** The fact a live answer is, when it answers one of the four calls (an announcement is none). */
export const factOf = (answer: unknown): AnswerFact | undefined => (isRecorded(answer) ? answer : undefined)
