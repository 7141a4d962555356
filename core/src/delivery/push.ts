// A push as a program of the delivery area (issue 25): it asks for the records, the plans that
// hold machines, what each machine was last sent and reports running; holds the machines, takes
// their sequences, composes each through what the plans hold, and sends in the order issue 249
// asks (the machine holding the bus first, then the grants, then every other declaration), each
// next act decided from the last one's outcome (order.ts deliveryActs); then the flush
// after a named push (issue 057) and the wait for a named machine. The shell answers each question
// over the store and the bus (shells/src/delivery/answers.ts) and decides nothing; a recording of
// its exchanges replays to the same sends (replayPush).
//
// Every push composes through the plans in flight (issue 9, seed 002's heldMachines, ADR 0221):
// until a plan's gate passes, no push of any kind sends its new build to a machine it has not
// reached; such a machine is named with why and composed with the build it runs, or left.
import { canonicalJson, sameJson } from "../json.ts"
import type { PlanRecord } from "../gate/plan/records.ts"
import type { MeshRecords } from "../mesh/records.ts"
import { type Program, programsOf, type QuestionOf, type Ran, runPure } from "../program.ts"
import { behindSelection, waitVerdict } from "./behind.ts"
import { deliver, detectedOf, type PushAsk, type PushResult, type Seen, seen } from "./deliver.ts"
import { flushBehind } from "./flush.ts"
import { holderBehind, runningList } from "./order.ts"
import { flushesAfter, heldAside, type PushRequest, pushView, requestOf } from "./push-view.ts"
import { type PushQuestions, pushQuestions } from "./questions.ts"

export type { PushAsk, PushResult } from "./deliver.ts"

const { ask, say } = programsOf(pushQuestions)

/** A push ends sent (all or in part), or refused before anything was held: no records, no such machine (bad input). */
export type PushEnd = { readonly result: PushResult } | { readonly refused: string }

/**
 * The machines last sent a declaration by hand (`declare`): what it carried was not composed by the
 * mesh, so its builds are not known, and a push that does not name the machine treats it as held
 * (seed 002, novox/hq issue 259; issue 28). Before, the next sweep push overwrote it.
 */
export const declaredByHand = (nodes: ReadonlyArray<string>, sent: Seen["sent"]): ReadonlyArray<string> =>
  nodes.filter((n) => sent.has(n) && sent.get(n)!.builds === undefined)

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
  const namedSet = new Set(named)
  const byHand = new Set(declaredByHand(nodes, before.sent).filter((n) => !namedSet.has(n)))
  for (const n of byHand) yield* say(leftByHandSaid(n))
  const unheldNodes = nodes.filter((n) => !byHand.has(n))
  const asked: ReadonlyArray<string> = named ?? unheldNodes
  if (o.behind) {
    // Judged with what the plans hold: a machine behind only because a plan's build waits for its
    // gate is not behind (issue 259).
    const view = pushView(records, plans, nodes, request, detected)
    const selection = behindSelection(view.indexOf, unheldNodes, before.reports, before.sent, yield* ask({ q: "now" }))
    const aside = heldAside(view, selection.asked)
    for (const line of aside.said) yield* say(line)
    for (const line of selection.said) yield* say(line)
    if (selection.asked.length === 0)
      return { result: { told: [], refusals: [], error: undefined, held: aside.holds, flushed: [] } }
    const sent = yield* deliver(o, { asked: selection.asked, request, records, plans, seen: before })
    return { result: yield* waitFor(o, { ...sent, held: [...aside.holds, ...(sent.held ?? [])] }) }
  }

  const first = yield* deliver(o, { asked, request, records, plans, seen: before })
  const firstTold = first.told.map((t) => t.node)
  if (first.error !== undefined || !flushesAfter(request, firstTold)) return { result: yield* waitFor(o, first) }
  // The flush after a named push (issue 057, ADR 0083): the machines now behind as a consequence
  // of it, composed with what the plans hold; a held machine is not behind, one left is named.
  const told = [...first.told]
  const refusals = [...first.refusals]
  const flushed: Array<string> = []
  // A machine declared by hand is held from the flush as from the push (seed 002); so is the bus
  // holder the push left while a plan holds its modules (seed 002-19: among the flush's handled).
  const { holderLeft } = first
  const handled = new Set([...asked, ...firstTold, ...byHand, ...(holderLeft === undefined ? [] : [holderLeft])])
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
    const r = yield* deliver(o, {
      asked: f.flush,
      request: { kind: "flush" },
      records: now,
      plans: plansNow,
      seen: seenNow,
      sentBefore: new Set(told.map((t) => t.node)),
      holderLeft,
    })
    told.push(...r.told)
    refusals.push(...r.refusals)
    flushed.push(...r.told.map((t) => t.node).filter((n) => f.flush.includes(n)))
    error = r.error
    if (error !== undefined) break
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
    const verdict = waitVerdict(o.node, digest, report ?? undefined, yield* ask({ q: "now" }), deadline, o.wait)
    if (verdict.done) {
      if (!verdict.ok) return { ...result, error: verdict.error }
      if (verdict.said !== "") yield* say(verdict.said)
      return result
    }
    yield* ask({ q: "sleep", ms: 250 })
  }
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
  return holderBehind(view.indexOf(holder), [], runningList(reports.get(holder), sent.get(holder))).behind
}

