// The one way a decision asks (issue 25). A decision is a program: a generator that yields each
// question it needs answered (a store read, what the bus says) and each act it wants done (a write,
// a send, an event), and is sent back the answer or the act's outcome, in the shape of the seeds' own
// functions, which read and act as they decide. Nothing else reaches it. So the live controller, the
// provider and a replayed day run the same code: a shell answers by doing the I/O and records each
// answer as a fact; `simulate` answers from the recording (novox/hq issue 179's lesson: a decision
// nobody can replay is a decision nobody can check).
//
// Every area has one catalogue (`core/src/<area>/questions.ts`): an entry per question, carrying its
// question's and answer's Schema, whether it is an act or a read, and what an area's replay needs of
// it. A program is typed by its area's catalogue, so it cannot ask another area's question, and
// `ask` hands back that question's own answer type.
import type * as Schema from "effect/Schema"
import type { Observed } from "./observed.ts"
import type { SaidMark, Shown, TimelineLine } from "./timeline.ts"

/** A question as it is yielded and recorded: its kind in `q`, its arguments beside it. */
export interface Asked {
  readonly q: string
}

/** A line a program says to the journal on the way. */
export interface Said {
  readonly q: "say"
  readonly line: string
}

/**
 * Everything about one question, in one place. `World` is what the area's replay keeps of the day
 * (its own writes, the last facts read), handed to `whatIf` and `keep`; `Tally` is what the area's
 * summary counts. Every field past `act` is optional: a question nobody replays under other settings,
 * shows or counts says nothing of it.
 */
export interface Entry<Q extends Schema.Top, A extends Schema.Top, World = unknown, Tally = unknown> {
  /** The question as recorded: a Struct whose `q` is the entry's own kind. */
  readonly question: Q
  /** The answer as recorded. */
  readonly answer: A
  /** True when asking it changes something: a replay shows acts and checks they are the ones recorded. */
  readonly act: boolean
  /** True when the store answers it: an answer `{ ok: false }` counts as a store error. */
  readonly store?: boolean
  /**
   * What a replay under other settings answers when the day never asked this question: what the
   * controller keeps itself from the replay's own keeping, what the world said from the last it said,
   * an act as done. Absent: an act done (`{ ok: true }`).
   */
  whatIf?(question: NoInfer<Q["Type"]>, world: NoInfer<World>, now: number): NoInfer<A["Type"]>
  /** The recorded answer as the replay hands it on: what the replay itself decided may stand over what was read. */
  replayed?(question: NoInfer<Q["Type"]>, recorded: NoInfer<A["Type"]>, world: NoInfer<World>): NoInfer<A["Type"]>
  /**
   * Whether the act, done again from what its recording kept of how it was done, comes out otherwise
   * than recorded (a plan's send composed again from its push's exchanges): a replay counts it as differing.
   */
  differs?(question: NoInfer<Q["Type"]>, recordedQuestion: NoInfer<Q["Type"]>, recorded: NoInfer<A["Type"]>): boolean
  /** What the replay keeps of the exchange: its world after it (changed in place, one program at a time). */
  keep?(question: NoInfer<Q["Type"]>, answer: NoInfer<A["Type"]>, world: NoInfer<World>): void
  /** What the replay keeps of the question as the recorded controller asked it, once its program ran. */
  keepRecorded?(question: NoInfer<Q["Type"]>, world: NoInfer<World>): void
  /** The act as the timeline shows it: none when it is not worth a line of its own. */
  show?(question: NoInfer<Q["Type"]>, answer: NoInfer<A["Type"]>, shown: Shown): ReadonlyArray<TimelineLine>
  /** What the act tells the timeline of the lines said beside it. */
  marks?(question: NoInfer<Q["Type"]>): ReadonlyArray<SaidMark>
  /** Adds the act to the area's summary. */
  tally?(question: NoInfer<Q["Type"]>, answer: NoInfer<A["Type"]>, tally: NoInfer<Tally>): void
  /** What the exchange moves in the metrics. */
  observe?(question: NoInfer<Q["Type"]>, answer: NoInfer<A["Type"]>): ReadonlyArray<Observed>
  /**
   * The recorded question and answer read by hand, exactly as the Schemas above decode them, or
   * undefined to leave them to the Schemas (issue 11: a log's common lines; core/src/by-hand.ts).
   */
  byHand?(
    question: Readonly<Record<string, unknown>>,
    answer: unknown,
  ): { readonly q: NoInfer<Q["Type"]>; readonly a: NoInfer<A["Type"]> } | undefined
}

