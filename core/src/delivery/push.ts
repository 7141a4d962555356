// A push as a program of the delivery area (issue 25): it asks for the records, the plans that
// hold machines, what each machine was last sent and reports running; holds the machines, takes
// their sequences, composes each through what the plans hold, and sends in the order issue 249
// asks (the machine holding the bus first, then the grants, then every other declaration), each
// next act decided from the last one's outcome (order.ts startDelivery/afterAct); then the flush
// after a named push (issue 057) and the wait for a named machine. The shell answers each question
// over the store and the bus (shells/src/delivery/answers.ts) and decides nothing; a recording of
// its exchanges replays to the same sends (replayPush).
//
// Every push composes through the plans in flight (issue 9, seed 002's heldMachines, ADR 0221):
// until a plan's gate passes, no push of any kind sends its new build to a machine it has not
// reached; such a machine is named with why and composed with the build it runs, or left.
import { canonicalJson, sameJson } from "../json.ts"
import { type Program, programsOf, type QuestionOf, type Ran, runPure } from "../program.ts"
import { behindSelection, type Report, type Sent, unheldReport, waitVerdict } from "./behind.ts"
import { couldNotBeResolved, indexRecords, type Ready } from "./compose.ts"
import { flushBehind } from "./flush.ts"
import { type Hold, holdingLines } from "./held.ts"
import { type ActOutcome, afterAct, brokerFirst, holderBehindInPush, runningOf, startDelivery } from "./order.ts"
import {
  composeAllOrNothingViewed,
  composeEachViewed,
  type DryRunBuild,
  flushesAfter,
  heldAside,
  type PushRequest,
  type PushView,
  pushView,
  requestOf,
} from "./push-view.ts"
import { overTheBusLimit } from "./signing.ts"
import { utf8Bytes } from "../utf8.ts"
import { type PushQuestions, pushQuestions } from "./questions.ts"
import type { PlanRecord } from "../gate/records.ts"
import type { MeshRecords } from "../mesh/records.ts"

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

/** A push ends sent (all or in part), or refused before anything was held: no records, no such machine (bad input). */
export type PushEnd = { readonly result: PushResult } | { readonly refused: string }

/** What the machines were last sent and last reported: read once a push, again before a flush. */
interface Seen {
  readonly sent: ReadonlyMap<
    string,
    Sent & {
      readonly busUsersDigest?: string | undefined
      readonly builds?: Readonly<Record<string, string>> | undefined
    }
  >
  readonly reports: ReadonlyMap<string, Report>
}

function* seen(): Program<PushQuestions, Seen> {
  const sent = yield* ask({ q: "sent" })
  const reports = yield* ask({ q: "reports" })
  return {
    sent: new Map(
      sent.map((s) => [
        s.node,
        {
          digest: s.digest,
          sequence: s.sequence,
          busUsersDigest: s.busUsersDigest,
          ...(s.builds === undefined ? {} : { builds: s.builds }),
        },
      ]),
    ),
    reports: new Map(reports.map((r) => [r.node, { ...r, refused: r.refused }])),
  }
}

/**
 * What the machines detect, for the modules they cannot host (seed 002's reportUnhostable), as each
 * said in its last report. A machine that never said is not in it: not known is judged able to host
 * everything (unhostable.ts).
 */
const detectedOf = (reports: ReadonlyMap<string, Report>): ReadonlyMap<string, ReadonlySet<string>> =>
  new Map([...reports].flatMap(([node, r]) => (r.detects === undefined ? [] : [[node, new Set(r.detects)] as const])))

/**
 * The machines last sent a declaration by hand (`declare`): what it carried was not composed by the
 * mesh, so its builds are not known, and a push that does not name the machine treats it as held
 * (seed 002, novox/hq issue 259; issue 28). Before, the next sweep push overwrote it.
 */
export const declaredByHand = (nodes: ReadonlyArray<string>, sent: Seen["sent"]): ReadonlyArray<string> =>
  nodes.filter((n) => {
    const s = sent.get(n)
    return s !== undefined && s.builds === undefined
  })

/**
 * The machines whose declaration, signed, would be over the bus's message limit, with why: each
 * composed under the largest sequence it can carry and measured as its envelope is sent (the body's
 * bytes escaped, an ed25519 signature, the key's fingerprint), so the one sent is never larger.
 */
