// A release plan as a release opens it, for tests that need one plan row to act on: open, its first
// machines sent the build, the rest waiting, not judged yet, with nothing noted.
import type { PlanRecord } from "@mesh-core/core/gate/plan/records"

export const openedPlan = (o: {
  readonly module: string
  readonly build: string
  readonly commit: string
  readonly first: ReadonlyArray<string>
  readonly rest: ReadonlyArray<string>
  readonly previousBuild: string
  readonly previousCommit: string | undefined
  readonly sentAt: number
}): PlanRecord => ({
  id: `${o.module}-${o.build}`,
  module: o.module,
  build: o.build,
  commit: o.commit,
  previous: o.previousCommit ?? "",
  previousBuild: o.previousBuild,
  machines: o.first,
  rest: o.rest,
  sentAt: o.sentAt,
  state: "open",
  note: "",
})

/** gw's build b2 over b1 (commits c2 over c1) opened at `sentAt` on m1, m2 the rest: the verbs' plan. */
export const gwPlan = (sentAt: number): PlanRecord =>
  openedPlan({
    module: "gw",
    build: "b2",
    commit: "c2",
    first: ["m1"],
    rest: ["m2"],
    previousBuild: "b1",
    previousCommit: "c1",
    sentAt,
  })