/**
 * An entry as a reader of every kind sees it (the replay, the timeline, the metrics): its question
 * and answer any of the catalogue's. Any entry of an area whose world and tally are part of `World`
 * and `Tally` is one (a method's arguments are compared both ways); `Q`, what its hand reader reads.
 */
export interface EntryView<World, Tally, Q extends Asked = Asked> {
  readonly question: Schema.Top
  readonly answer: Schema.Top
  readonly act: boolean
  readonly store?: boolean
  whatIf?(question: Asked, world: World, now: number): unknown
  replayed?(question: Asked, recorded: unknown, world: World): unknown
  differs?(question: Asked, recordedQuestion: Asked, recorded: unknown): boolean
  keep?(question: Asked, answer: unknown, world: World): void
  keepRecorded?(question: Asked, world: World): void
  show?(question: Asked, answer: unknown, shown: Shown): ReadonlyArray<TimelineLine>
  marks?(question: Asked): ReadonlyArray<SaidMark>
  tally?(question: Asked, answer: unknown, tally: Tally): void
  observe?(question: Asked, answer: unknown): ReadonlyArray<Observed>
  byHand?(
    question: Readonly<Record<string, unknown>>,
    answer: unknown,
  ): { readonly q: Q; readonly a: unknown } | undefined
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

/** Makes an entry, its `q` tied to its kind by the question's Schema. */
export const entry = <Q extends Schema.Top, A extends Schema.Top>(e: Entry<Q, A>): Entry<Q, A> => e

/** Makes an area's entries, with the world its replay keeps and the tally its summary counts. */
export const entryFor =
  <World, Tally>() =>
  <Q extends Schema.Top, A extends Schema.Top>(e: Entry<Q, A, World, Tally>): Entry<Q, A, World, Tally> =>
    e

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
  /** Words and exchanges in the order they happened. */
  readonly events: ReadonlyArray<Happened<C>>
}

/**
 * Runs a program to its end with a pure answerer: how replays and tests drive it. `answer` gets the
 * question and the exchanges so far, and answers it (or throws, when nothing can answer it).
 */
export const runPure = <C extends Catalogue, R>(
  program: Program<C, R>,
  answer: (question: QuestionOf<C>, so: ReadonlyArray<Exchange<C>>) => unknown,
): Ran<C, R> => {
  const said: Array<string> = []
  const exchanges: Array<Exchange<C>> = []
  const events: Array<Happened<C>> = []
  let next = program.next(undefined)
  while (next.done !== true) {
    const y = next.value
    if (isSaid(y)) {
      said.push(y.line)
      events.push({ said: y.line })
      next = program.next(undefined)
      continue
    }
    const a = answer(y, exchanges)
    const exchange: Exchange<C> = { question: y, answer: a }
    exchanges.push(exchange)
    events.push({ exchange })
    next = program.next(a)
  }
  return { result: next.value, said, exchanges, events }
}

export const isSaid = (y: unknown): y is Said => typeof y === "object" && y !== null && "q" in y && y.q === "say"

/**
 * `program`, begun now: run up to its first question, which needs no answer from anyone yet. A
 * follower begins a batch's program while the store keeps the batch before (issue 11); driven later,
 * it goes on from where it stopped, as the same program would.
 */
export const begun = <C extends Catalogue, R>(program: Program<C, R>): Program<C, R> => begunAsking(program).program

/**
 * The same, with what the program yielded first (undefined when it ended without asking or saying
 * anything): what a shell may make ready before the program is driven (issue 30: the standings
 * follower makes a batch's rows for the store while the batch before is written).
 */
export const begunAsking = <C extends Catalogue, R>(
  program: Program<C, R>,
): { readonly program: Program<C, R>; readonly first: Yielded<C> | undefined } => {
  const first = program.next(undefined)
  return { program: continued(program, first), first: first.done === true ? undefined : first.value }
}

function* continued<C extends Catalogue, R>(
  program: Program<C, R>,
  first: IteratorResult<Yielded<C>, R>,
): Program<C, R> {
  let next = first
  while (next.done !== true) next = program.next(yield next.value)
  return next.value
}