const overTheLimit = (view: PushView, limit: number | null): ReadonlyMap<string, string> => {
  const out = new Map<string, string>()
  if (limit === null) return out
  const largest = new Map(view.sendable.map((n) => [n, Number.MAX_SAFE_INTEGER]))
  for (const s of composeEachViewed(view, view.sendable, largest).sending) {
    const bytes = utf8Bytes(
      JSON.stringify({ body: s.composition.body, signature: "x".repeat(88), key: "x".repeat(64) }),
    ).length
    const why = overTheBusLimit({ node: s.node, bytes, limit })
    if (why !== undefined) out.set(s.node, why)
  }
  return out
}

/** The seed's sentence for a holder a named push leaves because a plan holds its modules (seed 002). */
const heldHolderSaid = (holder: string): string =>
  `${holder} holds the bus, and the user list it would carry has changed: until it is sent, the bus may refuse what this push's machines were newly granted`

/** What a push says of each machine it left as declared by hand. */
const leftByHandSaid = (node: string): string =>
  `${node}: left as it was declared by hand (the mesh did not compose what it carries); push ${node} by name to compose it again`

export function* pushProgram(o: PushAsk): Program<PushQuestions, PushEnd> {
  const records = yield* ask({ q: "mesh-records" })
  if (records === null)
    return { refused: "the mesh has no records yet: give them with mesh-controller mesh apply FILE" }
  const nodes = yield* ask({ q: "machines" })
  if (o.node !== undefined && !nodes.includes(o.node))
    return { refused: `no machine named ${o.node} is in the mesh's records` }
  const request = o.request ?? requestOf(o)
  const plans = yield* ask({ q: "plans-holding" })
  const before = yield* seen()
  const detected = detectedOf(before.reports)
  const named = o.machines ?? (o.node === undefined ? undefined : [o.node])
  const byHand = declaredByHand(nodes, before.sent).filter((n) => !(named ?? []).includes(n))
  for (const n of byHand) yield* say(leftByHandSaid(n))
  const asked: ReadonlyArray<string> = named ?? nodes.filter((n) => !byHand.includes(n))
  if (o.behind) {
    // Judged with what the plans hold: a machine behind only because a plan's build waits for its
    // gate is not behind (issue 259).
    const view = pushView(records, plans, nodes, request, detected)
    const selection = behindSelection(
      view.indexOf,
      nodes.filter((n) => !byHand.includes(n)),
      before.reports,
      before.sent,
      yield* ask({ q: "now" }),
    )
    const aside = heldAside(view, selection.asked)
    for (const line of aside.said) yield* say(line)
    for (const line of selection.said) yield* say(line)
    if (selection.asked.length === 0)
      return { result: { told: [], refusals: [], error: undefined, held: aside.holds, flushed: [] } }
    const sent = yield* deliver(o, selection.asked, request, records, plans, before)
    return { result: yield* waitFor(o, { ...sent, held: [...aside.holds, ...(sent.held ?? [])] }) }
  }

  const first = yield* deliver(o, asked, request, records, plans, before)
  if (
    first.error !== undefined ||
    !flushesAfter(
      request,
      first.told.map((t) => t.node),
    )
  )
    return { result: yield* waitFor(o, first) }
  // The flush after a named push (issue 057, ADR 0083): the machines now behind as a consequence
  // of it, composed with what the plans hold; a held machine is not behind, one left is named.
  const told = [...first.told]
  const refusals = [...first.refusals]
  const flushed: Array<string> = []
  // A machine declared by hand is held from the flush as from the push (seed 002).
  const handled = new Set([...asked, ...told.map((t) => t.node), ...byHand])
  let error: string | undefined
  for (let round = 1; ; round++) {
    const now = (yield* ask({ q: "mesh-records" })) ?? records
    const plansNow = yield* ask({ q: "plans-holding" })
    const seenNow = yield* seen()
    const view = pushView(now, plansNow, nodes, { kind: "flush" }, detectedOf(seenNow.reports))
    const f = flushBehind(view.indexOf, nodes, seenNow.sent, handled, view.holding.left, round)
    for (const line of f.said) yield* say(line)
    for (const n of f.handled) handled.add(n)
    if (f.flush.length === 0) break
    const r = yield* deliver(o, f.flush, { kind: "flush" }, now, plansNow, seenNow, new Set(told.map((t) => t.node)))
    told.push(...r.told)
    refusals.push(...r.refusals)
    flushed.push(...r.told.map((t) => t.node).filter((n) => f.flush.includes(n)))
    if (r.error !== undefined) {
      error = r.error
      break
    }
  }
  return { result: yield* waitFor(o, { told, refusals, error, held: first.held ?? [], flushed }) }
}

