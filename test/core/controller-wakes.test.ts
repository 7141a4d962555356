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
            by: "statement",
          })
        },
      ),
    )
  })

  it("a statement is heard as saying the same only when every resource's state and reason are what the one kept before said; one older than it wakes nothing", () => {
    const resource = fc.record(
      {
        resource: fc.constantFrom("api", "worker"),
        module: fc.constantFrom("letta", "grafana"),
        state: fc.constantFrom("healthy", "starting", "unhealthy"),
        reason: fc.constantFrom("crash", "oom"),
      },
      { requiredKeys: ["resource", "module", "state"] },
    )
    const resources = fc.array(resource, { maxLength: 3 })
    fc.assert(
      fc.property(resources, resources, fc.integer({ min: -5, max: 5 }), (before, now, ahead) => {
        const at = Date.parse("2026-12-01T10:00:00Z")
        const body = JSON.stringify({ machine: "hq-1", at: "2026-12-01T10:00:00Z", resources: now })
        const kept = { statement: { machine: "hq-1", at: at - ahead * 1_000, resources: before }, streaks: {} }
        const w = wakeOf({ fact: "statement", message: heard("mesh.health.hq-1", body) }, [
          { q: { q: "write-statement" }, a: { ok: true } },
          { q: { q: "kept-statement" }, a: kept },
        ])
        // The model: a resource is what it is by its name, module, state and reason; the list by its order.
        const same =
          before.length === now.length && before.every((r, i) => JSON.stringify(r) === JSON.stringify(now[i]))
        if (ahead <= 0) expect(w).toBeUndefined()
        else
          expect(w).toEqual({
            kind: "machine",
            machine: "hq-1",
            by: "statement",
            ...(same ? { same: at - ahead * 1_000 } : {}),
          })
      }),
    )
    // The same resources, the store's answer naming their fields in another order: the same.
    const at = Date.parse("2026-12-01T10:00:00Z")
    const said = (resources: unknown) => JSON.stringify({ machine: "hq-1", at: "2026-12-01T10:00:00Z", resources })
    const keptWith = (resources: unknown) => [
      { q: { q: "kept-statement" }, a: { statement: { machine: "hq-1", at: at - 1_000, resources }, streaks: {} } },
    ]
    const api = { resource: "api", module: "letta", state: "healthy" }
    expect(
      wakeOf(
        { fact: "statement", message: heard("s", said([api])) },
        keptWith([{ state: "healthy", module: "letta", resource: "api" }]),
      ),
    ).toEqual({
      kind: "machine",
      machine: "hq-1",
      by: "statement",
      same: at - 1_000,
    })
    expect(wakeOf({ fact: "statement", message: heard("s", said([])) }, keptWith([]))).toEqual({
      kind: "machine",
      machine: "hq-1",
      by: "statement",
      same: at - 1_000,
    })
    expect(
      wakeOf({ fact: "statement", message: heard("s", said([api])) }, keptWith([{ ...api, state: "starting" }])),
    ).toEqual({
      kind: "machine",
      machine: "hq-1",
      by: "statement",
    })
    // Nothing kept before it, or an answer not of a kept statement's shape: heard as a change.
    const body = JSON.stringify({ machine: "hq-1", at: "2026-12-01T10:00:00Z", resources: [] })
    for (const a of [null, { statement: { machine: "hq-1" } }, "kept"])
      expect(wakeOf({ fact: "statement", message: heard("s", body) }, [{ q: { q: "kept-statement" }, a }])).toEqual({
        kind: "machine",
        machine: "hq-1",
        by: "statement",
      })
  })

  it("a witness's verdict wakes the machine it speaks for; one said on another machine's subject, nothing", () => {
    const witness = JSON.stringify({
      machine: "hq-3",
      component: "node-engine",
      outcome: "rolled-back",
      from: "5e1f0c2a9b",
      to: "a71c3d09e4",
      at: "2026-12-03T08:00:05.000Z",
      why: "the engine stopped answering its health check",
    })
    expect(wakeOf({ fact: "witness", message: heard("p.mesh.witness.hq-3", witness) })).toEqual({
      kind: "machine",
      machine: "hq-3",
    })
    expect(wakeOf({ fact: "witness", message: heard("p.mesh.witness.hq-4", witness) })).toBeUndefined()
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
