// One reconcile pass of the provisioner loop (seed 000's Reconcile) as a step machine. The seed
// reads and calls as it decides; here every read and every call is a fact the shell feeds in, and
// each step answers what to ask next. So a live provider and a replayed day run the same code, and
// nothing a decision sees is anything but a fact.
//
// Read the contributions the mesh delivered; bring each consumer's resource into being through the
// adapter, under the login and password the mesh minted; withdraw what the mesh no longer asks for.
// One consumer's failure never stops another's.
import { formatDuration, roundToSecond } from "../duration.ts"
import { canonicalJson, type JsonObject } from "../json.ts"
import { ClassSecret, classFor } from "./classes.ts"
import { type Reading, readContributions } from "./contributions.ts"
import {
  type AnswerFact, type Announcement, type ConsumerMemory, type Contribution, type DocumentRead, type Fact, freshConsumer,
  freshMemory, type Memory, passwordIn, type Provider, type Provision, type Request, type Said, type Settings,
} from "./model.ts"
import { passwordForms, scrub } from "./scrub.ts"
import { type Failure, failed, recovered, succeeded, type Words } from "./standing.ts"

/** How many passes a secret may be unreadable before it stops being called a race (novox/hq issue 225). */
export const patiently = 12
/** Once said loudly, how often it is repeated; the same cadence quiets a create that keeps failing the same way. */
export const loudlyEvery = 240
/** The longest a consumer whose create keeps failing to satisfy Holds waits between checks. */
export const maxBackoff = 3_600_000

type Cursor =
  | { readonly stage: "secret"; readonly index: number }
  | WorkCursor
  | { readonly stage: "remove"; readonly queue: ReadonlyArray<Withdrawal>; readonly position: number }

interface WorkCursor {
  readonly stage: "holds" | "create"
  readonly index: number
  readonly work: Work
  /** How many times in a row this consumer has been found not held and applied again. */
  readonly reapplying: number
}

interface Work {
  readonly provision: Provision
  readonly hash: string
  readonly forms: ReadonlyArray<string>
}

interface Withdrawal {
  readonly as: string
  readonly derived: JsonObject
  readonly forms: ReadonlyArray<string>
}

export interface Pass {
  readonly given: ReadonlyArray<Contribution>
  readonly want: ReadonlySet<string>
  readonly verifying: boolean
  readonly cursor: Cursor
}

export interface ProvisionerState {
  readonly memory: Memory
  /** The pass under way, waiting for the answer to `next`; undefined between passes. */
  readonly pass: Pass | undefined
}

export const initialState: ProvisionerState = { memory: freshMemory, pass: undefined }

export interface Step extends Words {
  readonly state: ProvisionerState
  /** What to ask next; undefined when the pass is over. */
  readonly next: Request | undefined
  /** Set when the fact answered nothing that was asked; the state is then unchanged. */
  readonly refused: string | undefined
}

export { passwordIn } from "./model.ts"

/** The wait before the n-th check after re-applying: VerifyEvery << (n-1), at most an hour. */
export const brakeWait = (verifyEvery: number, times: number): number => {
  const wait = verifyEvery * 2 ** (times - 1)
  return !Number.isFinite(wait) || wait > maxBackoff || wait <= 0 ? maxBackoff : wait
}

/** The question a pass is waiting on. */
export const requestOf = (pass: Pass): Request => {
  const c = pass.cursor
  if (c.stage === "remove") {
    const w = c.queue[c.position]!
    return { call: "remove", as: w.as, derived: w.derived }
  }
  const g = pass.given[c.index]!
  if (c.stage === "secret") return { call: "secret", as: g.as, path: g.secret }
  return { call: c.stage, as: g.as, provision: c.work.provision }
}

export const answers = (fact: AnswerFact, request: Request): boolean =>
  fact.fact === request.call && fact.as === request.as

class Draft {
  readonly consumers: Map<string, ConsumerMemory>
  readonly said: Array<Said> = []
  readonly announced: Array<Announcement> = []
  lastWarning: string
  verifiedAt: number | undefined
  document: Memory["document"]

