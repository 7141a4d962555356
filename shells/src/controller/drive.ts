// Drives a core program live (core/src/controller/program.ts): each question it yields is answered
// by the handler the worker gives for its kind, typed by the core's Catalogue, and each line it says
// goes to the journal. The answers are kept in order, for the recording. A handler that fails (the
// store or the bus away) ends the drive with that failure: the worker decides nothing from it, it
// waits and tries again (retry.ts). One driver for every worker: the gate, the standings, reports
// and health statements (issue 8).
import type { Program, Yielded } from "@mesh-core/core/controller/program"
import type { Answers, Kind, Question } from "@mesh-core/core/controller/questions"
import { Effect, Option } from "effect"
import { Journal } from "../journal.ts"
import { Metrics } from "../metrics/service.ts"
import type { Answered } from "./recorder.ts"

export type QuestionOf<K extends Kind> = Extract<Question, { readonly q: K }>

/** What answers each kind of question a program may ask; a kind it has no handler for is a defect of the wiring. */
export type Handlers<E, R> = { readonly [K in Kind]?: (q: QuestionOf<K>) => Effect.Effect<Answers[K], E, R> }

export interface Driven<A> {
  readonly result: A
  readonly answers: ReadonlyArray<Answered>
  /** What the program said, when it was asked to say it only once it ended (`sayAtEnd`). */
  readonly said: ReadonlyArray<string>
}

/**
 * Runs `program` to its end. A program is a generator and runs once: a loop makes a new one each
 * time round (Effect.suspend). With `sayAtEnd`, what it says is kept and handed back rather than said,
 * for a program run in a transaction: said only once the transaction commits, so a program the store
 * failed (and that runs again) never said anything twice.
 */
export const drive = <A, E, R>(program: Program<A>, handlers: Handlers<E, R>, options: { readonly sayAtEnd?: boolean } = {}) =>
  Effect.gen(function*() {
    const journal = yield* Journal
    // Metrics where serve gives them (the watch port requires them); a test or a one-shot command drives without.
    const metrics = Option.getOrUndefined(yield* Effect.serviceOption(Metrics))
    const answers: Array<Answered> = []
    const said: Array<string> = []
    let next: IteratorResult<Yielded, A> = program.next(undefined)
    while (next.done !== true) {
      const y = next.value
      if (y.q === "say") {
        if (options.sayAtEnd === true) said.push(y.line)
        else yield* journal.say(y.line)
        next = program.next(undefined)
        continue
      }
      const handler = handlers[y.q] as ((q: Question) => Effect.Effect<unknown, E, R>) | undefined
      if (handler === undefined) return yield* Effect.die(new Error(`the program asked ${y.q}, which this worker does not answer`))
      const a = yield* handler(y).pipe(Effect.tapError((e) => metrics?.failed(y.q, e) ?? Effect.void))
      if (metrics !== undefined) yield* metrics.answered(y, a)
      answers.push({ q: y, a })
      next = program.next(a)
    }
    return { result: next.value, answers, said } satisfies Driven<A>
  }).pipe(Effect.withSpan("Controller.drive"))

/**
 * `program`, begun now: run up to its first question, which needs no answer from anyone yet. A
 * follower begins a batch's program while the store keeps the batch before (issue 11); driven later,
 * it goes on from where it stopped, as the same program would.
 */
export const begun = <A>(program: Program<A>): Program<A> => continued(program, program.next(undefined))

function* continued<A>(program: Program<A>, first: IteratorResult<Yielded, A>): Program<A> {
  let next = first
  while (next.done !== true) next = program.next(yield next.value)
  return next.value
}
