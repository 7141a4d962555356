// An operator's verb is an input fact of the controller's log (issue 10): a recorder writes it with
// the answers its program got, and a replay feeds it through the same program, giving the same acts;
// the tick after a pause, replayed, leaves the paused plan alone.
import { describe, expect, it } from "vitest"
import { runPure } from "@mesh-core/core/program"
import type { OperatorCommand } from "@mesh-core/core/gate/plan/records"
import {
  type ControllerDecision,
  feedController,
  finishController,
  startControllerReplay,
} from "@mesh-core/core/controller/replay"
import { operatorVerb } from "@mesh-core/core/gate/operator/operator"
import { answerLine, readControllerLine } from "@mesh-core/core/controller/log"
import { basePlan, settings } from "./gate-world.ts"

describe("a verb recorded and replayed", () => {
  it("decodes as the input `verb`, replays to the same acts with nothing inferred, and the next tick replayed does not judge the paused plan", () => {
    const at = Date.parse("2026-12-03T08:00:00Z")
    const command: OperatorCommand = {
      verb: "pause",
      plan: "letta-205",
      by: "alice",
      at,
      why: "the dashboards look wrong",
    }
    const open = { ...basePlan, sent: ["hq-1"] }
    // Live: the program run, each answer written as the recorder writes it.
    const live = runPure(operatorVerb(command, settings), (q) =>
      q.q === "lease-holder"
        ? { ok: true, value: { mine: true, holder: "ctl-a" } }
        : q.q === "plan-of"
          ? { ok: true, value: open }
          : { ok: true },
    )
    const iso = "2026-12-03T08:00:00Z"
    const paused = live.exchanges
      .map((e) => e.question)
      .find((q): q is Extract<typeof q, { q: "save-plan" }> => q.q === "save-plan")!.plan
    expect(paused.paused).toBeDefined()
    const lines = [
      JSON.stringify({
        format: "mesh-core.facts",
        version: 1,
        area: "controller",
        settings: { gate: { settle: "2s", bound: "10s", every: "1s", passes: 2, errorLimit: 3 } },
      }),
      JSON.stringify({ at: iso, fact: "verb", command }),
      ...live.exchanges.map((e) => answerLine(iso, e.question, e.answer)),
      JSON.stringify({ at: "2026-12-03T08:00:05Z", fact: "tick" }),
      // What the store gives the next tick: the plan as the verb saved it.
      answerLine("2026-12-03T08:00:05Z", { q: "plans-in-flight" }, { ok: true, value: [paused] }),
    ]
    let state = startControllerReplay(settings)
    const decisions: Array<ControllerDecision> = []
    let lastAt = 0
    for (const [i, text] of lines.entries()) {
      const r = readControllerLine(i + 1, text, i === 0, lastAt)
      if (!r.ok) throw new Error(`${r.bad.line}: ${r.bad.field}: ${r.bad.problem}`)
      if (r.header !== undefined) expect(r.header.settings.gate.errorLimit).toBe(3)
      if (r.fact === undefined) continue
      lastAt = r.fact.atMs
      if (i === 1) expect(r.fact).toMatchObject({ fact: "verb", command })
      const fed = feedController(state, r.fact, () => settings)
      state = fed.state
      decisions.push(...fed.decisions)
    }
    decisions.push(...finishController(state).decisions)
    const acts = decisions.flatMap((d) => (d.kind === "act" ? [d] : []))
    expect(acts.filter((a) => a.recorded).map((a) => a.act)).toEqual(
      live.exchanges.map((e) => e.question).filter((q) => q.q === "save-plan" || q.q === "publish"),
    )
    // The tick: the plan the replay kept paused is not judged, so it asks no gate facts and saves nothing.
    expect(acts.filter((a) => !a.recorded)).toEqual([])
    expect(state.plans.get("letta-205")?.paused).toEqual({ by: "alice", at, why: "the dashboards look wrong" })
    expect(finishController(state).state.counts.differed).toBe(0)
  })

  it("a verb line that is not a command is refused naming the field", () => {
    const r = readControllerLine(
      2,
      JSON.stringify({
        at: "2026-12-03T08:00:00Z",
        fact: "verb",
        command: { verb: "skip", plan: "x", by: "a", at: 0, why: "" },
      }),
      false,
      0,
    )
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.bad.field).toBe("command.verb")
  })
})
