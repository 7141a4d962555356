// What each input the controller keeps wakes in the gate (core/src/controller/wakes.ts): a machine's
// report or health statement wakes the plans of that machine, named by the message itself; providers'
// words every plan judging; a verb its plan; a message that cannot be read wakes nothing.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { wakeOf } from "@mesh-core/core/controller/wakes"

const heard = (subject: string, body: string) => ({ subject, event: subject, body, seq: 1 })

describe("the wake of an input", () => {
  it("a report or a statement wakes its machine's plans, whatever subject it came on", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("hq-1", "hq-2", "edge-7"),
        fc.constantFrom("mesh.report.x", "p.mesh.health.y"),
        (m, subject) => {
          const report = JSON.stringify({
            node: m,
            digest: "d",
            sequence: 1,
            outcome: "applied",
            at: "2026-12-01T10:00:00Z",
          })
          expect(wakeOf({ fact: "report", message: heard(subject, report) })).toEqual({ kind: "machine", machine: m })
          const statement = JSON.stringify({ machine: m, at: "2026-12-01T10:00:00Z", resources: [] })
          expect(wakeOf({ fact: "statement", message: heard(subject, statement) })).toEqual({
            kind: "machine",
            machine: m,
          })
        },
      ),
    )
  })

  it("an unreadable message wakes nothing; words wake the judging plans; a verb its plan; a tick nothing", () => {
    expect(wakeOf({ fact: "report", message: heard("mesh.report.hq-1", "{not json") })).toBeUndefined()
    expect(wakeOf({ fact: "statement", message: heard("mesh.health.hq-1", "{}") })).toBeUndefined()
    expect(wakeOf({ fact: "words", messages: [] })).toEqual({ kind: "conditions" })
    expect(wakeOf({ fact: "verb", command: { verb: "resume", plan: "letta-205", by: "ana", at: 0, why: "" } })).toEqual(
      { kind: "plan", plan: "letta-205" },
    )
    expect(wakeOf({ fact: "tick" })).toBeUndefined()
  })
})
