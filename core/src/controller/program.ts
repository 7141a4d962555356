// A decision of the controller as a program: it yields each question it needs answered (a store
// read, what the bus says) and each act it wants done (a write, a send, an event), and receives the
// answer or the act's outcome, in the shape of the seed's own functions, which read and act as they
// decide. Nothing else reaches it. So the live controller and a replayed day run the same code: a
// shell answers by doing the I/O and records each answer as a fact; `simulate` answers from the
// recording (novox/hq issue 179's lesson, taken to the controller: a decision nobody can replay is
// a decision nobody can check).
import type { Answers, Question } from "./questions.ts"

/** What a program yields: a question or an act, and what it says to the journal on the way. */
export type Yielded = Question | Said

export interface Said {
  readonly q: "say"
  readonly line: string
}

export type Program<R> = Generator<Yielded, R, unknown>

/**
 * Asks one question and answers its answer, typed by the question. The driver is what makes the
 * type true: live, the handler for `q` is typed by the catalogue; replayed, the recorded answer was
 * decoded by the catalogue's Schema for `q` before it is handed back.
 */
export function* ask<Q extends Question>(question: Q): Generator<Yielded, Answers[Q["q"]], unknown> {
  const answer: unknown = yield question
  return answer as Answers[Q["q"]]
}

export function* say(line: string): Generator<Yielded, void, unknown> {
  yield { q: "say", line }
}

/** One question asked and the answer it got: what a recording keeps and a replay checks. */
export interface Exchange {
  readonly question: Question
  readonly answer: unknown
}

export interface Ran<R> {
  readonly result: R
  readonly said: ReadonlyArray<string>
  readonly exchanges: ReadonlyArray<Exchange>
  /** Words and exchanges in the order they happened. */
  readonly events: ReadonlyArray<{ readonly said: string } | { readonly exchange: Exchange }>
}

/**
 * Runs a program to its end with a pure answerer: how replays and tests drive it. `answer` gets the
 * question and the exchanges so far, and answers it (or throws, when nothing can answer it).
 */
export const runPure = <R>(program: Program<R>, answer: (q: Question, so: ReadonlyArray<Exchange>) => unknown): Ran<R> => {
  const said: Array<string> = []
  const exchanges: Array<Exchange> = []
  const events: Array<{ readonly said: string } | { readonly exchange: Exchange }> = []
  let next = program.next(undefined)
  while (next.done !== true) {
    const y = next.value
    if (y.q === "say") {
      said.push(y.line)
      events.push({ said: y.line })
      next = program.next(undefined)
      continue
    }
    const a = answer(y, exchanges)
    const exchange = { question: y, answer: a }
    exchanges.push(exchange)
    events.push({ exchange })
    next = program.next(a)
  }
  return { result: next.value, said, exchanges, events }
}
