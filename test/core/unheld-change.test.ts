// serve says each change to a machine's unmet seat dependencies once (seeds 002 and 004, novox/hq
// ADR 0207): over a run of sends, a machine's lines are said exactly when its set of unmet
// dependencies differs from the one last said (none before any), in full, or as none left.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { unheldChange } from "@mesh-core/core/delivery/behind"

const seat = fc.constantFrom(
  "letta needs the postgres seat",
  "grafana needs the prometheus seat",
  "n8n needs the redis seat",
)

describe("unheldChange", () => {
  it("says a machine's unmet seat dependencies exactly when they changed since last said, whatever their order", () => {
    fc.assert(
      fc.property(fc.array(fc.uniqueArray(seat, { maxLength: 3 }), { maxLength: 12 }), (sends) => {
        let said: ReadonlyArray<string> | undefined
        let model = new Set<string>()
        for (const now of sends) {
          const lines = unheldChange("hq-3", said, now)
          const changed = now.length !== model.size || now.some((l) => !model.has(l))
          expect(lines.length > 0).toBe(changed)
          if (changed && now.length === 0)
            expect(lines).toEqual(["hq-3 has no unmet seat dependency now (novox/hq ADR 0207)"])
          if (changed && now.length > 0) {
            expect(lines[0]).toBe(`hq-3 has ${now.length} unmet seat dependenc(ies) (novox/hq ADR 0207):`)
            expect(new Set(lines.slice(1).map((l) => l.trim()))).toEqual(new Set(now))
          }
          said = now
          model = new Set(now)
        }
      }),
      { numRuns: 300 },
    )
  })
})
