// A machine's witness's verdicts (seed 003's witnessed; rules 003-4, 003-29, 003-33; issue 26): read
// from the bus by their Schema, the newest per machine and component kept, judged with the gate's
// facts (a witness's rollback since the send fails the gate of that component), said by the gate's
// probe as `core.<component>.<machine>.<outcome>` while they hold; and the `verdict` event each kept
// verdict is said with (docs/events.md).
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import type { Question } from "@mesh-core/core/controller/catalogue"
import { keptVerdictEvent, VerdictEventBody } from "@mesh-core/core/gate/plan/events"
import { openGate, decide } from "@mesh-core/core/gate/judging/judge"
import { probeGates, type Verdict, witnessHolds } from "@mesh-core/core/gate/judging/probe"
import { withEntry } from "@mesh-core/core/gate/plan/history"
import type { WitnessRecord } from "@mesh-core/core/gate/judging/facts"
import { keepWitness, readWitness } from "@mesh-core/core/gate/messages/witnesses"
import { runPure } from "@mesh-core/core/program"
import type { Heard } from "@mesh-core/core/standings/followers"
import { basePlan, ok, run } from "./gate-world.ts"

const subject = "p.mesh.witness.hq-3"
const body = (over: Record<string, unknown> = {}) =>
  JSON.stringify({
    machine: "hq-3",
    component: "node-engine",
    outcome: "rolled-back",
    from: "5e1f0c2a9b",
    to: "a71c3d09e4",
    at: "2026-12-03T08:00:05.000Z",
    why: "the engine stopped answering its health check",
    ...over,
  })
const verdict: WitnessRecord = {
  component: "node-engine",
  outcome: "rolled-back",
  from: "5e1f0c2a9b",
  to: "a71c3d09e4",
  why: "the engine stopped answering its health check",
  at: Date.parse("2026-12-03T08:00:05.000Z"),
}

describe("a witness's message read (readWitness)", () => {
  it("as the store keeps it: the machine, and the verdict with its time in epoch ms; `to` absent is none put back", () => {
    expect(readWitness(subject, body())).toEqual({ ok: true, value: { machine: "hq-3", verdict } })
    const { to: _to, ...noTo } = JSON.parse(body()) as Record<string, unknown>
    expect(readWitness(subject, JSON.stringify({ ...noTo, outcome: "halted" }))).toEqual({
      ok: true,
      value: { machine: "hq-3", verdict: { ...verdict, outcome: "halted", to: "" } },
    })
  })

  it("refuses what the seed's witness never says, naming the field: another outcome, a component that is not the core's, a time that is not one", () => {
    expect(readWitness(subject, body({ outcome: "fine" }))).toMatchObject({
      ok: false,
      why: expect.stringMatching(/^outcome: /),
    })
    expect(readWitness(subject, body({ component: "letta" }))).toMatchObject({
      ok: false,
      why: expect.stringMatching(/^component: /),
    })
    expect(readWitness(subject, body({ at: "yesterday" }))).toMatchObject({
      ok: false,
      why: expect.stringMatching(/^at: /),
    })
    expect(readWitness(subject, "{")).toEqual({ ok: false, why: "the body is not JSON" })
  })

  it("a witness speaks only for its own machine: a verdict naming another on this subject is refused", () => {
    expect(readWitness(subject, body({ machine: "hq-4" }))).toEqual({
      ok: false,
      why: "machine: hq-4 said on p.mesh.witness.hq-3, which is not its own subject",
    })
  })
})

