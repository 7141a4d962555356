// How a verb travels (issue 10): every controller name makes one valid subject of its own, and which
// controller the CLI asks follows the lease record, stated independently of the code.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  notCarriedOut,
  oddRequest,
  recordHolder,
  unanswered,
  verbSubject,
  verbTarget,
} from "@mesh-core/core/gate/operator/verb-wire"
import type { LeaseSeen } from "@mesh-core/core/lease/view"

const record = (holder: string, renewedAt: number, givenBack: boolean): LeaseSeen => ({
  found: true,
  revision: 1,
  record: { holder, epoch: 1, acquiredAt: 0, renewedAt, durationMs: 15_000, givenBack, ready: true },
})

describe("the verb subject", () => {
  it("is four NATS tokens (after the prefix) with no wildcard or space, whatever the controller's name", () => {
    fc.assert(
      fc.property(fc.string(), (name) => {
        const s = verbSubject("", name === "" ? "x" : name)
        const tokens = s.split(".")
        expect(tokens).toHaveLength(4)
        expect(tokens.slice(0, 2)).toEqual(["mesh", "controller"])
        expect(tokens[3]).toBe("verb")
        expect(tokens[2]).toMatch(/^[A-Za-z0-9_-]+$/)
      }),
    )
  })

  it("tells apart names that differ in a letter or digit, and keeps the prefix", () => {
    expect(verbSubject("", "hq-1/12/ab")).not.toBe(verbSubject("", "hq-2/12/ab"))
    expect(verbSubject("p.", "hq.local/1/ab")).toBe("p.mesh.controller.hq_local_1_ab.verb")
  })
})

describe("who the lease record names", () => {
  it("a record held or gone quiet names its holder; one given back, or none, names nobody; an unreadable one is not read as nobody", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.nat(100_000), fc.nat(100_000), (holder, renewedAt, later) => {
        expect(recordHolder(record(holder, renewedAt, false), renewedAt + later)).toEqual({ ok: true, value: holder })
        expect(recordHolder(record(holder, renewedAt, true), renewedAt + later)).toEqual({ ok: true, value: null })
      }),
    )
    expect(recordHolder({ found: false }, 0)).toEqual({ ok: true, value: null })
    expect(recordHolder({ unreachable: "the bus is away" }, 0)).toEqual({ ok: false, why: "the bus is away" })
    expect(recordHolder({ found: true, revision: 2, unreadable: "not JSON" }, 0).ok).toBe(false)
  })

  it("the CLI asks the controller named when one is, else the record's holder, else sends nothing and says why", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), (named, holder) => {
        expect(verbTarget(named, record(holder, 0, false), 0)).toEqual({ ok: true, to: named })
        expect(verbTarget(undefined, record(holder, 0, false), 0)).toEqual({ ok: true, to: holder })
      }),
    )
    const none = verbTarget(undefined, { found: false }, 0)
    expect(none.ok === false && none.said).toMatch(/no controller holds the lease/)
    const away = verbTarget(undefined, { unreachable: "the bus is away" }, 0)
    expect(away.ok === false && away.said).toMatch(/cannot be read.*the bus is away/)
  })

  it("an odd request is refused, code 2, saying what was odd", () => {
    expect(oddRequest("verb: expected pause")).toEqual({
      ok: false,
      code: 2,
      said: "not a verb this controller can read, so nothing is done: verb: expected pause",
    })
  })
})

describe("the CLI's verb words", () => {
  it("an empty --controller names none, so the lease's holder is asked; a request unanswered or not carried out, word for word", () => {
    expect(verbTarget("", record("hq-2/77/cd34", 0, false), 0)).toEqual({ ok: true, to: "hq-2/77/cd34" })
    expect(unanswered("hq-2/77/cd34", "mesh.verbs.hq-2", "timeout")).toBe(
      "controller hq-2/77/cd34 did not answer on mesh.verbs.hq-2 (timeout): it is not running, or not under that name; nothing was done",
    )
    expect(notCarriedOut("the store is away")).toEqual({
      ok: false,
      code: 3,
      said: "the verb could not be carried out, so nothing is done: the store is away",
    })
  })
})
