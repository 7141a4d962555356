// Release plans as the store keeps them, for tests of what a plan holds back, shows and says.
import type { GateRecord, PlanRecord, VerdictRecord } from "@mesh-core/core/gate/plan/records"
import type { MeshRecords } from "@mesh-core/core/mesh/records"
import { releaseRow } from "@mesh-core/core/gate/operator/release"

/**
 * app's build a2 released over a1 (commits `c` over `b`), open, its first tier hq-3 sent and judged:
 * `rest` the machines it holds at a1 until its gate passes, its second tier.
 */
export const appPlanOnHq3 = (rest: ReadonlyArray<string>): PlanRecord => ({
  id: "app-2",
  module: "app",
  build: "a2",
  commit: "c",
  previous: "b",
  previousBuild: "a1",
  machines: ["hq-3"],
  rest: [...rest],
  sentAt: 0,
  state: "open",
  note: "",
  tiers: [["hq-3"], [...rest]],
  tier: 0,
  sent: ["hq-3"],
})

/**
 * letta-205 released over letta-204 (commits `c` over `b`), open, sent at 0 to hq-1 with no machine
 * left: `over` gives the plan's own machines, tiers, what it sent and how it stands.
 */
export const lettaPlan = (over: Partial<PlanRecord> = {}): PlanRecord => ({
  id: "letta-205",
  module: "letta",
  build: "letta-205",
  commit: "c",
  previous: "b",
  previousBuild: "letta-204",
  machines: ["hq-1"],
  rest: [],
  sentAt: 0,
  state: "open",
  note: "",
  ...over,
})

/** A plan's gate opened at 0 and not judged yet: letta on hq-1, from `b` to `c`; `over` gives the rest. */
export const gateOpened = (over: Partial<GateRecord> = {}): GateRecord => ({
  component: "letta",
  machines: ["hq-1"],
  from: "b",
  to: "c",
  since: 0,
  passes: 0,
  last: "",
  failing: [],
  verdict: "",
  why: "",
  took: "",
  carried: [],
  rollback: "",
  ...over,
})

/** The gate's verdict on letta-205 as the store keeps it: failed on hq-1, which refused it, and put back. */
export const keptVerdict = (over: Partial<VerdictRecord> = {}): VerdictRecord => ({
  build: "letta-205",
  module: "letta",
  commit: "5e1f0c2a9b",
  previous: "a71c3d09e4",
  plan: "letta-205",
  machines: ["hq-1"],
  verdict: "failed",
  rollback: "rolled-back",
  why: "hq-1 refused what it was sent",
  component: "",
  judgingFrom: 0,
  ...over,
})

/** Four machines: letta on hq-1 and hq-2, grafana on hq-3 and hq-2, chat on hq-2 (hq-4 runs nothing). */
export const heldMesh: MeshRecords = {
  mesh: "hq",
  nodes: ["hq-1", "hq-2", "hq-3", "hq-4"],
  modules: [
    { name: "letta", build: "letta-205" },
    { name: "grafana", build: "grafana-9" },
    { name: "chat", build: "chat-4" },
  ],
  assignments: [
    { module: "letta", node: "hq-1" },
    { module: "letta", node: "hq-2" },
    { module: "grafana", node: "hq-3" },
    { module: "grafana", node: "hq-2" },
    { module: "chat", node: "hq-2" },
  ],
}

/** letta-205 over `heldMesh`: its first tier (hq-1) sent and judged, hq-2 its second. */
export const lettaOnFirstTier = lettaPlan({ rest: ["hq-2"], tiers: [["hq-1"], ["hq-2"]], tier: 0, sent: ["hq-1"] })

/** A mesh of letta alone, at `build`, on hq-3 and hq-4. */
export const lettaMesh = (build: string): MeshRecords => ({
  mesh: "hq",
  nodes: ["hq-3", "hq-4"],
  modules: [{ name: "letta", build }],
  assignments: [
    { module: "letta", node: "hq-3" },
    { module: "letta", node: "hq-4" },
  ],
})

/** `release MODULE --build --commit --first …` with no other tier, at 0, with no plan before it. */
export const released = (
  records: MeshRecords,
  module: string,
  build: string,
  commit: string,
  first: ReadonlyArray<string>,
) => releaseRow(records, [], { module, build, commit, first, then: [] }, 0)
