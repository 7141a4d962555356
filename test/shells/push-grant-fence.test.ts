// A push's grants under the lease (issue 26): the store's fence is passed under the lease's epoch
// before any membership goes out, and each carries that epoch; under an epoch older than the store's
// newest nothing is granted and the refusal is the outcome. A person's push passes no fence and
// carries no epoch. Over the in-memory fence (FencedTransaction.layerTest), with no server.
import { Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"
import type { ActOutcome } from "@mesh-core/core/delivery/order"
import { grantUnder } from "../../shells/src/delivery/answers.ts"
import { Fenced, FencedTransaction } from "../../shells/src/lease/fence.ts"

/** A grant under `epoch` with the store having seen `seen`: what the store's fence saw, and the epochs the grants carried. */
const granted = (epoch: number | undefined, seen: number) => {
  const fenced: Array<number> = []
  const issued: Array<number | undefined> = []
  const issue = (carried: number | undefined) =>
    Effect.sync((): ActOutcome => {
      issued.push(carried)
      return { ok: true }
    })
  const exit = Effect.runSyncExit(
    Effect.gen(function* () {
      return yield* grantUnder(yield* FencedTransaction, epoch, issue)
    }).pipe(Effect.provide(FencedTransaction.layerTest(fenced, seen))),
  )
  return { exit, fenced, issued }
}

describe("a push's grants under the lease", () => {
  it("under the store's newest epoch or a newer one: the fence passed under it, then the grants issued carrying it", () => {
    for (const [epoch, seen] of [
      [7, 7],
      [8, 7],
    ] as const) {
      const r = granted(epoch, seen)
      expect(Exit.isSuccess(r.exit) && r.exit.value).toEqual({ ok: true })
      expect(r.fenced).toEqual([epoch])
      expect(r.issued).toEqual([epoch])
    }
  })

  it("under an epoch older than the store's newest: refused (Fenced, the epochs said), and no grant issued", () => {
    const r = granted(6, 7)
    expect(r.issued).toEqual([])
    expect(r.fenced).toEqual([])
    const failure = Exit.isFailure(r.exit) ? r.exit.cause.reasons.find((x) => x._tag === "Fail")?.error : undefined
    expect(failure).toBeInstanceOf(Fenced)
    expect(failure).toMatchObject({ acting: 6, newest: 7 })
  })

  it("a person's push (no epoch): no fence passed, the grants issued carrying none", () => {
    const r = granted(undefined, 7)
    expect(Exit.isSuccess(r.exit)).toBe(true)
    expect(r.fenced).toEqual([])
    expect(r.issued).toEqual([undefined])
  })
})
