// One reconcile pass of the provisioner loop, seed 000's Reconcile line for line, as a program of
// the provisioner's catalogue (questions.ts, issue 25). The seed reads and calls as it decides; here
// each read and call is a question the pass yields (secret, Holds, Create, Remove) and the answer it
// is sent back is a fact; its words go to the journal (`say`) and its announcements to the bus (the
// `announce` act). So the live loop (shells/src/provisioner/run.ts, through the one driver), a
// replayed day and the tests (`drivePass`, through the one pure driver) run this same code, and nothing a
// decision sees is anything but a fact.
//
// Read the contributions the mesh delivered; bring each consumer's resource into being through the
// adapter, under the login and password the mesh minted; withdraw what the mesh no longer asks for.
// One consumer's failure never stops another's.
import { formatDuration, roundToSecond } from "../duration.ts"
import { canonicalJson } from "../json.ts"
import { type Program, programsOf, runPure, type Said as Line } from "../program.ts"
import { ClassSecret, classFor } from "./classes.ts"
import { heldStanding, heldWithdrawal, withdrawableIn, type Reading, readContributions } from "./contributions.ts"
import {
  type AnswerFact,
  type Announcement,
  type Applied,
  type ConsumerMemory,
  type Contribution,
  type DocumentRead,
  type Fact,
  freshConsumer,
  freshMemory,
  type Memory,
  passwordIn,
  type Provider,
  type Said,
  type Settings,
  type Worked,
} from "./model.ts"
import { answers, type ProvisionerQuestions, provisionerQuestions, type Question, type Request } from "./questions.ts"
import { passwordForms, scrub } from "./scrub.ts"
import { type Failure, failed, recovered, succeeded, type Words } from "./standing.ts"

/** How many passes a secret may be unreadable before it stops being called a race (novox/hq issue 225). */
export const patiently = 12
/** Once said loudly, how often it is repeated; the same cadence quiets a create that keeps failing the same way. */
export const loudlyEvery = 240
/** The longest a consumer whose create keeps failing to satisfy Holds waits between checks. */
export const maxBackoff = 3_600_000

/** The wait before the n-th check after re-applying: VerifyEvery << (n-1), at most an hour. */
export const brakeWait = (verifyEvery: number, times: number): number => {
  const wait = verifyEvery * 2 ** (times - 1)
  return !Number.isFinite(wait) || wait > maxBackoff || wait <= 0 ? maxBackoff : wait
}

/** What the loop keeps between passes. */
export interface ProvisionerState {
  readonly memory: Memory
}

export const initialState: ProvisionerState = { memory: freshMemory }

export type PassFact = Extract<Fact, { readonly fact: "pass" }>

/** A pass: asks its questions, says and announces its words, returns the memory it leaves. */
export type Pass = Program<ProvisionerQuestions, ProvisionerState>

/** A word of the pass not yet yielded: a journal line, or an announcement. */
type Word = Line | Extract<Question, { readonly q: "announce" }>

const Provisioner = programsOf(provisionerQuestions)

/** The journal's prefix of the provider's lines; a replay's timeline keeps the words without it. */
const linePrefix = (provider: Provider): string => `[provisioner:${provider.resource}] `

/** What a secret and a contribution come to. */
type Work = Omit<Worked, "secretText" | "contribution">

/** The pass's working copy of memory (the seed's Harness fields), and the words not yet yielded. */
class Working {
  readonly consumers: Map<string, ConsumerMemory>
  readonly words: Array<Word> = []
  readonly prefix: string
  /** The rest of the memory, changed as the pass goes; the consumers are `consumers`. */
  readonly m: { -readonly [K in keyof Memory]-?: Memory[K] }
  now: number
  readonly settings: Settings
  readonly provider: Provider

  constructor(memory: Memory, now: number, settings: Settings, provider: Provider) {
    this.consumers = new Map(memory.consumers)
    this.m = { ...memory, consumers: this.consumers, held: memory.held ?? freshConsumer }
    this.now = now
    this.settings = settings
    this.provider = provider
    this.prefix = linePrefix(provider)
  }