/** For a named machine, the wait until it reports applying what it was sent (`--wait`). */
function* waitFor(o: PushAsk, result: PushResult): Program<PushQuestions, PushResult> {
  if (result.error !== undefined || o.node === undefined || o.wait <= 0) return result
  const digest = result.told.find((t) => t.node === o.node)?.digest ?? ""
  const deadline = (yield* ask({ q: "now" })) + o.wait
  for (;;) {
    const report = yield* ask({ q: "report-of", node: o.node })
    const verdict = waitVerdict(
      o.node,
      digest,
      report === null ? undefined : { ...report, refused: report.refused },
      yield* ask({ q: "now" }),
      deadline,
      o.wait,
    )
    if (verdict.done) {
      if (!verdict.ok) return { ...result, error: verdict.error }
      if (verdict.said !== "") yield* say(verdict.said)
      return result
    }
    yield* ask({ q: "sleep", ms: 250 })
  }
}

/**
 * One delivery: the machines asked (and the machine holding the bus first when what it reports
 * running lacks the user list composed now: seed 004's listBehind), held from composing to sending,
 * numbered, composed each through what the plans hold, and sent in the order the delivery plan asks
 * (order.ts), each act's outcome deciding the next.
 */
function* deliver(
  o: PushAsk,
  askedIn: ReadonlyArray<string>,
  request: PushRequest,
  records: MeshRecords,
  plans: ReadonlyArray<PlanRecord>,
  seen: Seen,
  /** The machines an earlier delivery of this same push told. */
  sentBefore: ReadonlySet<string> = new Set(),
): Program<PushQuestions, PushResult> {
  // The machine holding the bus first (novox/hq issue 249): among those asked it goes first; not
  // among them and behind what it reports running, it is added.
  const holderName = indexRecords(records).holder
  const detected = detectedOf(seen.reports)
  const forHolder = pushView(
    records,
    plans,
    holderName === undefined ? askedIn : [...new Set([...askedIn, holderName])],
    request,
    detected,
  )
  const running =
    holderName === undefined ? undefined : runningOf(seen.reports.get(holderName), seen.sent.get(holderName))
  const sentThisPush =
    holderName === undefined || !sentBefore.has(holderName)
      ? undefined
      : { busUsersDigest: seen.sent.get(holderName)?.busUsersDigest }
  const found = holderBehindInPush(
    holderName === undefined ? indexRecords(records) : forHolder.indexOf(holderName),
    askedIn,
    running,
    sentThisPush,
  )
  const { holder } = found
  let behind = found.behind
  // **Not when its own modules are held back** (seed 002; novox/hq issue 259, ADR 0221): added rather
  // than named, the holder would be sent its whole declaration, and a build a plan has not sent it yet
  // would go with the user list. In a push naming one machine it is named and left, with what that costs.
  if (behind && holder !== undefined && o.node !== undefined && !askedIn.includes(holder)) {
    const holds = forHolder.holding.holds.filter((h) => h.machine === holder)
    if (holds.length > 0) {
      for (const line of holdingLines({ pins: forHolder.holding.pins, left: new Map(), holds })) yield* say(line)
      yield* say(heldHolderSaid(holder))
      behind = false
    }
  }
  const asked = brokerFirst(askedIn, holder, behind)

  yield* ask({ q: "hold", machines: asked })
  // Under the hold (ADR 0100), read, measured, numbered, then composed (novox/hq issue 204): no
  // other push or hand declaration composes for these machines until they are let go, so what was
  // composed earlier is still numbered lower whatever order the sends happen in; and the records and
  // the plans are read once the machines are held.
  const composedFrom = (yield* ask({ q: "mesh-records" })) ?? records
  const plansNow = yield* ask({ q: "plans-holding" })
  const view = pushView(composedFrom, plansNow, asked, request, detected, o.dryRun)
  for (const line of view.said) yield* say(line)
  const held = view.holding.holds
  // A declaration over the bus's message limit is refused before its number is taken (issue 28): at
  // scale, the bus holder's user list grows with the mesh.
  const over = overTheLimit(view, yield* ask({ q: "message-limit" }))
  for (const line of over.values()) yield* say(line)
  const sequences = new Map<string, number | { error: string }>()
  for (const n of asked) {
    if (over.has(n)) continue
    const allotted = yield* ask({ q: "allot", node: n })
    sequences.set(n, "sequence" in allotted ? allotted.sequence : { error: allotted.error })
  }
  if (o.allOrNothing === true) {
    const together = composeAllOrNothingViewed(view, asked, sequences)
    if (together.refused !== undefined) {
      yield* ask({ q: "release" })
      return { told: [], refusals: [], error: together.refused, held }
    }
  }
  const composed = composeEachViewed(
    view,
    view.sendable.filter((n) => !over.has(n)),
    sequences,
  )
  const { sending, said } = composed
  const refusals = [...[...over].map(([n, why]) => `${n}:\n${why}`), ...composed.refusals]
  for (const line of said) yield* say(line)
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
      sequence: c.declaration.sequence,
      builds: c.builds,
      ...(c.busUsersDigest === undefined ? {} : { busUsersDigest: c.busUsersDigest }),
    })
    if (!outcome.ok) return outcome
    const before = seen.sent.get(s.node)?.builds
    told.push({
      node: s.node,
      sequence: c.declaration.sequence,
      digest: c.digest,
      resources: c.declaration.resources.length,
      builds: c.builds,
      ...(before === undefined ? {} : { before }),
    })
    yield* say(`sent ${s.node} ${c.declaration.resources.length} resource(s)`)
    return outcome
  }

  let step = startDelivery(
    holder,
    sending.map((s) => s.node),
  )
  while (step.next !== undefined) {
    const act = step.next
    const outcome: ActOutcome =
      act.act === "declare"
        ? yield* declare(byNode.get(act.node)!)
        : yield* ask({ q: "grant", memberships: sending.flatMap((s) => s.composition.memberships) })
    if (act.act === "grant" && outcome.ok)
      yield* say(`  issued ${sending.reduce((n, s) => n + s.composition.memberships.length, 0)} membership(s)`)
    step = afterAct(step, outcome)
  }
  yield* ask({ q: "release" })
  yield* say(`\n${told.length} node(s) told`)
  const unheld = new Map(sending.map((s) => [s.node, s.composition.unheld]))
  if (o.served !== true) for (const line of unheldReport(request.kind === "named", asked, unheld)) yield* say(line)
  const error = step.delivery.error ?? couldNotBeResolved(refusals, told.length)
  return { told, refusals, error, held, ...(o.served === true ? { unheld } : {}) }
}

