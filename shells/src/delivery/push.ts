// `push`: sends machines everything they should be. The decisions are the core's (which machines,
// in which order, what each is, what a grant refusal holds back, what the release plans hold, which
// machines a named push flushes); this holds the machines, takes their sequences, reads the records
// and the plans, and performs each act the core's delivery plan asks for.
//
// Every push composes through the plans in flight (issue 9, seed 002's heldMachines, ADR 0221):
// until a plan's gate passes, no push of any kind sends its new build to a machine it has not
// reached; such a machine is named with why and composed with the build it runs, or left.
import { behindSelection, type Report, type Sent, unheldReport, waitVerdict } from "@mesh-core/core/delivery/behind"
import { couldNotBeResolved, indexRecords, type Ready } from "@mesh-core/core/delivery/compose"
import type { PlanRecord } from "@mesh-core/core/controller/records"
import { flushBehind } from "@mesh-core/core/delivery/flush"
import type { Hold } from "@mesh-core/core/delivery/held"
import { type ActOutcome, afterAct, brokerFirst, holderBehindInPush, runningOf, startDelivery } from "@mesh-core/core/delivery/order"
import { composeAllOrNothingViewed, composeEachViewed, type DryRunBuild, flushesAfter, heldAside, type PushRequest, pushView, requestOf } from "@mesh-core/core/delivery/push-view"
import type { MeshRecords } from "@mesh-core/core/delivery/records"
import { Clock, Data, Duration, Effect } from "effect"
import { Bus } from "../bus/nats.ts"
import { assertDeliveryStreams, type DeliveryNames, issueGrants, publishDeclaration } from "./wire.ts"
import { establish } from "../identity.ts"
import { fence, Fenced } from "../lease/fence.ts"
import { CurrentTx, Store, transaction, type StoreUnreadable } from "../store/postgres.ts"
import { DeliveryStore } from "../store/delivery.ts"
import { errorText } from "@mesh-core/core/error-text"

/** A push that cannot start from what it was asked (no such machine, no records): bad input. */
export class PushRefused extends Data.TaggedError("PushRefused")<{ readonly said: string }> {
  override get message(): string {
    return this.said
  }
}

export class PushUnreachable extends Data.TaggedError("PushUnreachable")<{ readonly said: string; readonly cause?: unknown }> {
  override get message(): string {
    return this.said
  }
}

const io = <A>(what: string, f: () => Promise<A>) =>
  Effect.tryPromise({ try: f, catch: (e) => new PushUnreachable({ said: `${what}: ${errorText(e)}`, cause: e }) })

/** A read or write of the store through its services, its failure said as what the push could not do. */
const viaStore = <A, R>(what: string, op: Effect.Effect<A, StoreUnreadable, R>) =>
  op.pipe(Effect.mapError((e) => new PushUnreachable({ said: `${what}: ${e.reason}`, cause: e })))

/**
 * A write of the push's own rows (a sequence allotted, a send recorded). Sent by the gate under the
 * lease (`epoch` set), it is one transaction whose first statement is the store's fence (issue 13):
 * a holder paused past its lease between the gate's fence check and this write is refused here, by
 * the store, and the push stops with `Fenced`. A person's push carries no epoch and writes as it is.
 */
const writeIo = <A>(store: Store["Service"], epoch: number | undefined, what: string, write: Effect.Effect<A, StoreUnreadable>): Effect.Effect<A, Fenced | PushUnreachable> =>
  epoch === undefined
    ? viaStore(what, write)
    : transaction(store)(Effect.gen(function*() {
      yield* fence((yield* CurrentTx) ?? store.sql, store.url, epoch)
      return yield* write
    })).pipe(Effect.mapError((e): Fenced | PushUnreachable => (e instanceof Fenced ? e : new PushUnreachable({ said: `${what}: ${e.reason}`, cause: e }))))

export interface PushOptions {
  /** Exactly these machines (a release, a rollback): neither a named push nor a sweep. */
  readonly machines?: ReadonlyArray<string>
  /**
   * What the push was asked, for what the plans hold: a plan's own send (`{kind: "plan", plan, why,
   * machines}`) reaches the machines of its tier. Left out: a sweep, a named push or `--behind`, from
   * `node` and `behind` (a sweep of `machines` when they are given).
   */
  readonly request?: PushRequest
  /**
   * A dry run's send (the gate's send-plan with a build, issue 10): the machines asked are composed
   * with this build of the module, which is not registered, so no other push sends it.
   */
  readonly dryRun?: DryRunBuild
  /** The controller lease's epoch, when the gate sends under the lease: each declaration carries it (issue 13). */
  readonly epoch?: number
  /** All of them or none (a credential rotated across machines that must agree). */
  readonly allOrNothing?: boolean
  readonly node: string | undefined
  readonly behind: boolean
  /** For a named machine, how long to wait for it to report applying what it was sent (ms; 0: do not). */
  readonly wait: number
  readonly names: DeliveryNames
  /** Each line as it is said. */
  readonly say: (line: string) => Effect.Effect<void>
}

