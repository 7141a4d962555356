// A plan's send as the controller's catalogue joins it (core/src/controller/catalogue.ts, issue 25):
// the gate's `send-plan` answered by the delivery area's push, whose exchanges are recorded with the
// answer. The rules, each stated apart from the code: a send recorded without its push is taken as
// recorded; a send asked otherwise than recorded is that act differing already, never counted again
// here; the same send, however its keys are spelled, is composed again and differs only when its
// declarations, order or outcome do, or its push was recorded only in part; and the exchanges are
// read by their Schemas like any answer.
import { describe, expect, it } from "vitest"
import { sendPlanInferred } from "@mesh-core/core/controller/catalogue"
import { readControllerLine } from "@mesh-core/core/controller/log"
import { type PlanSend, planSendAsk, planSendOutcome, pushProgram } from "@mesh-core/core/delivery/push"
import type { MeshRecords } from "@mesh-core/core/mesh/records"
import { runPure } from "@mesh-core/core/program"
import { pushWorld } from "../support/push-world.ts"

const records: MeshRecords = {
  mesh: "t",
  nodes: ["hq-1", "hq-2", "hq-3", "hq-4"],
  modules: [
    { name: "broker", build: "b1", busUsers: true, claims: ["bus"], subscribes: ["mesh.>"] },
    { name: "app", build: "a1", publishes: ["app.>"] },
  ],
  assignments: [
    { module: "broker", node: "hq-1" },
    { module: "app", node: "hq-3" },
    { module: "app", node: "hq-4" },
  ],
}

const send: PlanSend & { readonly q: "send-plan" } = {
  q: "send-plan",
  plan: "app-a1",
  module: "app",
  why: "tier",
  machines: ["hq-3"],
}
const ran = runPure(pushProgram(planSendAsk(send)), pushWorld(records))
const exchanges = ran.exchanges.map((e) => JSON.parse(JSON.stringify({ q: e.question, a: e.answer })))
const recorded = { ...planSendOutcome(send, ran.result), exchanges }
/** The same exchanges with every declaration's bytes changed: a composition that is not the one made now. */
const tampered = {
  ...recorded,
  exchanges: exchanges.map((e: { q: { q: string; body?: string } }) =>
    e.q.q === "declare" ? { ...e, q: { ...e.q, body: `${e.q.body}x` } } : e,
  ),
}
const entry = sendPlanInferred
const differs = (asked: typeof send, recordedQ: typeof send, answer: unknown) =>
  entry.differs(asked, recordedQ, answer as typeof recorded)

describe("a plan's send joined with the push that answered it (issue 25)", () => {
  it("the recorded push declared the bus holder first (it had reported nothing: behind), then the machine asked", () => {
    const declared = ran.exchanges.flatMap((e) => (e.question.q === "declare" ? [e.question.node] : []))
    expect(declared).toEqual(["hq-1", "hq-3"])
    expect(recorded.told).toEqual(["hq-3"])
  })

  it("a send recorded without its push is taken as recorded", () => {
    const { exchanges: _, ...plain } = tampered
    expect(differs(send, send, plain)).toBe(false)
  })

  it("the same send composed again from its exchanges does not differ; composed otherwise, it does", () => {
    expect(differs(send, send, recorded)).toBe(false)
    expect(differs(send, send, tampered)).toBe(true)
  })

  it("the same send with its keys in another order is the same send, composed again", () => {
    const respelled = { machines: ["hq-3"], why: "tier", module: "app", plan: "app-a1", q: "send-plan" } as const
    expect(differs(respelled, send, tampered)).toBe(true)
    expect(differs(respelled, send, recorded)).toBe(false)
  })

  it("a push recorded only in part is not composed again to its end: the send differs", () => {
    for (const kept of [0, 1, exchanges.length - 1])
      expect(differs(send, send, { ...recorded, exchanges: exchanges.slice(0, kept) }), `${kept} kept`).toBe(true)
  })

  it("a send asked otherwise than recorded is not counted here: the act differs already", () => {
    const otherwise = { ...send, machines: ["hq-4"] }
    expect(differs(otherwise, send, tampered)).toBe(false)
    expect(differs(otherwise, send, recorded)).toBe(false)
  })

  it("the program is handed the answer as a log without the push would give it", () => {
    const handed = entry.replayed(send, recorded)
    expect(handed).toEqual(planSendOutcome(send, ran.result))
    expect("exchanges" in handed).toBe(false)
  })

  it("the exchanges are read by their Schemas: one naming no push question is refused with the line", () => {
    const line = (a: unknown) => JSON.stringify({ at: "2026-12-04T10:00:00Z", fact: "answer", q: send, a })
    const header = JSON.stringify({ format: "mesh-core.facts", version: 1, area: "controller", settings: { gate: {} } })
    expect(readControllerLine(1, header, true, 0).ok).toBe(true)
    expect(readControllerLine(2, line(recorded), false, 0).ok).toBe(true)
    const odd = { ...recorded, exchanges: [{ q: { q: "no-such-question" }, a: null }] }
    const read = readControllerLine(2, line(odd), false, 0)
    expect(read.ok).toBe(false)
  })
})