  readonly now: number
  readonly settings: Settings
  readonly provider: Provider

  constructor(memory: Memory, now: number, settings: Settings, provider: Provider) {
    this.now = now
    this.settings = settings
    this.provider = provider
    this.consumers = new Map(memory.consumers)
    this.lastWarning = memory.lastWarning
    this.verifiedAt = memory.verifiedAt
    this.document = memory.document
  }

  get(as: string): ConsumerMemory {
    return this.consumers.get(as) ?? freshConsumer
  }

  put(as: string, change: Partial<ConsumerMemory>): void {
    this.consumers.set(as, { ...this.get(as), ...change })
  }

  say(text: string): void {
    this.said.push({ at: this.now, text })
  }

  tell(as: string, [consumer, words]: [ConsumerMemory, Words]): void {
    this.consumers.set(as, consumer)
    this.said.push(...words.said)
    this.announced.push(...words.announced)
  }

  failed(as: string, failure: Failure): void {
    this.tell(as, failed(this.get(as), as, failure, this.now, this.settings, this.provider))
  }

  succeeded(as: string): void {
    this.tell(as, succeeded(this.get(as), as, this.now, this.provider))
  }

  warn(why: string): void {
    if (why === this.lastWarning) return
    this.say(why !== "" ? `${why}; nothing applied or removed until it can be read` : "contributions file readable again")
    this.lastWarning = why
  }

  /** Moves the pass to its next question, saying what the seed says on the way. */
  continueWith(pass: Pass): Step {
    let c = pass.cursor
    if (c.stage === "secret" && c.index >= pass.given.length) {
      // Withdraw every login this process made that the mesh no longer asks for.
      const queue: Array<Withdrawal> = []
      for (const [as, m] of this.consumers) {
        if (m.applied !== undefined && !pass.want.has(as)) {
          queue.push({ as, derived: m.applied.derived, forms: m.applied.passwordForms })
        }
      }
      c = { stage: "remove", queue, position: 0 }
    }
    if (c.stage === "remove" && c.position >= c.queue.length) {
      this.endPass(pass.want)
      return this.finish(undefined)
    }
    const next: Pass = { ...pass, cursor: c }
    if (c.stage === "remove") {
      // Said as the Remove is asked for, before its answer, as the seed does.
      this.say(`${c.queue[c.position]!.as}: no longer in ${this.provider.receives}; withdrawing it from the backend`)
    }
    return this.finish(next)
  }

  endPass(want: ReadonlySet<string>): void {
    for (const [as, m] of this.consumers) {
      if (!want.has(as) && m.createFailure !== undefined) this.put(as, { createFailure: undefined })
    }
    // A consumer the mesh stopped asking for is no longer failed by anyone: said, so a standing the
    // controller keeps for it is cleared rather than left naming a consumer that is gone.
    for (const [as, m] of this.consumers) {
      if (!want.has(as) && m.trouble !== undefined) {
        this.tell(as, recovered(m, as, "withdrawn", this.now, this.provider))
      }
    }
  }

  finish(pass: Pass | undefined): Step {
    return {
      state: {
        memory: { verifiedAt: this.verifiedAt, lastWarning: this.lastWarning, consumers: this.consumers, document: this.document },
        pass,
      },
      said: this.said,
      announced: this.announced,
      next: pass === undefined ? undefined : requestOf(pass),
      refused: undefined,
    }
  }
}

const refuse = (state: ProvisionerState, why: string): Step => ({
  state,
  said: [],
  announced: [],
  next: state.pass === undefined ? undefined : requestOf(state.pass),
  refused: why,
})

const describe = (r: Request): string => `${r.call} for ${r.as}`

