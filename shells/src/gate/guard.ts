// What guards the gate's acts (issue 13): under `serve`, every store write is fenced under the lease's
// epoch and every send or event is made only while the lease is held; the operator's `release`
// command, like `push`, acts as a person's command outside the lease (docs/lease.md). The gate's
// question handlers take this service, so the tick, `release` and the verbs answer the same way.
//
// The verbs' responder answers a candidate too (refusing, naming the holder), so it is built outside
// the lease; the lease, once held, fills the guard's slot (`holdUnder`) and empties it when it is
// given back or lost: an act asked while the slot is empty is refused, never made unfenced.
import { Context, Effect, Layer, Option, Ref, type Scope } from "effect"
import { FencedTransaction } from "../lease/fence.ts"
import { actUnder, fencedActUnder } from "../lease/serve.ts"
import { type ControllerLease, NotHolding } from "../lease/service.ts"
import type { StoreUnreadable } from "../store/postgres.ts"

interface Guard {
  /** A store write, fenced under the epoch. */
  readonly write: <A, E>(write: Effect.Effect<A, E>) => Effect.Effect<A, E | StoreUnreadable | NotHolding>
  /** A send or an event, made only while the lease is held and the store's fence passes; `epoch` is what it carries (undefined outside the lease). */
  readonly act: <A, E>(
    act: (epoch: number | undefined) => Effect.Effect<A, E>,
  ) => Effect.Effect<A, E | StoreUnreadable | NotHolding>
}

const unfencedGuard: Guard = { write: (w) => w, act: (a) => a(undefined) }

export class ActGuard extends Context.Service<
  ActGuard,
  Guard & {
    /** Under the lease: fills the slot for the scope (the lease's life), empties it on close. */
    readonly hold: (guard: Guard) => Effect.Effect<void, never, Scope.Scope>
  }
>()("mesh-core/ActGuard") {
  /** serve's: acts only while `holdUnder` has filled the slot. */
  static readonly layer = Layer.effect(
    ActGuard,
    Effect.gen(function* () {
      const slot = yield* Ref.make(Option.none<Guard>())
      const current = Effect.flatMap(
        Ref.get(slot),
        Option.match({
          onNone: () => Effect.fail(new NotHolding({ self: "this controller" })),
          onSome: (g) => Effect.succeed(g),
        }),
      )
      return ActGuard.of({
        write: (w) => Effect.flatMap(current, (g) => g.write(w)),
        act: (a) => Effect.flatMap(current, (g) => g.act(a)),
        hold: (g) => Effect.acquireRelease(Ref.set(slot, Option.some(g)), () => Ref.set(slot, Option.none())),
      })
    }),
  )

  /** The operator's commands (`release`) and the shell tests: acts as asked, unfenced, as `push` does. */
  static readonly layerUnfenced = Layer.succeed(ActGuard, ActGuard.of({ ...unfencedGuard, hold: () => Effect.void }))

  /** Under `lease` (its term's scope): the guard's slot holds the fenced guard until the scope closes. */
  static readonly holdUnder = (lease: ControllerLease["Service"]) =>
    Effect.gen(function* () {
      const transactions = yield* FencedTransaction
      const guard = yield* ActGuard
      yield* guard.hold({
        write: (w) => fencedActUnder(lease, transactions, w),
        // The store's fence is passed first, in a transaction of its own, so a holder paused past its
        // lease is refused by the store before it sends (a send is not rolled back with a transaction:
        // a push's sequences and records must stay as they were sent).
        act: (a) => actUnder(lease, (epoch) => Effect.andThen(transactions.within(epoch, Effect.void), a(epoch))),
      })
    })
}
