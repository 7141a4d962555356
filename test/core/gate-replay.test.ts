// A recorded rollout replayed through the gate (`simulate` on a log of area "gate"), fact by fact:
// what each fact does to the picture of the machines, each judging and the verdict, the rollback
// decided from the header, and the lines `simulate` prints, pinned.
import { describe, expect, it } from "vitest"
import type { GateFactLine, GateHeader } from "@mesh-core/core/facts/gate-log"
import { gateSummaryLines, gateTimelineLines } from "@mesh-core/core/gate/render"
import { feedGateFact, type GateDecision, type GateReplay, gateSettingsOf, startGateReplay } from "@mesh-core/core/gate/replay"
import { defaultGateSettings } from "@mesh-core/core/gate/judge"

const header = (over: Partial<GateHeader["rollback"]> = {}, gate: Partial<GateHeader["gate"]> = {}): GateHeader => ({
  format: "mesh-core.facts", version: 1, area: "gate",
  gate: { plan: "p-7", module: "letta", build: "letta-204", commit: "5e1f0c2a9b", previous: "a71c3d09e4", machines: ["hq-3"], ...gate },
  settings: { settle: "1m", bound: "3m", every: "20s", passes: 2 },
  rollback: { unchanged: false, verdictKept: false, previousBuild: { build: "letta-203", commit: "a71c3d09e4" }, ...over },
})
const t0 = Date.parse("2026-10-05T06:00:00Z")
type Line = GateFactLine & { atMs: number }
const at = (s: number) => ({ at: new Date(t0 + s * 1_000).toISOString(), atMs: t0 + s * 1_000 })

const replay = (h: GateHeader, facts: ReadonlyArray<Line>): { state: GateReplay; decisions: Array<GateDecision> } => {
  let state = startGateReplay(h, gateSettingsOf(h))
  const decisions: Array<GateDecision> = []
  for (const f of facts) {
    const r = feedGateFact(state, f)
    state = r.state
    decisions.push(...r.decisions)
  }
  return { state, decisions }
}

describe("the gate's settings from a log's header", () => {
  it("each named setting replaces the default; the rest stay", () => {
    expect(gateSettingsOf(header())).toEqual({ settle: 60_000, bound: 180_000, every: 20_000, passes: 2 })
    expect(gateSettingsOf({ ...header(), settings: { bound: "1h" } })).toEqual({ ...defaultGateSettings, bound: 3_600_000 })
    const { settings: _, ...none } = header()
    expect(gateSettingsOf(none as GateHeader, { settle: 1, bound: 2, every: 3, passes: 4 })).toEqual({ settle: 1, bound: 2, every: 3, passes: 4 })
  })
})