// ---- the gate's holder-list ----

/**
 * Whether what the machine holding the bus reports running lacks the user list composed now, with
 * what the plans hold (seed 004's listBehind): the gate's `holder-list` question, judged as a push
 * would judge it.
 */
export const holderListBehind = (
  records: MeshRecords,
  holder: string,
  plans: ReadonlyArray<PlanRecord>,
  sent: Seen["sent"],
  reports: Seen["reports"],
): boolean => {
  const view = pushView(records, plans, [holder], { kind: "sweep" }, detectedOf(reports))
  return holderBehindInPush(view.indexOf(holder), [], runningOf(reports.get(holder), sent.get(holder)), undefined)
    .behind
}

// ---- a plan's own send (the gate's send-plan) ----

/** The gate's `send-plan` question, as the delivery area reads it. */
export interface PlanSend {
  readonly plan: string
  readonly module: string
  readonly why: "tier" | "rest" | "rollback" | "user-list"
  readonly machines: ReadonlyArray<string>
  readonly build?: string
}

/**
 * A plan's own send: a push of exactly these machines, as the plan's own request, so what other plans
 * hold still holds (issue 9). A dry run's build (issue 10) is composed on its machines without being
 * registered.
 */
export const planSendAsk = (s: PlanSend): PushAsk => ({
  machines: s.machines,
  node: undefined,
  behind: false,
  wait: 0,
  request: { kind: "plan", plan: s.plan, why: s.why, machines: s.machines },
  ...(s.build === undefined ? {} : { dryRun: { module: s.module, build: s.build } }),
})

