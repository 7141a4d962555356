// The controller's log is one namespace (issue 25): every area's questions, joined. The log reader
// decodes an answer with the Schemas of the entry its question names; the replay reads what it infers
// of each kind from the areas' inference tables joined here, the timeline and the metrics their own
// (shown.ts, metered.ts). A kind is named by one area only (a test holds it), so a recorded log
// replays the same whichever area asks.
import * as Schema from "effect/Schema"
import { canonicalJson, sameJson } from "../json.ts"
import type { Catalogue, Inference, Inferred, QuestionOf } from "../program.ts"
import { planSendAsk, planSendOutcome, replayPush } from "../delivery/push.ts"
import { deliveryInference, deliveryQuestions, PushExchange, type ReportsTally } from "../delivery/questions.ts"
import { Sent, tickQuestions } from "../gate/tick/questions.ts"
import { releaseQuestions, verbQuestions } from "../gate/operator/questions.ts"
import { statementQuestions, witnessQuestions } from "../gate/messages/questions.ts"
import { gateInference, type GateTally, type GateWorld } from "../gate/world.ts"
import { standingsInference, standingsQuestions, type StandingsTally } from "../standings/questions.ts"

/**
 * Every catalogue a program of the controller is typed by, by its programs (issue 39): a kind two of
 * them name is the one entry they share, so each kind has one spelling (a test holds it).
 */
export const catalogues = {
  tick: tickQuestions,
  verbs: verbQuestions,
  release: releaseQuestions,
  statements: statementQuestions,
  witnesses: witnessQuestions,
  standings: standingsQuestions,
  delivery: deliveryQuestions,
} as const

const gateSend = tickQuestions["send-plan"]
type SendPlan = typeof gateSend.question.Type

/** A plan's send as recorded: what the gate was told, and the push's own exchanges when they were kept. */
const SentWithPush = Schema.Struct({ ...Sent.fields, exchanges: Schema.optionalKey(Schema.Array(PushExchange)) })

/**
 * The gate's `send-plan` joined with the delivery area (issue 25): the shell answers it by driving the
 * push program and records the push's exchanges with the answer. Replayed, the program is answered
 * what a log without them would answer it (a log with them prints the same lines), and the push runs
 * again over them: a composition, an order, a send or an outcome that is not the recorded one differs.
 * A send asked otherwise than recorded is counted as that act differing already. It is a second entry
 * of the kind, not the gate's own, because the push's exchanges are read by the push's catalogue,
 * which reads the plans (PlanRecord) and is delivery's: below the gate it cannot go, and in a gate
 * room it would be questions none of the gate's programs ask (issue 39).
 */
const sendPlan = { ...gateSend, answer: SentWithPush }
export const sendPlanInferred = {
  ...gateInference["send-plan"],
  replayed: (_q: SendPlan, recorded: typeof SentWithPush.Type): typeof Sent.Type => {
    const { exchanges: _, ...answer } = recorded
    return answer
  },
  differs: (q: SendPlan, recordedQ: SendPlan, recorded: typeof SentWithPush.Type): boolean => {
    const { exchanges, ...answer } = recorded
    if (exchanges === undefined) return false
    if (!sameJson(recordedQ, q) && canonicalJson(recordedQ) !== canonicalJson(q)) return false
    const replayed = replayPush(planSendAsk(q), exchanges)
    const outcome = replayed.end === undefined ? undefined : planSendOutcome(q, replayed.end)
    return replayed.differed > 0 || outcome === undefined || !sameJson(outcome, answer)
  },
} satisfies Inferred<SendPlan, typeof SentWithPush.Type, ControllerWorld>

export const controllerQuestions = {
  ...tickQuestions,
  ...verbQuestions,
  ...releaseQuestions,
  ...statementQuestions,
  ...witnessQuestions,
  "send-plan": sendPlan,
  ...standingsQuestions,
  ...deliveryQuestions,
}
export type ControllerQuestions = typeof controllerQuestions

/** What the controller's replay keeps of the day: each area's world (the gate's alone keeps any). */
export type ControllerWorld = GateWorld

/** What a replayed controller's day counts, area by area, beside what the timeline counts itself. */
export type AreasTally = GateTally & StandingsTally & ReportsTally

/** Any question of the controller's programs, as recorded. */
export type Question = QuestionOf<ControllerQuestions>
export type Kind = Question["q"]

const inference: Inference<ControllerQuestions, ControllerWorld> = {
  ...gateInference,
  "send-plan": sendPlanInferred,
  ...standingsInference,
  ...deliveryInference,
}
// By kind in a Map: a replay looks a row up for every question asked and every answer recorded.
const inferred: ReadonlyMap<string, Inferred<Question, unknown, ControllerWorld>> = new Map(Object.entries(inference))

/** What the replay infers of a kind, when the controller knows it. */
export const inferredOf = (kind: string): Inferred<Question, unknown, ControllerWorld> | undefined => inferred.get(kind)

export const kinds: ReadonlyArray<string> = Object.keys(controllerQuestions)
export const isKind = (k: unknown): k is Kind => typeof k === "string" && Object.hasOwn(controllerQuestions, k)

const acts: Catalogue = controllerQuestions
/** The questions that change something: what a replay shows as the controller's acts. */
export const actKinds: ReadonlySet<string> = new Set(kinds.filter((k) => acts[k]!.act))
