// serve's answer to an operator's verb over the in-memory services (issue 10): refused naming the
// holder where this controller does not hold the lease, an odd request refused without stopping the
// answers, and a verb carried out recorded so that its recording replays to the same reply and words.
import { canonicalJson } from "@mesh-core/core/json"
import { operatorVerb } from "@mesh-core/core/gate/operator/operator"
import { defaultGateSettings } from "@mesh-core/core/gate/judging/judge"
import { OperatorCommand, type PlanRecord } from "@mesh-core/core/gate/plan/records"
import { gwPlan } from "../support/opened-plan.ts"
import type { LeaseSeen } from "@mesh-core/core/lease/view"
import { Effect, Layer, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { MeshBus } from "../../shells/src/bus/mesh-bus.ts"
import { verbQuestions } from "@mesh-core/core/gate/operator/questions"
import { answeringOnly } from "../support/answering.ts"
import { ControllerRecorder } from "../../shells/src/program/recorder.ts"
import { answerVerb, GateTurn, leaseHolderOf, verbHandlers } from "../../shells/src/gate/verbs.ts"
import * as Journal from "../../shells/src/journal.ts"
import { LeaseView } from "../../shells/src/metrics/probes.ts"
import { GateStore } from "../../shells/src/store/gate.ts"
import { replayLines } from "../integration/replay-recording.ts"

const settings = defaultGateSettings
const plan: PlanRecord = gwPlan(1_700_000_000_000)
const otherHolds: LeaseSeen = {
  found: true,
  revision: 4,
  record: {
    holder: "ctl-b/42/abc",
    epoch: 3,
    acquiredAt: 1_700_000_000_000,
    renewedAt: Date.now(),
    durationMs: 15_000,
    givenBack: false,
    ready: true,
  },
}

/** Sends each raw request in turn to the responder's answer over the in-memory services; replies parsed. */
const ask = (raws: ReadonlyArray<string>, held: boolean, record: LeaseSeen = otherHolds, handingOver = false) => {
  const said: Array<string> = []
  const recorded: Array<string> = []
  const program = Effect.gen(function* () {
    const gates = yield* GateStore
    const bus = yield* MeshBus
    const view = yield* LeaseView
    if (held) yield* view.set({ held: true, holder: "ctl-a/1/def", epoch: 3 })
    if (handingOver) yield* view.setHandingOver(true)
    // The verbs' handlers this test needs (operator-answers.ts verbAnswers answers every one live).
    const base = answeringOnly(verbQuestions, {
      "plan-of": (q) => Effect.map(gates.planOf(q.id).pipe(Effect.orDie), (value) => ({ ok: true as const, value })),
      "save-plan": (q) => Effect.as(gates.savePlan(q.plan).pipe(Effect.orDie), { ok: true as const }),
      publish: (q) =>
        Effect.as(bus.publish(`mesh.event.${q.event}`, JSON.stringify(q.body)).pipe(Effect.orDie), {
          ok: true as const,
        }),
    })
    const handlers = verbHandlers(base, leaseHolderOf(view, Effect.succeed(record), "ctl-a"))
    const replies: Array<Record<string, unknown>> = []
    for (const raw of raws) replies.push(JSON.parse(yield* answerVerb(raw, handlers, settings)))
    const kept = (yield* gates.plans).find((p) => p.id === plan.id)
    return { replies, kept }
  }).pipe(
    Effect.provide(
      Layer.mergeAll(
        GateStore.layerTest({ plans: [plan] }),
        MeshBus.layerTest(),
        LeaseView.layer,
        GateTurn.layer,
        ControllerRecorder.layerMemory(recorded),
      ),
    ),
    Effect.provide(Journal.memoryLayer(said)),
  )
  return Effect.runPromise(program).then((r) => ({ ...r, said, recorded }))
}

const request = (verb: string, why = "") => JSON.stringify({ verb, plan: plan.id, by: "ann", why })

describe("serve's answer to an operator's verb", () => {
  it("a controller that does not hold the lease refuses, naming the holder, and leaves the plan as it was", async () => {
    const r = await ask([request("pause", "checking the dashboards")], false)
    expect(r.replies[0]).toMatchObject({ ok: false, code: 2 })
    expect(r.replies[0]!["said"]).toContain("ctl-b/42/abc")
    expect(r.kept?.paused).toBeUndefined()
  })

  it("a verb while this controller stops its acts is refused as a handover, naming the next holder, and nothing is read or kept (issue 289)", async () => {
    // Still holding in its view: the handover comes first, so nothing is started with this term.
    const r = await ask([request("pause", "checking the dashboards")], true, otherHolds, true)
    expect(r.replies[0]).toMatchObject({
      ok: false,
      code: 2,
      said: "this controller is handing over the controller lease, so it starts nothing now; ctl-b/42/abc holds it: give the verb to ctl-b/42/abc",
    })
    expect(r.kept?.paused).toBeUndefined()
    const answers = r.recorded.filter((l) => JSON.parse(l).q !== undefined).map((l) => JSON.parse(l).q.q)
    expect(answers).toEqual(["lease-holder"])
  })

  it("nobody holding the lease is said as such, not as some holder", async () => {
    const r = await ask([request("pause")], false, { found: false })
    expect(r.replies[0]).toMatchObject({ ok: false, code: 2 })
    expect(r.replies[0]!["said"]).toContain("no controller holds the lease")
  })

  it("an odd request is refused, and the next request is answered", async () => {
    const r = await ask(
      [
        "{not json",
        JSON.stringify({ verb: "dance", plan: "x", by: "ann", why: "" }),
        JSON.stringify({ verb: "pause" }),
        request("pause"),
      ],
      true,
    )
    expect(r.replies.slice(0, 3).map((x) => [x["ok"], x["code"]])).toEqual([
      [false, 2],
      [false, 2],
      [false, 2],
    ])
    for (const x of r.replies.slice(0, 3)) expect(x["said"]).toMatch(/^not a verb this controller can read/)
    expect(r.replies[3]).toMatchObject({ ok: true, code: 0 })
    expect(r.kept?.paused?.by).toBe("ann")
    // Only the verb read is a fact: the odd ones were never fed to the core.
    expect(r.recorded.filter((l) => JSON.parse(l).fact === "verb")).toHaveLength(1)
  })

  it("a verb carried out is recorded, and its recording replays to the same reply and the same words", async () => {
    const r = await ask([request("pause", "a noisy neighbour"), request("resume")], true)
    expect(r.replies.map((x) => x["code"])).toEqual([0, 0])
    expect(r.kept?.paused).toBeUndefined()
    const verbs = r.recorded.map((l, i) => ({ l: JSON.parse(l), i })).filter(({ l }) => l.fact === "verb")
    expect(verbs.map(({ l }) => [l.command.verb, l.command.by])).toEqual([
      ["pause", "ann"],
      ["resume", "ann"],
    ])
    // The reply again, from the recording alone: its command and its answers fed to the program in order.
    const ends = [...verbs.map(({ i }) => i).slice(1), r.recorded.length]
    verbs.forEach(({ l, i }, k) => {
      const command = Schema.decodeUnknownSync(OperatorCommand)(l.command)
      const answers = r.recorded.slice(i + 1, ends[k]).map((x) => JSON.parse(x).a)
      const program = operatorVerb(command, settings)
      let next = program.next(undefined)
      while (next.done !== true) next = program.next(next.value.q === "say" ? undefined : answers.shift())
      expect(answers).toEqual([])
      expect(canonicalJson(next.value)).toBe(canonicalJson(r.replies[k]))
    })
    // And through the controller's replay: the same words said, the same acts asked.
    const back = replayLines(r.recorded, false)
    expect(back.said.filter((l) => l.startsWith("[plans]"))).toEqual(r.said.filter((l) => l.startsWith("[plans]")))
    expect(back.acts.map(canonicalJson)).toEqual(back.recordedActs.map(canonicalJson))
  })
})
