// The gate's turn as a verb waits for it (issue 27): while a judging holds it, a verb waits at most
// its bound and runs nothing; once free, the verb runs in it; a wait that ran out takes no permit, so
// the turn is still one and the next comes as soon as the judging lets go.
import { Deferred, Effect, Fiber, Option } from "effect"
import { describe, expect, it } from "vitest"
import { GateTurn } from "../../shells/src/gate/turn.ts"

const withTurn = <A, E>(f: (turn: GateTurn["Service"]) => Effect.Effect<A, E>) =>
  Effect.runPromise(Effect.flatMap(GateTurn, f).pipe(Effect.provide(GateTurn.layer)))

describe("the gate's turn, waited for within a bound", () => {
  it("held by a judging: nothing run, none; free: run, some; and never two in it at once", async () => {
    const out = await withTurn((turn) =>
      Effect.gen(function* () {
        const letGo = yield* Deferred.make<void>()
        const holding = yield* Deferred.make<void>()
        const ran: Array<string> = []
        const judging = yield* Effect.forkChild(
          turn.one(
            Effect.andThen(
              Effect.sync(() => ran.push("judging")),
              Effect.andThen(Deferred.succeed(holding, undefined), Deferred.await(letGo)),
            ),
          ),
        )
        // The judging holds the turn.
        yield* Deferred.await(holding)
        const waited = yield* turn.within(
          100,
          Effect.sync(() => ran.push("verb while held")),
        )
        yield* Deferred.succeed(letGo, undefined)
        yield* Fiber.join(judging)
        const after = yield* turn.within(
          100,
          Effect.sync(() => ran.push("verb after")),
        )
        // The turn is one still: a judging and a verb never overlap.
        let inside = 0
        let most = 0
        const enter = Effect.sync(() => {
          inside += 1
          most = Math.max(most, inside)
        })
        const leave = Effect.sync(() => void (inside -= 1))
        yield* Effect.all(
          [
            turn.one(Effect.andThen(enter, Effect.andThen(Effect.sleep("10 millis"), leave))),
            turn.within(1_000, Effect.andThen(enter, Effect.andThen(Effect.sleep("10 millis"), leave))),
            turn.within(1_000, Effect.andThen(enter, Effect.andThen(Effect.sleep("10 millis"), leave))),
          ],
          { concurrency: "unbounded" },
        )
        return { ran, waited, after, most }
      }),
    )
    expect(Option.isNone(out.waited)).toBe(true)
    expect(Option.isSome(out.after)).toBe(true)
    expect(out.ran).toEqual(["judging", "verb after"])
    expect(out.most).toBe(1)
  })
})
