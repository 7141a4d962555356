// Readiness is real (issue 26): a holder is ready only once every follower of its term has caught up
// with the bus; until then /readyz names the followers still catching up, and its lease record says
// not ready (the gate's controller check, seed 003-9).
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { caughtUpWith, readiness } from "@mesh-core/core/controller/readiness"

const loops = ["standings", "reports", "health"]
const answered = { at: 1_000 }

describe("a holder catching up", () => {
  it("waits for exactly the expected followers not yet caught up, in their order", () => {
    fc.assert(
      fc.property(fc.subarray(loops), fc.subarray(["standings", "reports", "health", "gate"]), (expected, caught) => {
        const waiting = caughtUpWith(expected, new Set(caught))
        expect(waiting).toEqual(expected.filter((l) => !caught.includes(l)))
      }),
    )
  })

  it("is not ready while any follower catches up, and says which; ready once none does", () => {
    fc.assert(
      fc.property(fc.subarray(loops), (catchingUp) => {
        const v = readiness({
          lease: { held: true, catchingUp },
          store: answered,
          bus: answered,
          now: 1_000,
          within: 5_000,
        })
        expect(v.ok).toBe(catchingUp.length === 0)
        expect(v.reasons).toEqual(
          catchingUp.length === 0
            ? []
            : [
                `this controller holds the controller lease and has not caught up with the bus yet: ${catchingUp.join(", ")}`,
              ],
        )
      }),
    )
  })

  it("a candidate is not ready for the lease alone, whatever it would catch up", () => {
    const v = readiness({
      lease: { held: false, catchingUp: ["reports"] },
      store: answered,
      bus: answered,
      now: 1_000,
      within: 5_000,
    })
    expect(v.reasons).toEqual(["this controller does not hold the controller lease"])
  })
})
