// `push`: sends machines everything they should be. The decisions are the core's (which machines,
// in which order, what each is, what a grant refusal holds back); this holds the machines, takes
// their sequences, reads the records, and performs each act the core's delivery plan asks for.
import { behindSelection, unheldReport, waitVerdict } from "@mesh-core/core/delivery/behind"
import { composeAllOrNothing, composeEach, couldNotBeResolved, indexRecords, type Ready } from "@mesh-core/core/delivery/compose"
import { type ActOutcome, afterAct, brokerFirst, holderBehind, startDelivery } from "@mesh-core/core/delivery/order"
import { Clock, Data, Duration, Effect } from "effect"
import { Bus } from "../bus/nats.ts"
import { assertDeliveryStreams, type DeliveryNames, issueGrants, publishDeclaration } from "./wire.ts"
import { establish } from "../identity.ts"
import { Store } from "../store/postgres.ts"
import { allot, holdNodes, loadRecords, nodeNames, recordSent, reportOfNode, reportsAll, sentAll } from "../store/delivery.ts"

/** A push that cannot start from what it was asked (no such machine, no records): bad input. */
export class PushRefused extends Data.TaggedError("PushRefused")<{ readonly said: string }> {
  override get message(): string {
    return this.said
  }
}

export class PushUnreachable extends Data.TaggedError("PushUnreachable")<{ readonly said: string }> {
  override get message(): string {
    return this.said
  }
}

const reasonOf = (e: unknown): string => (e instanceof Error ? e.message : String(e))
const io = <A>(what: string, f: () => Promise<A>) =>
  Effect.tryPromise({ try: f, catch: (e) => new PushUnreachable({ said: `${what}: ${reasonOf(e)}` }) })

export interface PushOptions {
  /** Exactly these machines (a release, a rollback): neither a named push nor a sweep. */
  readonly machines?: ReadonlyArray<string>
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
}

export const push = (o: PushOptions) =>
  Effect.gen(function*() {
    const { sql } = yield* Store
    const { nc, jsm } = yield* Bus
    const records = yield* io("the mesh's records cannot be read", () => loadRecords(sql))
    if (records === undefined) return yield* Effect.fail(new PushRefused({ said: "the mesh has no records yet: give them with mesh-controller mesh apply FILE" }))
    const nodes = yield* io("the machines cannot be read", () => nodeNames(sql))
    if (o.node !== undefined && !nodes.includes(o.node)) {
      return yield* Effect.fail(new PushRefused({ said: `no machine named ${o.node} is in the mesh's records` }))
    }
    let asked: ReadonlyArray<string> = o.machines ?? (o.node === undefined ? nodes : [o.node])
    const sentBefore = yield* io("what was sent cannot be read", () => sentAll(sql))
    if (o.behind) {
      const reports = yield* io("the machines' reports cannot be read", () => reportsAll(sql))
      const selection = behindSelection(indexRecords(records), nodes, reports, sentBefore, yield* Clock.currentTimeMillis)
      for (const line of selection.said) yield* o.say(line)
      if (selection.asked.length === 0) return { told: [], refusals: [], error: undefined } satisfies PushResult
      asked = selection.asked
    }
    // The machine holding the bus first (novox/hq issue 249): among those asked it goes first; not
    // among them and behind, it is added.
    const index = indexRecords(records)
    const holderSent = index.holder === undefined ? undefined : sentBefore.get(index.holder)?.busUsersDigest
    const { holder, behind } = holderBehind(index, asked, holderSent)
    asked = brokerFirst(asked, holder, behind)

    const release = yield* io("the machines cannot be held", () => holdNodes(sql, asked))
    return yield* Effect.gen(function*() {
      // Numbered before composing (novox/hq issue 204): what was composed earlier is numbered lower
      // whatever order the sends happen in. The records are read after the numbers are taken.
      const sequences = new Map<string, number | { error: string }>()
      for (const n of asked) {
        sequences.set(n, yield* Effect.result(io(`no sequence for ${n}`, () => allot(sql, n))).pipe(
          Effect.map((r) => (r._tag === "Success" ? r.success : { error: r.failure.said })),
        ))
      }
      const composedFrom = yield* io("the mesh's records cannot be read", () => loadRecords(sql))
      const composedIndex = indexRecords(composedFrom!)
      if (o.allOrNothing === true) {
        const together = composeAllOrNothing(composedIndex, asked, sequences)
        if (together.refused !== undefined) return { told: [], refusals: [], error: together.refused } satisfies PushResult
      }
      const { sending, refusals, said } = composeEach(composedIndex, asked, sequences)
      for (const line of said) yield* o.say(line)
      const signer = yield* io("the controller's signing key cannot be established", () => establish(sql))
      yield* io("the delivery streams cannot be asserted", () => assertDeliveryStreams(jsm, o.names))

      const byNode = new Map(sending.map((s) => [s.node, s]))
      const told: Array<PushResult["told"][number]> = []
      const declare = (s: Ready): Effect.Effect<ActOutcome> =>
        Effect.gen(function*() {
          const c = s.composition
          const sentOut = yield* Effect.result(io(`${s.node} was not sent`, () =>
            publishDeclaration(nc, o.names, s.node, { body: c.body, signature: signer.sign(c.body), key: signer.fingerprint })))
          if (sentOut._tag === "Failure") return { ok: false, error: sentOut.failure.said }
          // After it is away, not before, and on an act the caller cannot cut short (issue 204):
          // what was sent was sent, and the record of it must not depend on the sender living on.
          const recorded = yield* Effect.result(io(`${s.node} was sent but not recorded`, () =>
            recordSent(sql, s.node, { digest: c.digest, sequence: c.declaration.sequence, builds: c.builds, busUsersDigest: c.busUsersDigest })).pipe(
            Effect.timeout(Duration.seconds(10)), Effect.uninterruptible,
          ))
          if (recorded._tag === "Failure") return { ok: false, error: String(recorded.failure) }
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
            Effect.catch((e) => Effect.succeed<ActOutcome>({ ok: false, error: `the grants could not be issued: ${reasonOf(e)}` })),
          )
        if (act.act === "grant" && outcome.ok) yield* o.say(`  issued ${sending.reduce((n, s) => n + s.composition.memberships.length, 0)} membership(s)`)
        step = afterAct(step, outcome)
      }
      yield* Effect.tryPromise(release).pipe(Effect.ignore)
      yield* o.say(`\n${told.length} node(s) told`)
      const unheld = new Map(sending.map((s) => [s.node, s.composition.unheld]))
      for (const line of unheldReport(o.node !== undefined, asked, unheld)) yield* o.say(line)

      const error = step.delivery.error ?? couldNotBeResolved(refusals, told.length)
      if (error === undefined && o.node !== undefined && o.wait > 0) {
        const digest = told.find((t) => t.node === o.node)?.digest ?? ""
        const deadline = (yield* Clock.currentTimeMillis) + o.wait
        for (;;) {
          const report = yield* io("the machine's report cannot be read", () => reportOfNode(sql, o.node!))
          const verdict = waitVerdict(o.node, digest, report, yield* Clock.currentTimeMillis, deadline, o.wait)
          if (verdict.done) {
            if (!verdict.ok) return { told, refusals, error: verdict.error } satisfies PushResult
            if (verdict.said !== "") yield* o.say(verdict.said)
            break
          }
          yield* Effect.sleep(Duration.millis(250))
        }
      }
      return { told, refusals, error } satisfies PushResult
    }).pipe(Effect.ensuring(Effect.tryPromise(release).pipe(Effect.ignore)))
  })