  get(as: string): ConsumerMemory {
    return this.consumers.get(as) ?? freshConsumer
  }

  put(as: string, change: Partial<ConsumerMemory>): void {
    this.consumers.set(as, { ...this.get(as), ...change })
  }

  // Said at the pass's now: a word's time is the last answer's (or the pass's), which a driver knows.
  say(text: string): void {
    this.words.push({ q: "say", line: this.prefix + text })
  }

  tell(as: string, [consumer, words]: [ConsumerMemory, Words]): void {
    this.consumers.set(as, consumer)
    for (const said of words.said) this.say(said.text)
    for (const announcement of words.announced) this.words.push({ q: "announce", announcement })
  }

  /** The answer the pass was sent back to `request`, checked to be its answer; the pass's now moves to it. */
  heard<A extends AnswerFact>(request: Request, got: A | undefined): A {
    if (got === undefined || !answers(got, request))
      throw new Error(
        `the pass asked ${request.q} for ${request.as} and was answered ${got === undefined ? "nothing" : `${got.fact} for ${got.as}`}`,
      )
    this.now = got.at
    return got
  }

  failed(g: Contribution, klass: string, text: string, passwordForms: ReadonlyArray<string> = []): void {
    const failure: Failure = { node: g.node, class: klass, text, passwordForms }
    this.tell(g.as, failed(this.get(g.as), g.as, failure, this.now, this.settings, this.provider))
  }

  succeeded(as: string): void {
    this.tell(as, succeeded(this.get(as), as, this.now, this.provider))
  }

  warn(why: string): void {
    if (why === this.m.lastWarning) return
    this.say(
      why !== "" ? `${why}; nothing applied or removed until it can be read` : "contributions file readable again",
    )
    this.m.lastWarning = why
  }

  /** The seed's readContributions: the consumers asked for, or undefined when the document says nothing usable. */
  readContributions(document: DocumentRead): ReadonlyArray<Contribution> | undefined {
    // The same text reads the same way: a day of 5-second passes over one document reads it once.
    const reading: Reading =
      document.read === "ok" && this.m.document?.text === document.text
        ? { usable: true, given: this.m.document.given }
        : readContributions(document, this.provider)
    if (document.read === "ok" && reading.usable) this.m.document = { text: document.text, given: reading.given }
    // issue 14: a document that would withdraw everyone, or most, is held (contributions.ts `heldWithdrawal`).
    // Asked only when it may hold: a replayed day (nothing to allow) is spared a list and a set a pass.
    const held =
      reading.usable && this.provider.holdMassWithdrawal === true
        ? heldWithdrawal(withdrawableIn(this.consumers), new Set(reading.given.map((g) => g.as)), false)
        : undefined
    this.warn(reading.usable ? (held ?? "") : reading.why)
    // A live provider says it on the bus (contributions.ts `heldWithdrawal`); a replayed day has nothing to allow.
    if (reading.usable && this.provider.holdMassWithdrawal !== undefined) {
      const failure = { node: this.provider.node, class: heldStanding, text: held ?? "", passwordForms: [] }
      const [memory, words] =
        held === undefined
          ? succeeded(this.m.held, heldStanding, this.now, this.provider)
          : failed(this.m.held, heldStanding, failure, this.now, { ...this.settings, failingAfter: 0 }, this.provider)
      this.m.held = memory
      for (const announcement of words.announced) this.words.push({ q: "announce", announcement })
    }
    return reading.usable && held === undefined ? reading.given : undefined
  }

