// The events a follower reads (issue 10), as rules: every body the controller makes decodes by the
// catalogue's Schema, survives JSON unchanged, carries no absent value as `undefined`, says when in
// RFC 3339 and where to read the plan; a person's verdict is told apart from a judging's.
import fc from "fast-check"
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import {
  OperatorActEventBody,
  operatorEventOf,
  ReleaseEventBody,
  ReleaseEventName,
  verbEvent,
  RolledBackEventBody,
  VerdictEventBody,
  verdictEvent,
} from "@mesh-core/core/gate/plan/events"
import { openGate } from "@mesh-core/core/gate/judging/judge"
import { rolledBackEvent } from "@mesh-core/core/gate/judging/observations"

const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/)
const text = fc.string({ maxLength: 40 })
const at = fc.integer({ min: 0, max: 4_102_444_800_000 })
const plan = fc.record({
  id: name,
  module: name,
  build: name,
  commit: fc.stringMatching(/^[0-9a-f]{10}$/),
  previous: fc.stringMatching(/^[0-9a-f]{0,10}$/),
})
const gate = fc.record({
  machines: fc.array(name, { minLength: 1, maxLength: 3 }),
  component: fc.oneof(fc.constant(""), name),
  why: text,
  took: fc.constantFrom("", "12s", "1m30s"),
})

const jsonClean = (body: object) => {
  expect(Object.values(body).every((v) => v !== undefined)).toBe(true)
  expect(JSON.parse(JSON.stringify(body))).toEqual(body)
}

describe("verdict", () => {
  it("decodes by its Schema, is JSON-clean, says when and where to look; decided by the gate unless a person is named", () => {
    fc.assert(
      fc.property(
        at,
        plan,
        gate,
        fc.constantFrom("passed" as const, "failed" as const),
        fc.option(name, { nil: undefined }),
        (t, p, g, v, who) => {
          const body = verdictEvent(t, p, g, v, who)
          expect(Schema.decodeUnknownSync(VerdictEventBody)(body)).toEqual(body)
          expect(Schema.decodeUnknownSync(ReleaseEventBody)(body)).toEqual(body)
          jsonClean(body)
          expect(Date.parse(body.at)).toBe(t)
          expect(body.show).toBe(`mesh-controller plans show ${p.id}`)
          expect(body.verdict).toBe(v)
          expect(body.decided).toBe(who === undefined ? "gate" : "operator")
          expect(body.by).toBe(who)
          expect("component" in body).toBe(g.component !== "")
          expect("took" in body).toBe(g.took !== "")
        },
      ),
    )
  })
})

describe("operator acts", () => {
  it("each verb's event decodes by its Schema with who did it, the plan's state after, and the reason only when given", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...Object.values(operatorEventOf)),
        at,
        plan,
        name,
        fc.constantFrom("open", "paused", "passed", "failed"),
        fc.option(text, { nil: undefined }),
        fc.option(text, { nil: undefined }),
        (event, t, p, by, state, reason, note) => {
          const body = verbEvent(event, t, { ...p, state }, by, reason ?? "", note ?? "")
          expect(Schema.decodeUnknownSync(OperatorActEventBody)(body)).toEqual(body)
          jsonClean(body)
          expect(body).toMatchObject({ event, plan: p.id, module: p.module, build: p.build, by, state })
          expect(Date.parse(body.at)).toBe(t)
          expect("reason" in body).toBe(reason !== undefined && reason !== "")
          expect("note" in body).toBe(note !== undefined && note !== "")
        },
      ),
    )
  })

  it("every verb has its event, and every event name is one bus subject token", () => {
    expect(operatorEventOf).toEqual({
      pause: "plan-paused",
      resume: "plan-resumed",
      promote: "plan-promoted",
      abort: "plan-aborted",
      retry: "plan-retried",
    })
    for (const e of ReleaseEventName.literals) expect(e).toMatch(/^[a-z-]+$/)
  })
})

describe("rolled-back, the seed's event", () => {
  it("the body the gate publishes decodes by the catalogue's Schema", () => {
    fc.assert(
      fc.property(
        at,
        name,
        gate,
        fc.constantFrom("rolled-back", "not-rolled-back"),
        text,
        name,
        (t, module, g, rollback, notWhy, key) => {
          const body = rolledBackEvent(
            t,
            module,
            { ...openGate(module, g.machines, "a71c3d09e4", "5e1f0c2a9b", 0), why: g.why },
            rollback,
            notWhy,
            key,
          )
          expect(Schema.decodeUnknownSync(RolledBackEventBody)(body)).toEqual(body)
          jsonClean(body)
        },
      ),
    )
  })
})