/** Feeds one fact to the provisioner: a pass beginning, or the answer to what was asked. */
export const step = (state: ProvisionerState, fact: Fact, settings: Settings, provider: Provider): Step => {
  const pass = state.pass
  if (fact.fact === "pass") {
    if (pass !== undefined) return refuse(state, `a pass began while the last was waiting for ${describe(requestOf(pass))}`)
    return beginPass(new Draft(state.memory, fact.at, settings, provider), fact.document)
  }
  if (pass === undefined) return refuse(state, `${fact.fact} for ${fact.as} answers nothing: no pass is under way`)
  const asked = requestOf(pass)
  if (!answers(fact, asked)) return refuse(state, `${fact.fact} for ${fact.as} answers nothing: the pass asked ${describe(asked)}`)
  const d = new Draft(state.memory, fact.at, settings, provider)
  switch (fact.fact) {
    case "secret":
      return secretRead(d, pass, fact)
    case "holds":
      return holdsAnswered(d, pass, fact)
    case "create":
      return createAnswered(d, pass, fact)
    case "remove":
      return removeAnswered(d, pass, fact)
  }
}

const beginPass = (d: Draft, document: DocumentRead): Step => {
  // The same text reads the same way: a day of 5-second passes over one document reads it once.
  const reading: Reading = document.read === "ok" && d.document?.text === document.text
    ? { usable: true, given: d.document.given }
    : readContributions(document, d.provider)
  if (document.read === "ok" && reading.usable) d.document = { text: document.text, given: reading.given }
  d.warn(reading.usable ? "" : reading.why)
  if (!reading.usable) return d.finish(undefined)
  const verifying = d.verifiedAt === undefined || d.now - d.verifiedAt >= d.settings.verifyEvery
  if (verifying) d.verifiedAt = d.now
  const want = new Set(reading.given.map((g) => g.as))
  return d.continueWith({ given: reading.given, want, verifying, cursor: { stage: "secret", index: 0 } })
}

const nextConsumer = (d: Draft, pass: Pass, index: number, verifying = pass.verifying): Step =>
  d.continueWith({ ...pass, verifying, cursor: { stage: "secret", index: index + 1 } })

const secretRead = (d: Draft, pass: Pass, fact: Extract<AnswerFact, { fact: "secret" }>): Step => {
  const index = (pass.cursor as { index: number }).index
  const g = pass.given[index]!
  if (fact.read === "failed") {
    // A secret the host has not written yet is a race on the first pass; past a minute it is a
    // person's to look at, and said so (novox/hq issue 225).
    const n = d.get(g.as).waiting + 1
    d.put(g.as, { waiting: n })
    if (n <= patiently) {
      d.say(`${g.as}: secret not readable yet (${g.secret}): ${fact.error}`)
    } else if (n === patiently + 1 || n % loudlyEvery === 0) {
      d.say(`${g.as}: CANNOT READ the secret after ${n} attempts (${g.secret}): ${fact.error}. This is not a race any more — ` +
        `nothing has been provisioned for this consumer and nothing will be until somebody looks. ` +
        `Check who owns the file and who this process runs as (novox/hq issue 225)`)
    }
    d.failed(g.as, { node: g.node, class: ClassSecret, text: `secret not readable (${g.secret}): ${fact.error}`, passwordForms: [] })
    return nextConsumer(d, pass, index)
  }
  const before = d.get(g.as)
  const work = workOf(before, g, fact.password)
  d.put(g.as, { waiting: 0, worked: { secretText: fact.password, contribution: g, ...work } })
  const memory = d.get(g.as)
  if (memory.applied === undefined || memory.applied.hash !== work.hash) {
    return d.continueWith({ ...pass, cursor: { stage: "create", index, work, reapplying: 0 } })
  }
  if (!pass.verifying) return nextConsumer(d, pass, index)
  const brake = memory.lost
  if (brake?.nextAt !== undefined && d.now < brake.nextAt) return nextConsumer(d, pass, index)
  return d.continueWith({ ...pass, cursor: { stage: "holds", index, work, reapplying: brake?.times ?? 0 } })
}

