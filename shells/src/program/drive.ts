// The one driver (issue 25): runs a core program (core/src/program.ts) of any area live. Each
// question it yields is answered by its area's answers (shells/src/<area>/answers.ts, written over
// that area's services only), each line it says goes to the journal, and the answers are kept in
// order for the recorder. A handler that fails (the store or the bus away) ends the drive with that
// failure: the worker decides nothing from it, it waits and tries again (retry.ts).
import {
  type AnswerOf,
  type Asked,
  type Catalogue,
  isSaid,
  type KindOf,
  type Program,
  type QuestionOf,
  type Yielded,
} from "@mesh-core/core/program"
import { Context, Effect, Option } from "effect"
import { Journal } from "../journal.ts"

/** What answers each kind of an area's questions. */
export type Answers<C extends Catalogue, E, R> = {
  readonly [K in KindOf<C>]: (question: QuestionOf<C, K>) => Effect.Effect<AnswerOf<C, K>, E, R>
}

/** One question and the answer it got: what a recorder writes. */
export interface Answered {
  readonly q: Asked
  readonly a: unknown
}

/** Sees every answer and every failed question of every drive, where a layer gives one (serve's metrics). */
export class ProgramWatch extends Context.Service<
  ProgramWatch,
  {
    readonly answered: (question: Asked, answer: unknown) => Effect.Effect<void>
    readonly failed: (kind: string, error: unknown) => Effect.Effect<void>
  }
>()("mesh-core/program/ProgramWatch") {}

export interface Driven<A> {
  readonly result: A
  readonly answers: ReadonlyArray<Answered>
  /** What the program said, when it was asked to say it only once it ended (`sayAtEnd`). */
  readonly said: ReadonlyArray<string>
}

type Table<E, R> = { readonly [kind: string]: ((question: Asked) => Effect.Effect<unknown, E, R>) | undefined }

/**
 * Runs `program` to its end. A program is a generator and runs once: a loop makes a new one each
 * time round (Effect.suspend). With `sayAtEnd`, what it says is kept and handed back rather than said,
 * for a program run in a transaction: said only once the transaction commits, so a program the store
 * failed (and that runs again) never said anything twice.
 */
export const drive = Effect.fn("Program.drive")(function* <C extends Catalogue, A, E, R>(
  program: Program<C, A>,
  answers: Answers<C, E, R>,
  options: { readonly sayAtEnd?: boolean } = {},
) {
  const journal = yield* Journal
  const watch = Option.getOrUndefined(yield* Effect.serviceOption(ProgramWatch))
  // The one place a question meets its handler by kind: `Answers` types each handler by its
  // kind's question and answer, which an index by a run-time kind cannot say to the compiler.
  const table = answers as unknown as Table<E, R>
  const kept: Array<Answered> = []
  const said: Array<string> = []
  let next: IteratorResult<Yielded<C>, A> = program.next(undefined)
  while (next.done !== true) {
    const y = next.value
    if (isSaid(y)) {
      if (options.sayAtEnd === true) said.push(y.line)
      else yield* journal.say(y.line)
      next = program.next(undefined)
      continue
    }
    const question: Asked = y
    const handler = table[question.q]
    if (handler === undefined)
      return yield* Effect.die(new Error(`the program asked ${question.q}, which its area does not answer`))
    const a = yield* handler(question).pipe(Effect.tapError((e) => watch?.failed(question.q, e) ?? Effect.void))
    if (watch !== undefined) yield* watch.answered(question, a)
    kept.push({ q: question, a })
    next = program.next(a)
  }
  return { result: next.value, answers: kept, said } satisfies Driven<A>
})