// ---- a plan's own send (the gate's send-plan) ----

/** The gate's `send-plan` question, as the delivery area reads it. */
export type PlanSend = Omit<Extract<PushRequest, { kind: "plan" }>, "kind"> & {
  readonly module: string
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

/**
 * What a plan's send answers the gate: `told`, the machines whose declaration went out, so one it did
 * not reach is tried again; `without`, the machines told whose declaration does not carry the module
 * (no longer assigned it, or unable to host it), which the gate does not judge it on (seed 003's
 * running filter); `carried`, every other module whose build the send changed on a machine told,
 * judged with it (seed 003's Carried). A machine whose last declaration's builds are not known (sent
 * by hand) carried nothing anyone can name.
 */
export const planSendOutcome = (s: PlanSend, end: PushEnd) => {
  if ("refused" in end) return { told: [], error: end.refused }
  const r = end.result
  const asked = new Set(s.machines)
  const ours = r.told.filter((t) => asked.has(t.node))
  const reached = new Set(ours.map((t) => t.node))
  const told = s.machines.filter((m) => reached.has(m))
  const without = ours.filter((t) => t.builds !== undefined && t.builds[s.module] === undefined).map((t) => t.node)
  const carried = ours.flatMap((t) =>
    t.builds === undefined || t.before === undefined
      ? []
      : Object.entries(t.builds)
          .filter(([module, build]) => module !== s.module && t.before![module] !== build)
          .map(([module, build]) => {
            const before = t.before![module]
            return { node: t.node, module, build, ...(before === undefined ? {} : { before }) }
          }),
  )
  const moved = { ...(without.length === 0 ? {} : { without }), ...(carried.length === 0 ? {} : { carried }) }
  return r.error === undefined && told.length === s.machines.length
    ? { told, ...moved }
    : { told, error: r.error ?? "not every machine was told", ...moved }
}

// ---- a push replayed from its exchanges ----

class Unrecorded extends Error {}

/**
 * Runs the push again over the answers it got, in order: each question is answered by the next
 * recorded exchange of its kind; an act whose question is not the recorded one counts as differing.
 * A question the recording cannot answer ends the replay there (counted). Answers how it ended, what
 * it said, the acts it asked for in order, and how many questions were not asked as recorded (an act
 * that is not the one recorded, a question the recording has no answer for, a recorded exchange the
 * replay never reached): 0 when the core composes, orders and sends as it did.
 */
export const replayPush = (
  o: PushAsk,
  exchanges: ReadonlyArray<{ readonly q: { readonly q: string }; readonly a: unknown }>,
) => {
  // Each kind's exchanges in order, and how many of them are used: the next is its answer.
  const byKind = Map.groupBy(exchanges.keys(), (n) => exchanges[n]!.q.q)
  const taken = new Map<string, number>()
  let differed = 0
  const acts: Array<QuestionOf<PushQuestions>> = []
  let ran: Ran<PushQuestions, PushEnd> | undefined
  try {
    ran = runPure(pushProgram(o), (question) => {
      const k = taken.get(question.q) ?? 0
      const i = byKind.get(question.q)?.[k] ?? -1
      if (pushQuestions[question.q].act) acts.push(question)
      // A day recorded before the limit was asked: not known then, and the push measured nothing.
      if (i < 0 && question.q === "message-limit") return null
      if (i < 0) throw new Unrecorded(question.q)
      taken.set(question.q, k + 1)
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
  differed += exchanges.length - [...taken.values()].reduce((n, k) => n + k, 0)
  return { end: ran?.result, said: ran?.said ?? [], acts, differed }
}