/** What a secret and a contribution come to; worked out again only when either changed. */
const workOf = (m: ConsumerMemory, g: Contribution, secretText: string): Work => {
  const w = m.worked
  if (w !== undefined && w.secretText === secretText && w.contribution === g) return w
  const password = passwordIn(secretText)
  const provision: Provision = { as: g.as, password, values: g.values, derived: g.derived, at: g.at, consumer: g.node }
  // Derived is in the hash: a provider that renames what it derives gave a different resource.
  return { provision, hash: canonicalJson([g.as, password, g.values, g.derived]), forms: passwordForms(password) }
}

const holdsAnswered = (d: Draft, pass: Pass, fact: Extract<AnswerFact, { fact: "holds" }>): Step => {
  const c = pass.cursor as WorkCursor
  const g = pass.given[c.index]!
  if (fact.outcome === "error") {
    // Unable to ask is not evidence of loss. A backend that timed out will time out for the next
    // consumer too, so the rest of this pass is not asked.
    const text = scrub(fact.error, c.work.forms)
    d.say(`${g.as}: could not check the backend, will ask again: ${text}`)
    d.failed(g.as, { node: g.node, class: classFor(fact.class, text), text, passwordForms: c.work.forms })
    return nextConsumer(d, pass, c.index, fact.timedOut ? false : pass.verifying)
  }
  if (fact.outcome === "held") {
    d.put(g.as, { lost: undefined })
    d.succeeded(g.as)
    return nextConsumer(d, pass, c.index)
  }
  const reapplying = c.reapplying + 1
  if (reapplying === 1) {
    d.say(`${g.as}: the backend no longer holds it; applying again`)
  } else {
    d.say(`${g.as}: still not held after being applied again (${reapplying} times in a row) — create does not ` +
      `produce what holds checks; applying again`)
  }
  return d.continueWith({ ...pass, cursor: { stage: "create", index: c.index, work: c.work, reapplying } })
}

const createAnswered = (d: Draft, pass: Pass, fact: Extract<AnswerFact, { fact: "create" }>): Step => {
  const c = pass.cursor as WorkCursor
  const g = pass.given[c.index]!
  const memory = d.get(g.as)
  if (fact.outcome === "error") {
    const text = scrub(fact.error, c.work.forms)
    const was = memory.createFailure
    const times = (was !== undefined && was.text === text ? was.times : 0) + 1
    d.put(g.as, { createFailure: { text, times } })
    // Said each time it changes, and while it stays the same, as rarely as a lost secret.
    if (times === 1 || times % loudlyEvery === 0) d.say(`${g.as}: create failed, will retry: ${text}`)
    d.failed(g.as, { node: g.node, class: classFor(fact.class, text), text, passwordForms: c.work.forms })
    if (c.reapplying > 0) d.put(g.as, { lost: { times: c.reapplying - 1, nextAt: undefined } })
    return nextConsumer(d, pass, c.index)
  }
  if (memory.createFailure !== undefined) {
    d.say(`${g.as}: created, after ${memory.createFailure.times} failed attempt(s)`)
    d.put(g.as, { createFailure: undefined })
  }
  d.succeeded(g.as)
  d.put(g.as, { applied: { hash: c.work.hash, derived: g.derived, passwordForms: c.work.forms } })
  if (c.reapplying === 0) {
    d.put(g.as, { lost: undefined })
  } else {
    const wait = brakeWait(d.settings.verifyEvery, c.reapplying)
    d.put(g.as, { lost: { times: c.reapplying, nextAt: d.now + wait } })
    if (c.reapplying > 1) d.say(`${g.as}: next check in ${formatDuration(roundToSecond(wait))}`)
  }
  return nextConsumer(d, pass, c.index)
}

const removeAnswered = (d: Draft, pass: Pass, fact: Extract<AnswerFact, { fact: "remove" }>): Step => {
  const c = pass.cursor as Extract<Cursor, { stage: "remove" }>
  const w = c.queue[c.position]!
  if (fact.outcome === "error") {
    d.say(`${w.as}: remove failed, will retry: ${scrub(fact.error, w.forms)}`)
  } else {
    d.put(w.as, { applied: undefined, lost: undefined })
  }
  return d.continueWith({ ...pass, cursor: { ...c, position: c.position + 1 } })
}