describe("a replayed rollout", () => {
  it("judges a healthy first machine to a pass, counting its passes, and says so", () => {
    const { state, decisions } = replay(header(), [
      { ...at(0), fact: "judge" }, // nothing sent yet: nothing judged
      { ...at(1), fact: "send", machines: ["hq-3"] },
      { ...at(2), fact: "send", machines: ["hq-4"] }, // one gate per log
      { ...at(20), fact: "report", machine: "hq-3", outcome: "applied", current: true },
      { ...at(30), fact: "statement", machine: "hq-3", resources: [{ resource: "letta-app", module: "letta", state: "starting" }] },
      { ...at(31), fact: "judge" },
      { ...at(40), fact: "statement", machine: "hq-3", resources: [{ resource: "letta-app", module: "letta", state: "healthy" }] },
      { ...at(41), fact: "judge" },
      { ...at(50), fact: "judge" }, // too soon after the pass
      { ...at(61), fact: "judge" },
      { ...at(90), fact: "judge" }, // a verdict once given is kept
    ])
    expect(decisions.map((d) => gateTimelineLines(d)).flat()).toEqual([
      "2026-10-05T06:00:01Z  sent       letta 5e1f0c2 to hq-3; the gate judges from here",
      "2026-10-05T06:00:31Z  judging    not yet (0 of 2 passes): letta-app of letta on hq-3 is still starting",
      "2026-10-05T06:00:41Z  judging    healthy: pass 1 of 2",
      "2026-10-05T06:01:01Z  VERDICT    passed after 1m0s: healthy 2 times over 1m0s",
    ])
    expect(state.judgings).toBe(3)
    expect(state.gate).toMatchObject({ machines: ["hq-3"], from: "a71c3d09e4", to: "5e1f0c2a9b", since: t0 + 1_000, verdict: "passed" })
    expect(gateSummaryLines(state, 11)).toEqual(["", "summary: 11 facts, 3 judgings of letta (plan p-7)", "  gate on hq-3: passed, a71c3d0 → 5e1f0c2, after 1m0s: healthy 2 times over 1m0s"])
    expect(gateSummaryLines(startGateReplay(header(), defaultGateSettings), 0)[2]).toBe("  no send was recorded, so nothing was judged")
  })

  it("a module stated unhealthy twice raises its condition, fails the gate at the bound, and is put back in one send", () => {
    const unhealthy = (s: number): Line => ({ ...at(s), fact: "statement", machine: "hq-3", resources: [{ resource: "letta-app", module: "letta", state: "unhealthy", reason: "exit 137" }] })
    const { state, decisions } = replay(header(), [
      { ...at(0), fact: "send", machines: ["hq-3"] },
      { ...at(5), fact: "report", machine: "hq-3", outcome: "applied", current: true },
      unhealthy(10), unhealthy(20),
      { ...at(181), fact: "judge" },
    ])
    const lines = decisions.map((d) => gateTimelineLines(d)).flat()
    expect(lines[1]).toBe("2026-10-05T06:00:20Z  CONDITION  raised module.letta.hq-3.unhealthy — letta on hq-3 is stated unhealthy twice in a row: letta-app: exit 137")
    expect(lines[2]).toBe("2026-10-05T06:03:01Z  VERDICT    failed after 3m1s: not healthy within 3m0s of its apply: raised since it was sent: module.letta.hq-3.unhealthy — letta on hq-3 is stated unhealthy twice in a row: letta-app: exit 137")
    expect(lines[3]).toBe("2026-10-05T06:03:01Z  ROLLBACK   rolled-back: put back to a71c3d0 (letta-203) on hq-3")
    expect(lines[4]).toBe("                      1 send, one per machine: hq-3 (letta letta-203)")
    expect(lines[5]).toMatch(/^ {22}condition build\.letta\.hq-3\.rolled-back \(warning\): letta's build 5e1f0c2 failed its gate on hq-3 and was put back to a71c3d0: not healthy within 3m0s/)
    expect(JSON.parse(lines[6]!.replace(/^ {22}event /, ""))).toMatchObject({ event: "rolled-back", module: "letta", machines: ["hq-3"], from: "5e1f0c2a9b", to: "a71c3d09e4", rollback: "rolled-back", show: "mesh-controller conditions build.letta.hq-3.rolled-back" })
    expect(state.gate).toMatchObject({ verdict: "failed", rollback: "rolled-back" })
    // a healthy statement clears it
    const cleared = feedGateFact(state, { ...at(200), fact: "statement", machine: "hq-3", resources: [{ resource: "letta-app", module: "letta", state: "healthy" }] })
    expect(cleared.decisions).toEqual([{ at: t0 + 200_000, kind: "condition", action: "cleared", key: "module.letta.hq-3.unhealthy", summary: "" }])
    expect(cleared.state.open.has("module.letta.hq-3.unhealthy")).toBe(false)
  })

  it("the rollback decided from the header: already kept, no previous build among those kept, unchanged", () => {
    const failing: ReadonlyArray<Line> = [{ ...at(0), fact: "send", machines: ["hq-3", "hq-4"] }, { ...at(5), fact: "report", machine: "hq-3", outcome: "failed", current: true }, { ...at(6), fact: "judge" }]
    const rollbackOf = (h: GateHeader) => replay(h, failing).decisions.find((d) => d.kind === "rollback")!
    expect(rollbackOf(header({ verdictKept: true }))).toMatchObject({ rollback: "already-kept", said: "its rollback was already made once and is not made again", sends: [] })
    const gone = rollbackOf(header({ previousBuild: null }))
    expect(gone).toMatchObject({ rollback: "not-rolled-back", said: "NOT put back: no build of letta from a71c3d0, asked before the failed one, is among the 10 newest kept to put back", sends: [] })
    expect(gone.kind === "rollback" && gone.observation).toMatchObject({ key: "build.letta.hq-3,hq-4.rollback-failed", severity: "urgent" })
    expect(gone.kind === "rollback" && gone.event).toMatchObject({ rollback: "not-rolled-back", not_why: expect.stringContaining("no build of letta") })
    expect(gateTimelineLines(gone)).toHaveLength(3) // no sends line
    const same = rollbackOf(header({ unchanged: true }))
    expect(same).toMatchObject({ rollback: "unchanged", sends: [] })
    expect(same.kind === "rollback" && same.event).not.toHaveProperty("not_why")
    expect(replay(header(), failing).state.gate).toMatchObject({ verdict: "failed", why: "hq-3 failed what it was sent", rollback: "rolled-back" })
    const two = rollbackOf(header())
    expect(gateTimelineLines(two)[1]).toBe("                      2 sends, one per machine: hq-3 (letta letta-203); hq-4 (letta letta-203)")
  })

  it("keeps the machines' picture: engines, the lease holder, discovery, witnesses and conditions raised and cleared", () => {
    const h = header({}, { module: "node-engine", manifests: { "node-engine": { tools: [], deliveredVersions: ["ne-2"] } } })
    const { state, decisions } = replay(h, [
      { ...at(0), fact: "send", machines: ["hq-3"] },
      { ...at(1), fact: "report", machine: "hq-3", outcome: "applied", current: true },
      { ...at(2), fact: "engine", machine: "hq-3", build: "ne-1" },
      { ...at(3), fact: "judge" },
      { ...at(4), fact: "holder", taken: "2026-10-05T05:00:00Z", ready: true, why: "fine" },
      { ...at(5), fact: "discovery", served: { "hq-3": { runtime: true, tools: ["letta"] } } },
      { ...at(6), fact: "condition", action: "raise", key: "machine.hq-3.disk-full", source: "D10", machine: "hq-3", kind: "disk-full", summary: "disk" },
      { ...at(7), fact: "condition", action: "raise", key: "bare" },
      { ...at(8), fact: "condition", action: "clear", key: "bare" },
      { ...at(9), fact: "witness", machine: "hq-3", component: "node-engine", outcome: "rolled-back", from: "5e1f0c2a9b", to: "a71c3d09e4", why: "died" },
      { ...at(24), fact: "judge" },
    ])
    expect(decisions.map((d) => gateTimelineLines(d)).flat().slice(1, 5)).toEqual([
      "2026-10-05T06:00:03Z  judging    not yet (0 of 2 passes): hq-3's node-engine reports build ne-1, not the new ne-2",
      "2026-10-05T06:00:06Z  CONDITION  raised machine.hq-3.disk-full — disk",
      "2026-10-05T06:00:07Z  CONDITION  raised bare — ",
      "2026-10-05T06:00:08Z  condition  cleared bare",
    ])
    expect(state.engines.get("hq-3")).toBe("ne-1")
    expect(state.holder).toEqual({ ok: true, value: { taken: Date.parse("2026-10-05T05:00:00Z"), ready: true, why: "fine" } })
    expect(state.served.ok && [...state.served.value.get("hq-3")!.tools]).toEqual(["letta"])
    expect(state.open.get("machine.hq-3.disk-full")).toEqual({ key: "machine.hq-3.disk-full", source: "D10", raised: t0 + 6_000, scope: "machine", id: "hq-3", machine: "hq-3", also: [], kind: "disk-full", summary: "disk" })
    expect(state.witnesses.get("hq-3")).toEqual([{ component: "node-engine", outcome: "rolled-back", from: "5e1f0c2a9b", to: "a71c3d09e4", why: "died", at: t0 + 9_000 }])
    expect(decisions.at(-2)).toMatchObject({ kind: "judging", verdict: "failed", why: "the witness on hq-3 judged the node-engine 5e1f0c2 and rolled-back: died" })
    const down = feedGateFact(startGateReplay(h, defaultGateSettings), { ...at(1), fact: "discovery", error: "bus down" })
    expect(down.state.served).toEqual({ ok: false, why: "bus down" })
    expect(startGateReplay(h, defaultGateSettings).served).toEqual({ ok: false, why: "the bus's discovery was not asked" })
  })
})
