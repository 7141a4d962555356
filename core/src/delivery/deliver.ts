// One delivery of a push (issue 25): the machines asked, and the machine holding the bus first when
// what it reports running lacks the user list composed now (seed 004's listBehind), held from
// composing to sending (ADR 0100), each composed once through what the plans hold, measured against
// the bus's message limit and numbered without a second composition (issue 41), and sent in the
// order issue 249 asks (order.ts deliveryActs), each act's outcome deciding the next.
import type { PlanRecord } from "../gate/plan/records.ts"
import type { MeshRecords } from "../mesh/records.ts"
import { type Program, programsOf } from "../program.ts"
import { type Report, unheldReport } from "./behind.ts"
import { composeAllOrNothing, couldNotBeResolved, draftAll, indexRecords, type Ready, sequenceEach } from "./compose.ts"
import { type Hold, holdingLines } from "./held.ts"
import { type ActOutcome, brokerFirst, type DeliveryAct, deliveryActs, holderBehind, runningList } from "./order.ts"
import { type DryRunBuild, type PushRequest, type PushView, pushView } from "./push-view.ts"
import { type PushQuestions, pushQuestions, type SentRecord } from "./questions.ts"
import { draftOverTheBusLimit } from "./signing.ts"

const { ask, say } = programsOf(pushQuestions)

/** What a push was asked. */
export interface PushAsk {
  /** Exactly these machines (a release, a rollback): neither a named push nor a sweep. */
  readonly machines?: ReadonlyArray<string> | undefined
  /**
   * What the push was asked, for what the plans hold: a plan's own send (`{kind: "plan", plan, why,
   * machines}`) reaches the machines of its tier. Left out: a sweep, a named push or `--behind`, from
   * `node` and `behind` (a sweep of `machines` when they are given).
   */
  readonly request?: PushRequest | undefined
  /**
   * A dry run's send (the gate's send-plan with a build, issue 10): the machines asked are composed
   * with this build of the module, which is not registered, so no other push sends it.
   */
  readonly dryRun?: DryRunBuild | undefined
  /** All of them or none (a credential rotated across machines that must agree). */
  readonly allOrNothing?: boolean | undefined
  readonly node: string | undefined
  readonly behind: boolean
  /** For a named machine, how long to wait for it to report applying what it was sent (ms; 0: do not). */
  readonly wait: number
  /** Sent by `serve`, which says each change to unmet seat dependencies once (behind.ts `unheldChange`), not each push's report. */
  readonly served?: boolean | undefined
}

export interface PushResult {
  readonly told: ReadonlyArray<{
    readonly node: string
    readonly sequence: number
    readonly digest: string
    readonly resources: number
    /** Each module's build the declaration carries, and the builds it carried before when known. */
    readonly builds?: Readonly<Record<string, string>>
    readonly before?: Readonly<Record<string, string>>
  }>
  readonly refusals: ReadonlyArray<string>
  readonly error: string | undefined
  /** Each machine and module a plan held back, with why. */
  readonly held?: ReadonlyArray<Hold>
  /** The machines sent as a consequence of a named push (issue 057). */
  readonly flushed?: ReadonlyArray<string>
  /** A served push's machines' unmet seat dependencies, for `serve` to say what changed. */
  readonly unheld?: ReadonlyMap<string, ReadonlyArray<string>>
}

/** What the machines were last sent and last reported: read once a push, again before a flush. */
export interface Seen {
  readonly sent: ReadonlyMap<string, Omit<SentRecord, "node">>
  readonly reports: ReadonlyMap<string, Report>
}

export function* seen(): Program<PushQuestions, Seen> {
  const sent = yield* ask({ q: "sent" })
  const reports = yield* ask({ q: "reports" })
  return { sent: new Map(sent.map((s) => [s.node, s])), reports: new Map(reports.map((r) => [r.node, r])) }
}

/**
 * What the machines detect, for the modules they cannot host (seed 002's reportUnhostable), as each
 * said in its last report. A machine that never said is not in it: not known is judged able to host
 * everything (unhostable.ts).
 */
export const detectedOf = (reports: ReadonlyMap<string, Report>): ReadonlyMap<string, ReadonlySet<string>> =>
  new Map([...reports].flatMap(([node, r]) => (r.detects === undefined ? [] : [[node, new Set(r.detects)] as const])))

type Numbered =
  | { readonly refused: string }
  | { readonly sending: ReadonlyArray<Ready>; readonly refusals: ReadonlyArray<string> }