export interface PushResult {
  readonly told: ReadonlyArray<{ readonly node: string; readonly sequence: number; readonly digest: string; readonly resources: number }>
  readonly refusals: ReadonlyArray<string>
  readonly error: string | undefined
  /** Each machine and module a plan held back, with why. */
  readonly held?: ReadonlyArray<Hold>
  /** The machines sent as a consequence of a named push (issue 057). */
  readonly flushed?: ReadonlyArray<string>
}

/** What the machines were last sent and last reported: read once a push, again before a flush. */
interface Seen {
  readonly sent: ReadonlyMap<string, Sent & { readonly busUsersDigest?: string | undefined }>
  readonly reports: ReadonlyMap<string, Report>
}

/**
 * What the machines detect, for the modules they cannot host (seed 002's reportUnhostable), as each
 * said in its last report. A machine that never said is not in it: not known is judged able to host
 * everything (core/src/delivery/unhostable.ts).
 */
const detectedOf = (reports: ReadonlyMap<string, Report>): ReadonlyMap<string, ReadonlySet<string>> =>
  new Map([...reports].flatMap(([node, r]) => (r.detects === undefined ? [] : [[node, new Set(r.detects)] as const])))

export const push = Effect.fn("Push.push")(function*(o: PushOptions) {
    const delivery = yield* DeliveryStore
    const { nc, jsm } = yield* Bus
    const records = yield* viaStore("the mesh's records cannot be read", delivery.records)
    if (records === undefined) return yield* Effect.fail(new PushRefused({ said: "the mesh has no records yet: give them with mesh-controller mesh apply FILE" }))
    const nodes = yield* viaStore("the machines cannot be read", delivery.nodeNames)
    if (o.node !== undefined && !nodes.includes(o.node)) {
      return yield* Effect.fail(new PushRefused({ said: `no machine named ${o.node} is in the mesh's records` }))
    }
    const request = o.request ?? requestOf(o)
    const plans = yield* viaStore("the release plans cannot be read", delivery.plansHolding)
    const seen = (): Effect.Effect<Seen, PushUnreachable> => Effect.all({
      sent: viaStore("what was sent cannot be read", delivery.sentAll),
      reports: viaStore("the machines' reports cannot be read", delivery.reportsAll),
    })
    const before = yield* seen()
    const detected = detectedOf(before.reports)
    const asked: ReadonlyArray<string> = o.machines ?? (o.node === undefined ? nodes : [o.node])
    if (o.behind) {
      // Judged with what the plans hold: a machine behind only because a plan's build waits for its
      // gate is not behind (issue 259).
      const view = pushView(records, plans, nodes, request, detected)
      const selection = behindSelection(view.indexOf, nodes, before.reports, before.sent, yield* Clock.currentTimeMillis)
      const aside = heldAside(view, selection.asked)
      for (const line of aside.said) yield* o.say(line)
      for (const line of selection.said) yield* o.say(line)
      if (selection.asked.length === 0) return { told: [], refusals: [], error: undefined, held: aside.holds, flushed: [] } satisfies PushResult
      const sent = yield* deliver(o, selection.asked, request, records, plans, before, nc, jsm)
      return yield* waitFor(o, { ...sent, held: [...aside.holds, ...(sent.held ?? [])] })
    }

    const first = yield* deliver(o, asked, request, records, plans, before, nc, jsm)
    if (first.error !== undefined || !flushesAfter(request, first.told.map((t) => t.node))) {
      return yield* waitFor(o, first)
    }
    // The flush after a named push (issue 057, ADR 0083): the machines now behind as a consequence
    // of it, composed with what the plans hold; a held machine is not behind, one left is named.
    const told = [...first.told]
    const refusals = [...first.refusals]
    const flushed: Array<string> = []
    const handled = new Set([...asked, ...told.map((t) => t.node)])
    let error: string | undefined
    for (let round = 1; ; round++) {
      const now = (yield* viaStore("the mesh's records cannot be read", delivery.records)) ?? records
      const plansNow = yield* viaStore("the release plans cannot be read", delivery.plansHolding)
      const seenNow = yield* seen()
      const view = pushView(now, plansNow, nodes, { kind: "flush" }, detectedOf(seenNow.reports))
      const f = flushBehind(view.indexOf, nodes, seenNow.sent, handled, view.holding.left, round)
      for (const line of f.said) yield* o.say(line)
      for (const n of f.handled) handled.add(n)
      if (f.flush.length === 0) break
      const r = yield* deliver(o, f.flush, { kind: "flush" }, now, plansNow, seenNow, nc, jsm, new Set(told.map((t) => t.node)))
      told.push(...r.told)
      refusals.push(...r.refusals)
      flushed.push(...r.told.map((t) => t.node).filter((n) => f.flush.includes(n)))
      if (r.error !== undefined) {
        error = r.error
        break
      }
    }
    return yield* waitFor(o, { told, refusals, error, held: first.held ?? [], flushed })
  })