describe("a witness's verdict kept (keepWitness)", () => {
  const heard = (b: string, seq = 1): Heard => ({ subject, event: subject, body: b, seq, stream: "P_WITNESSES" })
  const keep = (m: Heard, kept: WitnessRecord | null) => {
    const asked: Array<Question> = []
    const r = runPure(keepWitness(m), (q: Question) => {
      asked.push(q)
      if (q.q === "kept-witness") return kept
      if (q.q === "set-aside") return { fresh: q.letters.map((l) => l.streamSequence) }
      return { ok: true }
    })
    return { result: r.result, said: r.said, asked }
  }

  it("the first, or one newer than the one kept (or as new: it came again), is written and said", () => {
    for (const kept of [null, { ...verdict, at: verdict.at - 1 }, verdict]) {
      const r = keep(heard(body()), kept)
      expect(r.result).toBe("kept")
      expect(r.asked).toEqual([
        { q: "kept-witness", machine: "hq-3", component: "node-engine" },
        { q: "write-witness", machine: "hq-3", verdict },
      ])
      expect(r.said).toEqual([
        "[controller] the witness on hq-3 says the node-engine 5e1f0c2 was not healthy, and it rolled-back: the engine stopped answering its health check",
      ])
    }
  })

  it("one older than the one kept, arriving late, changes nothing", () => {
    const r = keep(heard(body()), { ...verdict, at: verdict.at + 1, outcome: "halted" })
    expect(r.result).toBe("older-than-kept")
    expect(r.asked.map((q) => q.q)).toEqual(["kept-witness"])
    expect(r.said).toEqual([])
  })

  it("one that cannot be read is set aside with why, never kept", () => {
    const r = keep(heard(body({ outcome: "fine" }), 7), null)
    expect(r.result).toBe("set-aside")
    expect(r.asked).toMatchObject([
      { q: "set-aside", letters: [{ kind: "witness", stream: "P_WITNESSES", subject, streamSequence: 7 }] },
    ])
    expect(r.said[0]).toMatch(
      /^\[controller\] set aside a witness's verdict on p\.mesh\.witness\.hq-3 \(stream P_WITNESSES sequence 7\): outcome: /,
    )
  })
})

describe("a witness's verdict as a condition, while it holds (probeGates, witnessHolds)", () => {
  const passed: Verdict = {
    module: "node-engine",
    component: "node-engine",
    machines: ["hq-3"],
    verdict: "passed",
    rollback: "",
    why: "healthy 3 times over 2m0s",
    commit: "77aa01b9cd",
    previous: "a71c3d09e4",
    judgingFrom: verdict.at + 1,
  }

  it("says `core.<component>.<machine>.<outcome>`, urgent for a rollback, with the witness's words", () => {
    expect(probeGates([], new Map([["hq-3", [verdict]]])).map((o) => [o.key, o.severity, o.summary])).toEqual([
      [
        "core.node-engine.hq-3.rolled-back",
        "urgent",
        "the witness on hq-3 judged the node-engine 5e1f0c2 not healthy and put back a71c3d0 at 2026-12-03T08:00:05Z: the engine stopped answering its health check",
      ],
    ])
  })

  it("ends once a build of that component sent there after it passed its gate there; not before, not elsewhere, not by a failure", () => {
    expect(witnessHolds("hq-3", verdict, [passed])).toBe(false)
    expect(probeGates([passed], new Map([["hq-3", [verdict]]]))).toEqual([])
    expect(witnessHolds("hq-3", verdict, [{ ...passed, judgingFrom: verdict.at - 1 }])).toBe(true)
    expect(witnessHolds("hq-3", verdict, [{ ...passed, machines: ["hq-4"] }])).toBe(true)
    expect(witnessHolds("hq-3", verdict, [{ ...passed, verdict: "failed" }])).toBe(true)
    expect(witnessHolds("hq-3", verdict, [{ ...passed, module: "node-tools", component: "node-tools" }])).toBe(true)
    // A verdict kept before the component was recorded names it by its module.
    expect(witnessHolds("hq-3", verdict, [{ ...passed, component: "" }])).toBe(false)
    expect(witnessHolds("hq-3", verdict, [{ ...passed, judgingFrom: undefined }])).toBe(true)
    // Judged from the very moment the witness said it: the build ran, judged healthy, since.
    expect(witnessHolds("hq-3", verdict, [{ ...passed, judgingFrom: verdict.at }])).toBe(false)
    // The component a verdict names is the one it judged, whatever its module is called.
    expect(witnessHolds("hq-3", verdict, [{ ...passed, module: "engine-next" }])).toBe(false)
    expect(witnessHolds("hq-3", verdict, [{ ...passed, component: "node-tools" }])).toBe(true)
  })
})

