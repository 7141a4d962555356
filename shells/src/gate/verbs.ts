// serve's answer to an operator's verb (issue 10, docs/gate.md "What serve and the CLI call to carry
// the verbs out"): a request on this controller's verb subject is read by the core's Schema (an odd
// one is refused, and the worker goes on answering), dated by the Clock, recorded as the input fact
// `verb`, and carried out by the core's `operatorVerb` through the same driver as the gate, taking
// the gate's turn (never beside a tick: both save the plan). Whether this controller may act is the
// lease's: `mine` while it holds it, else the lease record's holder is named. What is done and said
// is the core's; this reads, writes, sends and waits.
import { operatorVerb } from "@mesh-core/core/gate/operator/operator"
import { commandOf, VerbRequest, type VerbReply } from "@mesh-core/core/gate/plan/records"
import {
  notCarriedOut,
  oddRequest,
  recordHolder,
  turnNotCome,
  verbSubject,
} from "@mesh-core/core/gate/operator/verb-wire"
import type { AnswerOf } from "@mesh-core/core/program"
import type { VerbQuestions } from "@mesh-core/core/gate/operator/questions"
import type { GateSettings } from "@mesh-core/core/gate/judging/judge"
import type { LeaseSeen } from "@mesh-core/core/lease/view"
import { Cause, Clock, Effect, Layer, Option, Schema, Stream } from "effect"
import { GateWakes } from "../followers/wakes.ts"
import { Bus, requests } from "../bus/nats.ts"
import { prefixed } from "../bus/subjects.ts"
import { drive } from "../program/drive.ts"
import { ControllerRecorder } from "../program/recorder.ts"
import { ControllerSettings } from "../config.ts"
import { type VerbBase, VerbAnswers } from "./operator-answers.ts"
import type { Answers } from "../program/drive.ts"
import { GateTurn } from "./turn.ts"
import { ControllerName } from "../lease/name.ts"

export { GateTurn } from "./turn.ts"
export { ControllerName } from "../lease/name.ts"
import { say } from "../journal.ts"
import { untilItAnswers } from "../retry.ts"
import { leaseBucketName } from "../lease/bucket.ts"
import { leaseSeenOn } from "../lease/read.ts"
import { LeaseView } from "../metrics/probes.ts"

/**
 * The gate's turn: one program at a time that may save a plan. The gate runner takes it around each
 * tick and the verb responder around each verb, so a verb runs between two ticks, never beside one.
 */

/**
 * `lease-holder`: handing over while this controller stops its acts (with whoever the record names now),
 * mine while it holds the lease, else whoever the record names.
 */
export const leaseHolderOf =
  (view: LeaseView["Service"], record: Effect.Effect<LeaseSeen>, self: string) =>
  (): Effect.Effect<AnswerOf<VerbQuestions, "lease-holder">> =>
    Effect.gen(function* () {
      if (yield* view.handingOver) {
        const h = recordHolder(yield* record, yield* Clock.currentTimeMillis)
        return { ok: true, value: { mine: false, holder: h.ok ? h.value : null, handingOver: true, self } }
      }
      const seen = yield* view.seen
      if (seen.held) return { ok: true, value: { mine: true, holder: seen.holder ?? null } }
      const h = recordHolder(yield* record, yield* Clock.currentTimeMillis)
      return h.ok ? { ok: true, value: { mine: false, holder: h.value } } : h
    })

/** The verb's questions: the verbs' answers (operator-answers.ts), and `lease-holder` from this controller's lease. */
export const verbHandlers = <E, R>(
  base: Answers<VerbBase, E, R>,
  leaseHolder: () => Effect.Effect<AnswerOf<VerbQuestions, "lease-holder">>,
): Answers<VerbQuestions, E, R> => ({ ...base, "lease-holder": leaseHolder })

const decodeRequest = Schema.decodeUnknownExit(Schema.fromJsonString(VerbRequest))

/** How long a verb waits for the gate's turn: with the verb's own reads (5 s each at most), well within the operator's 20 s. */
const verbTurnWaitMs = 8_000