/** For a named machine, the wait until it reports applying what it was sent (`--wait`). */
const waitFor = (o: PushOptions, result: PushResult) =>
  Effect.gen(function*() {
    if (result.error !== undefined || o.node === undefined || o.wait <= 0) return result
    const delivery = yield* DeliveryStore
    const digest = result.told.find((t) => t.node === o.node)?.digest ?? ""
    const deadline = (yield* Clock.currentTimeMillis) + o.wait
    for (;;) {
      const report = yield* viaStore("the machine's report cannot be read", delivery.reportOfNode(o.node))
      const verdict = waitVerdict(o.node, digest, report, yield* Clock.currentTimeMillis, deadline, o.wait)
      if (verdict.done) {
        if (!verdict.ok) return { ...result, error: verdict.error } satisfies PushResult
        if (verdict.said !== "") yield* o.say(verdict.said)
        return result
      }
      yield* Effect.sleep(Duration.millis(250))
    }
  })

/**
 * One delivery: the machines asked (and the machine holding the bus first when what it reports
 * running lacks the user list composed now: seed 004's listBehind), held from composing to sending,
 * numbered, composed each through what the plans hold, and sent in the order the core's delivery
 * plan asks.
 */
const deliver = (
  o: PushOptions, askedIn: ReadonlyArray<string>, request: PushRequest, records: MeshRecords, plans: ReadonlyArray<PlanRecord>, seen: Seen,
  nc: Bus["Service"]["nc"], jsm: Bus["Service"]["jsm"],
  /** The machines an earlier delivery of this same push told. */
  sentBefore: ReadonlySet<string> = new Set(),
) =>
  Effect.gen(function*() {
    const store = yield* Store
    const delivery = yield* DeliveryStore
    // The machine holding the bus first (novox/hq issue 249): among those asked it goes first; not
    // among them and behind what it reports running, it is added.
    const holderName = indexRecords(records).holder
    const detected = detectedOf(seen.reports)
    const forHolder = pushView(records, plans, holderName === undefined ? askedIn : [...new Set([...askedIn, holderName])], request, detected)
    const running = holderName === undefined ? undefined : runningOf(seen.reports.get(holderName), seen.sent.get(holderName))
    const sentThisPush = holderName === undefined || !sentBefore.has(holderName) ? undefined : { busUsersDigest: seen.sent.get(holderName)?.busUsersDigest }
    const { holder, behind } = holderBehindInPush(holderName === undefined ? indexRecords(records) : forHolder.indexOf(holderName), askedIn, running, sentThisPush)
    const asked = brokerFirst(askedIn, holder, behind)

    const release = yield* viaStore("the machines cannot be held", delivery.holdNodes(asked))
    return yield* Effect.gen(function*() {
      // Numbered before composing (novox/hq issue 204): what was composed earlier is numbered lower
      // whatever order the sends happen in. The records and the plans are read after the numbers are taken.
      const sequences = new Map<string, number | { error: string }>()
      for (const n of asked) {
        sequences.set(n, yield* writeIo(store, o.epoch, `no sequence for ${n}`, delivery.allot(n)).pipe(
          Effect.catchTag("PushUnreachable", (e) => Effect.succeed({ error: e.said })),
        ))
      }
      const composedFrom = (yield* viaStore("the mesh's records cannot be read", delivery.records)) ?? records
      const plansNow = yield* viaStore("the release plans cannot be read", delivery.plansHolding)
      const view = pushView(composedFrom, plansNow, asked, request, detected, o.dryRun)
      for (const line of view.said) yield* o.say(line)
      const held = view.holding.holds
      if (o.allOrNothing === true) {
        const together = composeAllOrNothingViewed(view, asked, sequences)
        if (together.refused !== undefined) return { told: [], refusals: [], error: together.refused, held } satisfies PushResult
      }
      const { sending, refusals, said } = composeEachViewed(view, view.sendable, sequences)
      for (const line of said) yield* o.say(line)
      const signer = yield* viaStore("the controller's signing key cannot be established", establish())
      yield* io("the delivery streams cannot be asserted", () => assertDeliveryStreams(jsm, o.names))

      const byNode = new Map(sending.map((s) => [s.node, s]))
      const told: Array<PushResult["told"][number]> = []
      const declare = (s: Ready): Effect.Effect<ActOutcome, Fenced> =>
        Effect.gen(function*() {
          const c = s.composition
          const sentOut = yield* Effect.result(io(`${s.node} was not sent`, () =>
            publishDeclaration(nc, o.names, s.node, { body: c.body, signature: signer.sign(c.body), key: signer.fingerprint }, o.epoch)))
          if (sentOut._tag === "Failure") return { ok: false, error: sentOut.failure.said }
          // After it is away, not before, and on an act the caller cannot cut short (issue 204):
          // what was sent was sent, and the record of it must not depend on the sender living on.
          const recorded = yield* writeIo(store, o.epoch, `${s.node} was sent but not recorded`,
            delivery.recordSent(s.node, { digest: c.digest, sequence: c.declaration.sequence, builds: c.builds, busUsersDigest: c.busUsersDigest })).pipe(
            Effect.timeout(Duration.seconds(10)), Effect.uninterruptible,
            Effect.catchTag("PushUnreachable", (e) => Effect.succeed({ error: e.said })),
            Effect.catchTag("TimeoutError", (e) => Effect.succeed({ error: `${s.node} was sent but not recorded: ${String(e)}` })),
          )
          if (recorded !== undefined) return { ok: false, error: recorded.error }
          told.push({ node: s.node, sequence: c.declaration.sequence, digest: c.digest, resources: c.declaration.resources.length })
          yield* o.say(`sent ${s.node} ${c.declaration.resources.length} resource(s)`)
          return { ok: true }
        })

      let step = startDelivery(holder, sending.map((s) => s.node))
      while (step.next !== undefined) {
        const act = step.next
        const outcome: ActOutcome = act.act === "declare"
          ? yield* declare(byNode.get(act.node)!)
          : yield* Effect.tryPromise(() => issueGrants(nc, o.names, sending)).pipe(
            Effect.catch((e) => Effect.succeed<ActOutcome>({ ok: false, error: `the grants could not be issued: ${errorText(e)}` })),
          )
        if (act.act === "grant" && outcome.ok) yield* o.say(`  issued ${sending.reduce((n, s) => n + s.composition.memberships.length, 0)} membership(s)`)
        step = afterAct(step, outcome)
      }
      yield* release.pipe(Effect.ignore)
      yield* o.say(`\n${told.length} node(s) told`)
      const unheld = new Map(sending.map((s) => [s.node, s.composition.unheld]))
      for (const line of unheldReport(request.kind === "named", asked, unheld)) yield* o.say(line)
      return { told, refusals, error: step.delivery.error ?? couldNotBeResolved(refusals, told.length), held } satisfies PushResult
    }).pipe(Effect.ensuring(release.pipe(Effect.ignore)))
  })

/**
 * The machine holding the bus, and whether what it reports running lacks the user list composed now,
 * with what the plans hold (seed 004's listBehind): the gate's `holder-list` question, answered as a
 * push would judge it.
 */
export const holderList = Effect.gen(function*() {
  const delivery = yield* DeliveryStore
  const records = yield* viaStore("the mesh's records cannot be read", delivery.records)
  if (records === undefined) return { holder: null, behind: false }
  const holderName = indexRecords(records).holder
  if (holderName === undefined) return { holder: null, behind: false }
  const plans = yield* viaStore("the release plans cannot be read", delivery.plansHolding)
  const sent = yield* viaStore("what was sent cannot be read", delivery.sentAll)
  const reports = yield* viaStore("the machines' reports cannot be read", delivery.reportsAll)
  const view = pushView(records, plans, [holderName], { kind: "sweep" }, detectedOf(reports))
  const { behind } = holderBehindInPush(view.indexOf(holderName), [], runningOf(reports.get(holderName), sent.get(holderName)), undefined)
  return { holder: holderName, behind }
}).pipe(Effect.withSpan("Push.holderList"))