  /** What a secret and a contribution come to; worked out again only when either changed. */
  workOf(g: Contribution, secretText: string): Work {
    const w = this.get(g.as).worked
    let work: Work | undefined = w !== undefined && w.secretText === secretText && w.contribution === g ? w : undefined
    if (work === undefined) {
      const password = passwordIn(secretText)
      const provision = {
        as: g.as,
        password,
        values: g.values,
        derived: g.derived,
        at: g.at,
        consumer: g.node,
      }
      // Derived is in the hash: a provider that renames what it derives gave a different resource.
      work = { provision, hash: canonicalJson([g.as, password, g.values, g.derived]), forms: passwordForms(password) }
    }
    // Unchanged since the last pass (nearly every pass of a day): nothing to put back.
    if (work !== w || this.get(g.as).waiting !== 0)
      this.put(g.as, { waiting: 0, worked: { secretText, contribution: g, ...work } })
    return work
  }
}

/** A call of the pass: the words said so far yielded, then its question; what it was sent back, checked. */
function* call<Q extends Request>(w: Working, request: Q) {
  if (w.words.length > 0) yield* w.words.splice(0)
  return w.heard(request, yield* Provisioner.ask(request))
}

/** Reconcile is one pass. */
export function* reconcile(state: ProvisionerState, pass: PassFact, settings: Settings, provider: Provider): Pass {
  const h = new Working(state.memory, pass.at, settings, provider)
  // Whether this pass may apply and withdraw at all is decided here, once, from the document read.
  const given = h.readContributions(pass.document)
  if (given === undefined) {
    yield* h.words.splice(0)
    return { memory: h.m }
  }
  const want = new Set(given.map((g) => g.as))
  let verifying = h.m.verifiedAt === undefined || h.now - h.m.verifiedAt >= settings.verifyEvery
  if (verifying) h.m.verifiedAt = h.now

  for (const g of given) {
    const raw = yield* call(h, { q: "secret", as: g.as, path: g.secret })
    if (raw.read === "failed") {
      // A secret the host has not written yet is a race on the first pass; past a minute it is a
      // person's to look at, and said so (novox/hq issue 225).
      const n = h.get(g.as).waiting + 1
      h.put(g.as, { waiting: n })
      if (n <= patiently) h.say(`${g.as}: secret not readable yet (${g.secret}): ${raw.error}`)
      else if (n === patiently + 1 || n % loudlyEvery === 0)
        h.say(
          `${g.as}: CANNOT READ the secret after ${n} attempts (${g.secret}): ${raw.error}. This is not a race any more — ` +
            `nothing has been provisioned for this consumer and nothing will be until somebody looks. ` +
            `Check who owns the file and who this process runs as (novox/hq issue 225)`,
        )
      h.failed(g, ClassSecret, `secret not readable (${g.secret}): ${raw.error}`)
      continue
    }
    const p = h.workOf(g, raw.password)
    let reapplying = 0
    const was = h.get(g.as)
    if (was.applied !== undefined && was.applied.hash === p.hash) {
      if (!verifying) continue
      const b = was.lost
      if (b?.nextAt !== undefined && h.now < b.nextAt) continue
      const held = yield* call(h, { q: "holds", as: g.as, provision: p.provision })
      if (held.outcome === "error") {
        // Unable to ask is not evidence of loss. A backend that timed out will time out for the
        // next consumer too, so the rest of this pass is not asked.
        const text = scrub(held.error, p.forms)
        h.say(`${g.as}: could not check the backend, will ask again: ${text}`)
        h.failed(g, classFor(held.class, text), text, p.forms)
        if (held.timedOut) verifying = false
        continue
      }
      if (held.outcome === "held") {
        h.put(g.as, { lost: undefined })
        h.succeeded(g.as)
        continue
      }
      reapplying = (b?.times ?? 0) + 1
      h.say(
        reapplying === 1
          ? `${g.as}: the backend no longer holds it; applying again`
          : `${g.as}: still not held after being applied again (${reapplying} times in a row) — create does not ` +
              `produce what holds checks; applying again`,
      )
    }
    const made = yield* call(h, { q: "create", as: g.as, provision: p.provision })
    if (made.outcome === "error") {
      const text = scrub(made.error, p.forms)
      const f = h.get(g.as).createFailure
      const times = (f !== undefined && f.text === text ? f.times : 0) + 1
      h.put(g.as, { createFailure: { text, times } })
      // Said each time it changes, and while it stays the same, as rarely as a lost secret.
      if (times === 1 || times % loudlyEvery === 0) h.say(`${g.as}: create failed, will retry: ${text}`)
      h.failed(g, classFor(made.class, text), text, p.forms)
      if (reapplying > 0) h.put(g.as, { lost: { times: reapplying - 1, nextAt: undefined } })
      continue
    }
    const f = h.get(g.as).createFailure
    if (f !== undefined) {
      h.say(`${g.as}: created, after ${f.times} failed attempt(s)`)
      h.put(g.as, { createFailure: undefined })
    }
    h.succeeded(g.as)
    // Applied again after a loss, the next check waits longer each time (brakeWait).
    const wait = brakeWait(settings.verifyEvery, reapplying)
    const lost = reapplying === 0 ? undefined : { times: reapplying, nextAt: h.now + wait }
    h.put(g.as, { applied: { hash: p.hash, derived: g.derived, passwordForms: p.forms }, lost })
    if (reapplying > 1) h.say(`${g.as}: next check in ${formatDuration(roundToSecond(wait))}`)
  }

  // Withdraw every login this process made that the mesh no longer asks for.
  const gone: Array<{ readonly as: string; readonly applied: Applied }> = []
  for (const [as, m] of h.consumers) if (m.applied !== undefined && !want.has(as)) gone.push({ as, applied: m.applied })
  for (const { as, applied } of gone) {
    h.say(`${as}: no longer in ${provider.receives}; withdrawing it from the backend`)
    const removed = yield* call(h, { q: "remove", as, derived: applied.derived })
    if (removed.outcome === "ok") h.put(as, { applied: undefined, lost: undefined })
    else h.say(`${as}: remove failed, will retry: ${scrub(removed.error, applied.passwordForms)}`)
  }
  for (const [as, m] of h.consumers)
    if (!want.has(as) && m.createFailure !== undefined) h.put(as, { createFailure: undefined })
  // A consumer the mesh stopped asking for is no longer failed by anyone: said, so a standing the
  // controller keeps for it is cleared rather than left naming a consumer that is gone.
  for (const [as, m] of h.consumers)
    if (!want.has(as) && m.trouble !== undefined) h.tell(as, recovered(m, as, "withdrawn", h.now, provider))
  yield* h.words.splice(0)
  return { memory: h.m }
}