/**
 * One request's reply, as sent: never fails, so the worker answers the next request whatever this one
 * was. Dated on receipt, recorded with every answer, run in the gate's turn.
 */
export const answerVerb = Effect.fn("Verbs.answer")(
  function* <E, R>(raw: string, handlers: Answers<VerbQuestions, E, R>, settings: GateSettings) {
    const decoded = decodeRequest(raw)
    if (decoded._tag === "Failure") {
      const reply = oddRequest(
        Cause.pretty(decoded.cause).split("\n").slice(0, 3).join(" ").replace(/\s+/g, " ").trim(),
      )
      yield* say(`[plans] ${reply.said}`)
      return reply
    }
    const turn = yield* GateTurn
    const recorder = yield* ControllerRecorder
    const command = commandOf(decoded.value, yield* Clock.currentTimeMillis)
    // Recorded inside the turn, so the log keeps the verb and the ticks in the order they ran; the
    // turn waited for only so long that the reply comes within the operator's 20 s.
    const inTurn = yield* turn.within(
      verbTurnWaitMs,
      drive(operatorVerb(command, settings), handlers).pipe(
        Effect.tap((d) => recorder.record({ fact: "verb", command }, d.answers)),
      ),
    )
    if (Option.isNone(inTurn)) {
      const reply = turnNotCome(verbTurnWaitMs)
      yield* say(`[plans] ${command.verb} ${command.plan}: ${reply.said}`)
      return reply satisfies VerbReply
    }
    const d = inTurn.value
    // A verb done wakes its plan (a resumed plan is judged at once, a promoted one sent).
    const wakes = yield* Effect.serviceOption(GateWakes)
    if (d.result.ok && Option.isSome(wakes)) yield* wakes.value.offer({ kind: "plan", plan: command.plan })
    return d.result satisfies VerbReply
  },
  (effect) =>
    effect.pipe(
      // A question the worker could not answer (the store away mid-verb, a question not wired): said,
      // replied with code 3, and the worker goes on.
      Effect.catchCause((cause) =>
        Effect.as(
          say(`[plans] a verb could not be carried out: ${Cause.pretty(cause).split("\n")[0]}`),
          notCarriedOut(Cause.pretty(cause).split("\n")[0] ?? "unknown"),
        ),
      ),
      Effect.map((reply: VerbReply) => JSON.stringify(reply)),
    ),
)

/**
 * Answers every verb sent to this controller until interrupted. `base` is the gate runner's handlers
 * (operator-answers.ts VerbAnswers); the lease record is read from the bus when this controller does not hold it.
 */
export const verbResponder = Effect.fn("Verbs.respond")(function* <E, R>(
  base: Answers<VerbBase, E, R>,
  prefix: string,
  settings: GateSettings,
) {
  const bus = yield* Bus
  const view = yield* LeaseView
  const { self } = yield* ControllerName
  const handlers = verbHandlers(base, leaseHolderOf(view, leaseSeenOn(bus, leaseBucketName(prefix)), self))
  const subject = verbSubject(prefixed(prefix).dot, self)
  const heard = yield* requests(subject)
  yield* say(`[plans] answering operators' verbs on ${subject}`)
  yield* heard.pipe(Stream.runForEach((m) => Effect.flatMap(answerVerb(m.body, handlers, settings), m.respond)))
})

/**
 * The responder as a worker of serve, over the gate's answers it gives itself. A candidate runs it
 * too (a verb refused, naming the holder); it needs the gate's turn and this controller's name.
 */
export const VerbResponderLive = Layer.effectDiscard(
  Effect.forkScoped(
    Effect.gen(function* () {
      const s = yield* ControllerSettings
      const base = yield* VerbAnswers
      // A subscription the bus ended is made again, as every worker waits out the bus (retry.ts).
      return yield* verbResponder(base, s.busPrefix, s.gate).pipe(Effect.scoped, Effect.retry(untilItAnswers))
    }).pipe(Effect.annotateLogs({ worker: "verbs" })),
  ),
).pipe(Layer.provide(VerbAnswers.layer))