/**
 * The machines of a delivery, each declaration drafted once, measured against the bus's message
 * limit and numbered (issue 41); one over the limit is refused before its number is taken (issue 28):
 * at scale, the bus holder's user list grows with the mesh. The drafts end with this step, so until
 * its acts end a push holds each declaration once, not its draft beside it.
 */
function* numbered(o: PushAsk, view: PushView, asked: ReadonlyArray<string>): Program<PushQuestions, Numbered> {
  const limit = yield* ask({ q: "message-limit" })
  const left = view.holding.left
  const sendable = (n: string) => !left.has(n)
  // A thousand machines at a time, drafted, measured, numbered and composed, all of them at once only
  // when all or none must be sent: a draft dies with its chunk, young, rather than 100,000 of them held,
  // copied and promoted by the collector together (issue 41). The acts keep their order, and the
  // lines theirs among themselves; a refusal over the limit is said before its thousand's allots.
  const step = o.allOrNothing === true ? asked.length : 1000
  const chunks: Array<ReturnType<typeof sequenceEach> & { readonly over: ReadonlyArray<string> }> = []
  for (let at = 0; at < asked.length; at += step) {
    const chunk = asked.slice(at, at + step)
    const drafts = draftAll(view.indexOf, chunk.filter(sendable))
    // Whose declaration, signed, would be over the bus's message limit, with why: each measured under
    // the largest sequence it can carry, as its envelope is sent (the body's bytes escaped, an
    // ed25519 signature, the key's fingerprint), so the one sent is never larger.
    const over = new Map<string, string>()
    for (const [n, d] of drafts) {
      const why = limit === null || !d.ok ? undefined : draftOverTheBusLimit(n, d.head, limit)
      if (why !== undefined) over.set(n, why)
    }
    for (const line of over.values()) yield* say(line)
    const sequences = new Map<string, number | { error: string }>()
    for (const n of chunk.filter((n) => !over.has(n))) {
      const allotted = yield* ask({ q: "allot", node: n })
      sequences.set(n, "sequence" in allotted ? allotted.sequence : { error: allotted.error })
    }
    const fitting = [...drafts.keys()].filter((n) => !over.has(n))
    const composed =
      o.allOrNothing === true
        ? composeAllOrNothing(drafts, chunk, sequences, left)
        : { ...sequenceEach(drafts, fitting, sequences), refused: undefined }
    if (composed.refused !== undefined) return { refused: composed.refused }
    chunks.push({ ...composed, over: [...over].map(([n, why]) => `${n}:\n${why}`) })
  }
  for (const line of chunks.flatMap((c) => c.said)) yield* say(line)
  const refusals = [...chunks.flatMap((c) => c.over), ...chunks.flatMap((c) => c.refusals)]
  return { sending: chunks.flatMap((c) => c.sending), refusals }
}

/** The seed's sentence for a holder a named push leaves because a plan holds its modules (seed 002). */
const heldHolderSaid = (holder: string): string =>
  `${holder} holds the bus, and the user list it would carry has changed: until it is sent, the bus may refuse what this push's machines were newly granted`

/** One delivery's machines and what it composes from. */
export interface DeliveryAsk {
  readonly asked: ReadonlyArray<string>
  readonly request: PushRequest
  readonly records: MeshRecords
  readonly plans: ReadonlyArray<PlanRecord>
  readonly seen: Seen
  /** The machines an earlier delivery of this same push told. */
  readonly sentBefore?: ReadonlySet<string>
  /** The holder an earlier delivery of this push left while a plan holds its modules: left for the whole push. */
  readonly holderLeft?: string | undefined
}

/**
 * One delivery: the machines asked (and the machine holding the bus first when what it reports
 * running lacks the user list composed now: seed 004's listBehind), held from composing to sending,
 * numbered, composed each through what the plans hold, and sent in the order the delivery plan asks
 * (order.ts), each act's outcome deciding the next.
 */