/** A module another than the plan's whose build a send changed on a machine: carried with it (seed 003). */
export interface CarriedBuild {
  readonly node: string
  readonly module: string
  readonly build: string
}

/**
 * What a plan's send answers the gate: `told`, the machines whose declaration went out, so one it did
 * not reach is tried again; `without`, the machines told whose declaration does not carry the module
 * (no longer assigned it, or unable to host it), which the gate does not judge it on (seed 003's
 * running filter); `carried`, every other module whose build the send changed on a machine told,
 * judged with it (seed 003's Carried). A machine whose last declaration's builds are not known (sent
 * by hand) carried nothing anyone can name.
 */
export const planSendOutcome = (
  s: PlanSend,
  end: PushEnd,
): {
  readonly told: ReadonlyArray<string>
  readonly error?: string
  readonly without?: ReadonlyArray<string>
  readonly carried?: ReadonlyArray<CarriedBuild>
} => {
  if ("refused" in end) return { told: [], error: end.refused }
  const r = end.result
  const ours = r.told.filter((t) => s.machines.includes(t.node))
  const told = s.machines.filter((m) => ours.some((t) => t.node === m))
  const without = ours.filter((t) => t.builds !== undefined && t.builds[s.module] === undefined).map((t) => t.node)
  const carried = ours.flatMap((t) =>
    t.builds === undefined || t.before === undefined
      ? []
      : Object.entries(t.builds)
          .filter(([module, build]) => module !== s.module && t.before![module] !== build)
          .map(([module, build]) => ({ node: t.node, module, build })),
  )
  const moved = {
    ...(without.length === 0 ? {} : { without }),
    ...(carried.length === 0 ? {} : { carried }),
  }
  return r.error === undefined && told.length === s.machines.length
    ? { told, ...moved }
    : { told, error: r.error ?? "not every machine was told", ...moved }
}

// ---- a push replayed from its exchanges ----

export interface PushReplayed {
  readonly end: PushEnd | undefined
  readonly said: ReadonlyArray<string>
  /** The acts the replay asked for, in order. */
  readonly acts: ReadonlyArray<QuestionOf<PushQuestions>>
  /**
   * Questions not asked as recorded: an act (a declaration's bytes, a grant, a hold, the order) that
   * is not the one recorded, a question the recording has no answer for, or a recorded exchange the
   * replay never reached. 0 when the core composes, orders and sends as it did.
   */
  readonly differed: number
}

class Unrecorded extends Error {}

/**
 * Runs the push again over the answers it got, in order: each question is answered by the next
 * recorded exchange of its kind; an act whose question is not the recorded one counts as differing.
 * A question the recording cannot answer ends the replay there (counted).
 */
export const replayPush = (
  o: PushAsk,
  exchanges: ReadonlyArray<{ readonly q: { readonly q: string }; readonly a: unknown }>,
): PushReplayed => {
  const used = new Array<boolean>(exchanges.length).fill(false)
  let differed = 0
  const acts: Array<QuestionOf<PushQuestions>> = []
  let ran: Ran<PushQuestions, PushEnd> | undefined
  const said: Array<string> = []
  const program = pushProgram(o)
  try {
    ran = runPure(program, (question) => {
      const i = exchanges.findIndex((e, n) => !used[n] && e.q.q === question.q)
      if (pushQuestions[question.q].act) acts.push(question)
      // A day recorded before the limit was asked: not known then, and the push measured nothing.
      if (i < 0 && question.q === "message-limit") return null
      if (i < 0) throw new Unrecorded(question.q)
      used[i] = true
      const recorded = exchanges[i]!
      if (
        pushQuestions[question.q].act &&
        !sameJson(recorded.q, question) &&
        canonicalJson(recorded.q) !== canonicalJson(question)
      )
        differed += 1
      return recorded.a
    })
  } catch (e) {
    if (!(e instanceof Unrecorded)) throw e
    differed += 1
  }
  differed += used.filter((u) => !u).length
  if (ran !== undefined) said.push(...ran.said)
  return { end: ran?.result, said, acts, differed }
}
