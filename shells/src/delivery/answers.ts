// The delivery area's answers (issue 25): each question a push asks (core/src/delivery/push.ts),
// answered over the store, the bus and the controller's signing key. What to send, in which order,
// and what an outcome means are the program's; this reads, holds, numbers, signs, sends, records.
import type { PushQuestions } from "@mesh-core/core/delivery/questions"
import { Clock, Data, Duration, Effect } from "effect"
import { Bus } from "../bus/nats.ts"
import { establish, type Signer } from "../identity.ts"
import { Fenced, fenceFirst, writeError } from "../lease/fence.ts"
import type { Answers } from "../program/drive.ts"
import { allot, holdNodes, loadRecords, nodeNames, plansHolding, recordSent, reportOfNode, reportsAll, sentAll } from "../store/delivery.ts"
import { type Sql, Store, type Tx } from "../store/postgres.ts"
import { assertDeliveryStreams, type DeliveryNames, issueGrants, publishDeclaration } from "./wire.ts"

export class PushUnreachable extends Data.TaggedError("PushUnreachable")<{ readonly said: string }> {
  override get message(): string {
    return this.said
  }
}

const reasonOf = (e: unknown): string => (e instanceof Error ? e.message : String(e))
const io = <A>(what: string, f: () => Promise<A>) =>
  Effect.tryPromise({ try: f, catch: (e) => new PushUnreachable({ said: `${what}: ${reasonOf(e)}` }) })

/**
 * A write of the push's own rows (a sequence allotted, a send recorded). Sent by the gate under the
 * lease (`epoch` set), it is one transaction whose first statement is the store's fence (issue 13):
 * a holder paused past its lease between the gate's fence check and this write is refused here, by
 * the store, and the push stops with `Fenced`. A person's push carries no epoch and writes as it is.
 */
const writeIo = <A>(store: { readonly sql: Sql; readonly url: string }, epoch: number | undefined, what: string, f: (sql: Sql | Tx) => Promise<A>): Effect.Effect<A, Fenced | PushUnreachable> =>
  epoch === undefined
    ? io(what, () => f(store.sql))
    : Effect.tryPromise({
      try: () => store.sql.begin(async (tx) => {
        await fenceFirst(tx, epoch)
        return { value: await f(tx) }
      }),
      catch: (e): Fenced | PushUnreachable => {
        const failed = writeError(store.url)(e)
        return failed instanceof Fenced ? failed : new PushUnreachable({ said: `${what}: ${reasonOf(e)}` })
      },
    }).pipe(Effect.map((r) => r.value))

const done = { ok: true } as const

export interface PushAnswers {
  readonly answers: Answers<PushQuestions, Fenced | PushUnreachable, never>
  /** Lets go of every machine this push still holds: run however the push ends. */
  readonly releaseAll: Effect.Effect<void>
}

/**
 * The answers of one push. `epoch`: the controller lease's, when the gate sends under the lease: each
 * declaration carries it and each write is fenced (issue 13); a person's push carries none.
 */
export const pushAnswers = Effect.fn("Delivery.pushAnswers")(function*(names: DeliveryNames, epoch: number | undefined) {
  const store = yield* Store
  const { sql } = store
  const { nc, jsm } = yield* Bus
  const holds: Array<() => Promise<void>> = []
  let signer: Signer | undefined
  const releaseAll = Effect.suspend(() => Effect.forEach(holds.splice(0), (release) => Effect.tryPromise(release).pipe(Effect.ignore), { discard: true }))
  const answers: PushAnswers["answers"] = {
    "mesh-records": () => io("the mesh's records cannot be read", () => loadRecords(sql)).pipe(Effect.map((r) => r ?? null)),
    machines: () => io("the machines cannot be read", () => nodeNames(sql)),
    "plans-holding": () => io("the release plans cannot be read", () => plansHolding(sql)),
    sent: () =>
      io("what was sent cannot be read", () => sentAll(sql)).pipe(
        Effect.map((m) => [...m].map(([node, s]) => ({ node, digest: s.digest, sequence: s.sequence, ...(s.busUsersDigest === undefined ? {} : { busUsersDigest: s.busUsersDigest }) }))),
      ),
    reports: () => io("the machines' reports cannot be read", () => reportsAll(sql)).pipe(Effect.map((m) => [...m.values()])),
    "report-of": (q) => io("the machine's report cannot be read", () => reportOfNode(sql, q.node)).pipe(Effect.map((r) => r ?? null)),
    now: () => Clock.currentTimeMillis,
    sleep: (q) => Effect.sleep(Duration.millis(q.ms)).pipe(Effect.as(done)),
    hold: (q) =>
      io("the machines cannot be held", () => holdNodes(sql, q.machines)).pipe(Effect.map((release) => {
        holds.push(release)
        return done
      })),
    allot: (q) =>
      writeIo(store, epoch, `no sequence for ${q.node}`, (tx) => allot(tx, q.node)).pipe(
        Effect.map((sequence) => ({ sequence })),
        Effect.catchTag("PushUnreachable", (e) => Effect.succeed({ error: e.said })),
      ),
    prepare: () =>
      Effect.gen(function*() {
        signer = yield* io("the controller's signing key cannot be established", () => establish(sql))
        yield* io("the delivery streams cannot be asserted", () => assertDeliveryStreams(jsm, names))
        return done
      }),
    declare: (q) =>
      Effect.gen(function*() {
        const key = signer ?? (signer = yield* io("the controller's signing key cannot be established", () => establish(sql)))
        const sentOut = yield* Effect.result(io(`${q.node} was not sent`, () =>
          publishDeclaration(nc, names, q.node, { body: q.body, signature: key.sign(q.body), key: key.fingerprint }, epoch)))
        if (sentOut._tag === "Failure") return { ok: false as const, error: sentOut.failure.said }
        // After it is away, not before, and on an act the caller cannot cut short (issue 204):
        // what was sent was sent, and the record of it must not depend on the sender living on.
        const recorded = yield* writeIo(store, epoch, `${q.node} was sent but not recorded`, (tx) =>
          recordSent(tx, q.node, { digest: q.digest, sequence: q.sequence, builds: { ...q.builds }, busUsersDigest: q.busUsersDigest })).pipe(
          Effect.timeout(Duration.seconds(10)), Effect.uninterruptible,
          Effect.catchTag("PushUnreachable", (e) => Effect.succeed({ error: e.said })),
          Effect.catchTag("TimeoutError", (e) => Effect.succeed({ error: `${q.node} was sent but not recorded: ${String(e)}` })),
        )
        if (recorded !== undefined) return { ok: false as const, error: recorded.error }
        return done
      }),
    grant: (q) =>
      Effect.tryPromise(() => issueGrants(nc, names, q.memberships)).pipe(
        Effect.catch((e) => Effect.succeed({ ok: false as const, error: `the grants could not be issued: ${reasonOf(e)}` })),
      ),
    release: () => releaseAll.pipe(Effect.as(done)),
  }
  return { answers, releaseAll } satisfies PushAnswers
})