describe("the gate judges with them", () => {
  const engine = { ...basePlan, id: "node-engine-8", module: "node-engine", build: "node-engine-8", tiers: [["hq-1"]] }
  const witnessOn = (machine: string, at: number) => ({
    ok: true,
    value: { [machine]: [{ ...verdict, from: engine.commit, at }] },
  })

  it("a witness's rollback on a first machine since the send fails the gate of that component there, at once", () => {
    const r = run([ok, ok], engine, {
      answer: (q, step, now) => (q.q === "witness-verdicts" && step === 1 ? witnessOn("hq-1", now - 5) : undefined),
    })
    expect(r.plan.state).not.toBe("open")
    expect(r.verdicts.map((v) => [v.verdict, v.why])).toEqual([
      [
        "failed",
        "the witness on hq-1 judged the node-engine 5e1f0c2 and rolled-back: the engine stopped answering its health check",
      ],
    ])
  })

  it("one on another machine, or from before the send, is no verdict on this build", () => {
    for (const w of [witnessOn("hq-2", 5_000), witnessOn("hq-1", 0)]) {
      const r = run([ok, ok, ok, ok], engine, {
        answer: (q) =>
          q.q === "witness-verdicts"
            ? w
            : q.q === "engine-builds"
              ? { ok: true, value: { "hq-1": "node-engine-8" } }
              : undefined,
      })
      expect(r.plan.state).toBe("passed")
    }
  })

  it("what the witnesses said, unreadable, ends a core component's judging and no other's", () => {
    const away = (q: Question) => (q.q === "witness-verdicts" ? { ok: false, why: "the store is away" } : undefined)
    const core = run([ok, ok, ok], engine, { answer: away })
    expect(core.plan.state).toBe("open")
    expect(core.said).toContain(
      "[gate] node-engine-8: could not ask (1 of 3 in a row before it is paused): what the witnesses said cannot be read: the store is away",
    )
    expect(run([ok, ok, ok, ok], { ...basePlan, tiers: [["hq-1"]] }, { answer: away }).plan.state).toBe("passed")
  })
})

describe("the `verdict` event of a verdict kept (keptVerdictEvent)", () => {
  const g = decide(
    openGate("letta", ["hq-1"], "a71c3d09e4", "5e1f0c2a9b", 0),
    "failed",
    "hq-1 refused what it was sent",
    12_000,
  )

  it("the gate's, after a judging: decided gate, with how long it judged; decodes by its Schema", () => {
    const judged = withEntry(basePlan, { kind: "judging", at: 12_000, tier: 0, word: "broken", why: g.why, passes: 0 })
    const body = keptVerdictEvent(12_000, judged, g, "failed")
    expect(Schema.decodeUnknownSync(VerdictEventBody)(body)).toEqual(body)
    expect(body).toEqual({
      event: "verdict",
      at: "1970-01-01T00:00:12.000Z",
      plan: "letta-205",
      module: "letta",
      build: "letta-205",
      commit: "5e1f0c2a9b",
      previous: "a71c3d09e4",
      verdict: "failed",
      decided: "gate",
      machines: ["hq-1"],
      why: "hq-1 refused what it was sent",
      took: "12s",
      show: "mesh-controller plans show letta-205",
    })
  })

  it("a person's, after their promote or abort: decided operator, by them, and no time judged", () => {
    for (const [v, verdictWord] of [
      ["abort", "failed"],
      ["promote", "passed"],
    ] as const) {
      const acted = withEntry(basePlan, { kind: "verb", at: 12_000, verb: v, by: "alice", why: "" })
      const body = keptVerdictEvent(12_000, acted, g, verdictWord)
      expect(body).toMatchObject({ decided: "operator", by: "alice", verdict: verdictWord })
      expect(body).not.toHaveProperty("took")
    }
    // Another verb before the verdict (a resume, a pause by the controller) leaves it the gate's.
    const resumed = withEntry(basePlan, { kind: "verb", at: 12_000, verb: "resume", by: "alice", why: "" })
    expect(keptVerdictEvent(12_000, resumed, g, "failed")).toMatchObject({ decided: "gate", took: "12s" })
    expect(keptVerdictEvent(12_000, resumed, g, "failed")).not.toHaveProperty("by")
  })

  it("said by the verb's program once the store kept it: a promote publishes the person's verdict, then the act", () => {
    const r = run([ok, ok, { kind: "verb", verb: "promote", by: "alice", why: "looks good" }])
    const published = r.acts.flatMap((a) => (a.q.q === "publish" ? [a.q] : []))
    expect(published.map((p) => [p.event, p.body["decided"], p.body["by"]])).toEqual([
      ["verdict", "operator", "alice"],
      ["plan-promoted", undefined, "alice"],
    ])
  })
})
