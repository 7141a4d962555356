// What the followers offer the gate, kept until the runner takes it (shells/src/followers/wakes.ts):
// each distinct wake once, the first heard of it kept (of statements saying the same, the first says
// since when: core/src/gate/plan/wake.ts), all taken at once, and a wake-up past due said as `due`.
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { GateWakes } from "../../shells/src/followers/wakes.ts"

const withWakes = <A>(f: (w: GateWakes["Service"]) => Effect.Effect<A>) =>
  Effect.runPromise(Effect.flatMap(GateWakes, f).pipe(Effect.provide(GateWakes.layer)))

describe("the wakes heard between two passes", () => {
  it("each once, the first heard of each kept; taken all at once, none left behind", async () => {
    const [first, second] = await withWakes((w) =>
      Effect.gen(function* () {
        yield* w.offer({ kind: "machine", machine: "hq-1", by: "statement", same: 5 })
        yield* w.offer({ kind: "machine", machine: "hq-1", by: "statement", same: 9 })
        yield* w.offer({ kind: "machine", machine: "hq-1", by: "statement" })
        yield* w.offer({ kind: "machine", machine: "hq-1" })
        yield* w.offer({ kind: "machine", machine: "hq-1" })
        yield* w.offer(undefined)
        const first = yield* w.next(undefined)
        yield* w.offer({ kind: "conditions" })
        return [first, yield* w.next(undefined)] as const
      }),
    )
    expect(first).toEqual([
      { kind: "machine", machine: "hq-1", by: "statement", same: 5 },
      { kind: "machine", machine: "hq-1", by: "statement" },
      { kind: "machine", machine: "hq-1" },
    ])
    expect(second).toEqual([{ kind: "conditions" }])
  })

  it("a wake-up already due is said as `due`, beside what was heard", async () => {
    const [alone, beside] = await withWakes((w) =>
      Effect.gen(function* () {
        const alone = yield* w.next(0)
        yield* w.offer({ kind: "plan", plan: "p0" })
        return [alone, yield* w.next(0)] as const
      }),
    )
    expect(alone).toEqual([{ kind: "due" }])
    expect(beside).toEqual([{ kind: "plan", plan: "p0" }, { kind: "due" }])
  })
})
