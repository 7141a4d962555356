// Release plans as the store keeps them, for tests of what a plan holds back, shows and says.
import type { GateRecord, PlanRecord, VerdictRecord } from "@mesh-core/core/gate/plan/records"

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
