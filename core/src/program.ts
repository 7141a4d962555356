// The one way a decision asks (issue 25). A decision is a program: a generator that yields each
// question it needs answered (a store read, what the bus says) and each act it wants done (a write,
// a send, an event), and is sent back the answer or the act's outcome, in the shape of the seeds' own
// functions, which read and act as they decide. Nothing else reaches it. So the live controller, the
// provider and a replayed day run the same code: a shell answers by doing the I/O and records each
// answer as a fact; `simulate` answers from the recording (novox/hq issue 179's lesson: a decision
// nobody can replay is a decision nobody can check).
//
// Every area has one catalogue (`core/src/<area>/questions.ts`): an entry per question, and an entry
// is a contract: its question's Schema, its answer's, and whether asking it changes the world. A
// program is typed by its area's catalogue, so it cannot ask another area's question, and `ask` hands
// back that question's own answer type. What a replay infers, what the timeline shows and what the
// metrics count of a question are tables of their own (mapped types over the catalogue's kinds), so
// the compiler asks each of them for a row for every kind, and a row says "nothing" only by saying it.
import type * as Schema from "effect/Schema"

/** A question as it is yielded and recorded: its kind in `q`, its arguments beside it. */
export interface Asked {
  readonly q: string
}

/** A line a program says to the journal on the way. */
export interface Said {
  readonly q: "say"
  readonly line: string
}

/** One question's contract: what is asked, what is answered, and whether asking changes the world. */
export interface Entry<Q extends Schema.Top, A extends Schema.Top, Act extends boolean = boolean> {
  /** The question as recorded: a Struct whose `q` is the entry's own kind. */
  readonly question: Q
  /** The answer as recorded. */
  readonly answer: A
  /**
   * True when asking it changes the world (a row written, a message sent): a replay shows it and checks
   * it is the one recorded. False, its handler only reads (a test holds the shells' handlers to it).
   */
  readonly act: Act
}

/** An area's catalogue: its questions by kind. */
export type Catalogue = {
  readonly [kind: string]: {
    readonly question: Schema.Top & { readonly Type: Asked }
    readonly answer: Schema.Top
    readonly act: boolean
  }
}

export type KindOf<C extends Catalogue> = keyof C & string

/** The questions of a catalogue, or of one of its kinds. */
export type QuestionOf<C extends Catalogue, K extends KindOf<C> = KindOf<C>> = { [P in K]: C[P]["question"]["Type"] }[K]

/** The answer to one kind of question. */
export type AnswerOf<C extends Catalogue, K extends KindOf<C>> = C[K]["answer"]["Type"]

/** What a program of catalogue `C` yields. */
export type Yielded<C extends Catalogue> = QuestionOf<C> | Said

/**
 * A program of catalogue `C` returning `R`. What it is sent back is typed by `ask` (the generator's
 * own next-value type is `any`, as `Effect.gen`'s is): the driver makes it true, live by answering
 * each kind with the handler the catalogue types, replayed by decoding the recorded answer with the
 * entry's Schema.
 */
export type Program<C extends Catalogue, R> = Generator<Yielded<C>, R, any>

/** The kind a question names, as its catalogue knows it. */
type KindNamed<C extends Catalogue, Q> = Q extends { readonly q: infer K } ? K & KindOf<C> : never

/** What an area's programs ask and say with: `const { ask, say } = programsOf(gateQuestions)`. */
export interface Asking<C extends Catalogue> {
  readonly ask: <Q extends QuestionOf<C>>(question: Q) => Generator<Yielded<C>, AnswerOf<C, KindNamed<C, Q>>, any>
  readonly say: (line: string) => Generator<Yielded<C>, void, any>
}

export const programsOf = <C extends Catalogue>(_catalogue: C): Asking<C> => ({
  ask: function* (question) {
    return yield question
  },
  say: function* (line) {
    yield { q: "say", line }
  },
})

/** Makes an entry, its `q` tied to its kind by the question's Schema, `act` kept as the literal it is. */
export const entry = <Q extends Schema.Top, A extends Schema.Top, const Act extends boolean>(
  e: Entry<Q, A, Act>,
): Entry<Q, A, Act> => e

/** The kinds of a catalogue that change the world. */
export type ActKindOf<C extends Catalogue> = { [K in KindOf<C>]: C[K]["act"] extends true ? K : never }[KindOf<C>]

/**
 * What a replay infers of one kind of question, beside its recorded answer (controller/replay.ts): a
 * replay under other settings may ask what the day never asked.
 */
export interface Inferred<Q, A, World> {
  /**
   * The answer when the day never asked it: what the controller kept itself, from the replay's own
   * keeping; what the world said, from the last it said; an act, as done.
   */
  whatIf(question: Q, world: World, now: number): A
  /** The recorded answer as the replay hands it on: what the replay itself decided may stand over what was read. */
  replayed?(question: Q, recorded: A, world: World): A
  /** Whether the act, done again from what its recording kept of how it was done, comes out otherwise than recorded. */
  differs?(question: Q, recordedQuestion: Q, recorded: A): boolean
  /** What the replay keeps of the exchange: its world after it (changed in place, one program at a time). */
  keep?(question: Q, answer: A, world: World): void
  /** What the replay keeps of the question as the recorded controller asked it, once its program ran. */
  keepRecorded?(question: Q, world: World): void
}

/** An area's replay inference: a row for every kind of its catalogue. */
export type Inference<C extends Catalogue, World> = {
  readonly [K in KindOf<C>]: Inferred<QuestionOf<C, K>, AnswerOf<C, K>, World>
}

/** The what-if answer of an act whose answer is an Outcome: done. */
export const done = (): { readonly ok: true } => ({ ok: true })

/** One question asked and the answer it got: what a recording keeps and a replay checks. */
export interface Exchange<C extends Catalogue = Catalogue> {
  readonly question: QuestionOf<C>
  readonly answer: unknown
}

export type Happened<C extends Catalogue = Catalogue> = { readonly said: string } | { readonly exchange: Exchange<C> }

export interface Ran<C extends Catalogue, R> {
  readonly result: R
  readonly said: ReadonlyArray<string>
  readonly exchanges: ReadonlyArray<Exchange<C>>
}

/**
 * Runs a program to its end with a pure answerer: how replays and tests drive it. `answer` gets the
 * question and the exchanges so far, and answers it (or throws, when nothing can answer it: a
 * recording that ends mid-program ends it there). `heard`, when given, sees each word and exchange
 * as it happens, so a replay keeps what happened before such an end.
 */
export const runPure = <C extends Catalogue, R>(
  program: Program<C, R>,
  answer: (question: QuestionOf<C>, so: ReadonlyArray<Exchange<C>>) => unknown,
  heard?: (happened: Happened<C>) => void,
): Ran<C, R> => {
  const said: Array<string> = []
  const exchanges: Array<Exchange<C>> = []
  let next = program.next(undefined)
  while (next.done !== true) {
    const y = next.value
    // A said line is sent back nothing; a question, its answer. Words and exchanges are kept apart,
    // and in their order together only by `heard`: a push of 100,000 machines says and asks 300,000
    // times, each kept until it ends (issue 41).
    if (isSaid(y)) {
      said.push(y.line)
      heard?.({ said: y.line })
      next = program.next(undefined)
    } else {
      const exchange: Exchange<C> = { question: y, answer: answer(y, exchanges) }
      exchanges.push(exchange)
      heard?.({ exchange })
      next = program.next(exchange.answer)
    }
  }
  return { result: next.value, said, exchanges }
}

export const isSaid = (y: unknown): y is Said => typeof y === "object" && y !== null && "q" in y && y.q === "say"