/** How a pure driver answers a pass: `answer` undefined ends the pass there (a recording cut short). */
export interface PassHandlers {
  readonly answer: (request: Request) => AnswerFact | undefined
  readonly said?: (said: Said) => void
  readonly announced?: (announcement: Announcement) => void
}

/** What ends a pass whose recording ends before its question. */
const cutShort = new Error("the recording ends before this question")

/**
 * One pass run by the one pure driver (`runPure`), each word handed on as it is said: answers the
 * state it leaves, or undefined when cut short (`answer` undefined: the recording ends there). A
 * word's time is the pass's now: the last answer's, or the pass's.
 */
export const drivePass = (
  state: ProvisionerState,
  pass: PassFact,
  settings: Settings,
  provider: Provider,
  handlers: PassHandlers,
): ProvisionerState | undefined => {
  const prefix = linePrefix(provider).length
  let now = pass.at
  const answer = (q: Question): AnswerFact | undefined => {
    if (q.q === "announce") return undefined
    const a = handlers.answer(q)
    if (a === undefined) throw cutShort
    now = a.at
    return a
  }
  try {
    return runPure(reconcile(state, pass, settings, provider), answer, (e) => {
      if ("said" in e) handlers.said?.({ at: now, text: e.said.slice(prefix) })
      else if (e.exchange.question.q === "announce") handlers.announced?.(e.exchange.question.announcement)
    }).result
  } catch (e) {
    if (e === cutShort) return undefined
    throw e
  }
}