export function* deliver(
  o: PushAsk,
  d: DeliveryAsk,
): Program<PushQuestions, PushResult & { readonly holderLeft?: string | undefined }> {
  const { request, records, plans, seen } = d
  // The machine holding the bus first (novox/hq issue 249): among those asked it goes first; not
  // among them and behind what it reports running, it is added.
  const index = indexRecords(records)
  const detected = detectedOf(seen.reports)
  const holderName = index.holder
  const forHolder =
    holderName === undefined ? undefined : pushView(records, plans, [holderName], request, detected, undefined, index)
  // Once this push has sent it, its report of that send cannot be in yet: judged against the list
  // this push sent it, never sent again only because it has not answered (issue 057).
  const list =
    holderName === undefined
      ? undefined
      : d.sentBefore?.has(holderName) === true
        ? seen.sent.get(holderName)?.busUsersDigest
        : runningList(seen.reports.get(holderName), seen.sent.get(holderName))
  let { holder, behind } = holderBehind(forHolder?.indexOf(holderName!) ?? index, d.asked, list)
  let holderLeft = d.holderLeft
  // **Not when its own modules are held back** (seed 002-19; novox/hq issue 259, ADR 0221): added
  // rather than named, the holder would be sent its whole declaration, and a build a plan has not sent
  // it yet would go with the user list. In a push naming one machine it is named and left, with what
  // that costs, and left for the whole push: its flush never sends it after the grants that needed
  // its list (the seed puts it among the flush's handled).
  if (behind && holder !== undefined && o.node !== undefined && !d.asked.includes(holder)) {
    // The holder's view was asked of it alone, so every hold in it is its own.
    const holds = holder === holderLeft ? [] : forHolder!.holding.holds
    if (holds.length > 0) {
      for (const line of holdingLines({ pins: forHolder!.holding.pins, left: new Map(), holds })) yield* say(line)
      yield* say(heldHolderSaid(holder))
      holderLeft = holder
    }
    if (holder === holderLeft) behind = false
  }
  const asked = brokerFirst(d.asked, holder, behind)

  yield* ask({ q: "hold", machines: asked })
  // Under the hold (ADR 0100), read, measured, numbered, then composed (novox/hq issue 204): no
  // other push or hand declaration composes for these machines until they are let go, so what was
  // composed earlier is still numbered lower whatever order the sends happen in; and the records and
  // the plans are read once the machines are held.
  const composedFrom = (yield* ask({ q: "mesh-records" })) ?? records
  const indexed = composedFrom === records ? index : undefined
  const view = pushView(composedFrom, yield* ask({ q: "plans-holding" }), asked, request, detected, o.dryRun, indexed)
  for (const line of view.said) yield* say(line)
  const held = view.holding.holds
  const numbering = yield* numbered(o, view, asked)
  if ("refused" in numbering) {
    yield* ask({ q: "release" })
    return { told: [], refusals: [], error: numbering.refused, held, holderLeft }
  }
  const { sending, refusals } = numbering
  yield* ask({ q: "prepare" })

  const byNode = new Map(sending.map((s) => [s.node, s]))
  const told: Array<PushResult["told"][number]> = []
  function* declare(s: Ready): Program<PushQuestions, ActOutcome> {
    const c = s.composition
    const outcome = yield* ask({
      q: "declare",
      node: s.node,
      body: c.body,
      digest: c.digest,
      sequence: c.sequence,
      builds: c.builds,
      ...(c.busUsersDigest === undefined ? {} : { busUsersDigest: c.busUsersDigest }),
    })
    if (!outcome.ok) return outcome
    const before = seen.sent.get(s.node)?.builds
    told.push({
      node: s.node,
      sequence: c.sequence,
      digest: c.digest,
      resources: c.resourceCount,
      builds: c.builds,
      ...(before === undefined ? {} : { before }),
    })
    yield* say(`sent ${s.node} ${c.resourceCount} resource(s)`)
    return outcome
  }

  function* act(a: DeliveryAct): Program<PushQuestions, ActOutcome> {
    if (a.act === "declare") return yield* declare(byNode.get(a.node)!)
    const granted = yield* ask({ q: "grant", memberships: sending.flatMap((s) => s.composition.memberships) })
    if (granted.ok)
      yield* say(`  issued ${sending.reduce((n, s) => n + s.composition.memberships.length, 0)} membership(s)`)
    return granted
  }
  const nodes = sending.map((s) => s.node)
  const acts = deliveryActs(holder, nodes)
  let step = acts.next()
  while (step.done !== true) step = acts.next(yield* act(step.value))
  yield* ask({ q: "release" })
  // A blank line, then the count: a said line is one line, and a line break inside one is shown as
  // `\x0a` wherever it is printed (issue 43).
  yield* say("")
  yield* say(`${told.length} node(s) told`)
  const unheld = new Map(sending.map((s) => [s.node, s.composition.unheld]))
  if (o.served !== true) for (const line of unheldReport(request.kind === "named", asked, unheld)) yield* say(line)
  return {
    told,
    refusals,
    error: step.value ?? couldNotBeResolved(refusals, told.length),
    held,
    holderLeft,
    ...(o.served === true ? { unheld } : {}),
  }
}
