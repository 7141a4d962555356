// The `verdict` event (docs/events.md): every verdict the store kept for this controller is said on
// the bus once, by this controller, `decided: "gate"` for a judging's and `decided: "operator"` with
// the person for a promote or an abort; a verdict another controller kept is not said here.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { VerdictEventBody } from "@mesh-core/core/gate/plan/events"
import * as Schema from "effect/Schema"
import { machines, ok, run, type Step, verb } from "./gate-world.ts"

const verdictsSaid = (r: ReturnType<typeof run>) =>
  r.acts.flatMap((a) => (a.q.q === "publish" && a.q.event === "verdict" ? [{ step: a.step, body: a.q.body }] : []))

const tick = fc.record({
  kind: fc.constant("tick" as const),
  reaches: fc.subarray(machines),
  refuse: fc.subarray(machines, { maxLength: 1 }),
})
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 8, arbitrary: tick },
  { weight: 1, arbitrary: fc.constantFrom<Step>(verb("promote", "ana", "looks fine"), verb("abort", "bo", "no")) },
)

describe("the verdict event", () => {
  it("is said once for each verdict this controller kept, with the kept verdict's build and word, right after it was kept; never for another's", () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 30 }), fc.boolean(), (steps, another) => {
        const r = run(steps, undefined, {
          answer: (q) => (another && q.q === "record-verdict" ? { ok: true, mine: false } : undefined),
        })
        const said = verdictsSaid(r)
        if (another) {
          expect(said).toEqual([])
          return
        }
        // Each kept verdict: one event, in the step it was kept, saying the same build and word.
        expect(said.map((s) => [s.body["build"], s.body["verdict"]])).toEqual(
          r.verdicts.map((v) => [v.build, v.verdict]),
        )
        const keptAt = r.acts.filter((a) => a.q.q === "record-verdict").map((a) => a.step)
        expect(said.map((s) => s.step)).toEqual(keptAt)
        for (const s of said) expect(Schema.decodeUnknownSync(VerdictEventBody)(s.body)).toBeDefined()
      }),
      { numRuns: 300 },
    )
  })

  it("names who decided: the gate for a judging, the person for a promote or an abort", () => {
    const judged = run([ok, { kind: "tick", reaches: machines, refuse: ["hq-1"] }])
    expect(verdictsSaid(judged).map((s) => s.body)).toEqual([
      expect.objectContaining({ verdict: "failed", decided: "gate", plan: "letta-205", machines: ["hq-1"] }),
    ])
    expect(verdictsSaid(judged)[0]!.body).not.toHaveProperty("by")
    const promoted = run([ok, verb("promote", "ana", "looks fine")])
    expect(verdictsSaid(promoted).map((s) => s.body)).toEqual([
      expect.objectContaining({ verdict: "passed", decided: "operator", by: "ana" }),
    ])
    const aborted = run([ok, verb("abort", "bo", "no")])
    expect(verdictsSaid(aborted).map((s) => s.body)).toEqual([
      expect.objectContaining({ verdict: "failed", decided: "operator", by: "bo" }),
    ])
  })

  it("a bus that cannot be told is said, and the verdict stands", () => {
    const r = run([ok, { kind: "tick", reaches: machines, refuse: ["hq-1"] }], undefined, {
      answer: (q) => (q.q === "publish" ? { ok: false, why: "nats: timeout" } : undefined),
    })
    expect(r.said).toContain("[gate] letta-205: its verdict (failed) could NOT be said on the bus: nats: timeout")
    expect(r.verdicts.map((v) => v.verdict)).toEqual(["failed"])
  })
})
