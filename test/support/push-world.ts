// A world that answers every question of a push (core/src/delivery/questions.ts) from the records
// given: nothing sent or reported yet, every act done, sequences numbered from 1. What a push's
// program is driven with by `runPure` in the tests of the push and of a plan's send.
import { draftAll, sequenceEach } from "@mesh-core/core/delivery/compose"
import type { PushQuestions } from "@mesh-core/core/delivery/questions"
import type { MeshRecords } from "@mesh-core/core/mesh/records"
import type { QuestionOf } from "@mesh-core/core/program"

/**
 * An answerer that refuses past `limit` questions. A push of a test's few machines asks tens of
 * questions, so one asking thousands is in a loop (a flush that never ends, a wait that never gives
 * up): it fails at once rather than hang its run, so a mutant making such a loop endless is killed,
 * not left to time out (issue 42).
 */
export const bounded = <Q, A>(answer: (q: Q) => A, limit = 10_000): ((q: Q) => A) => {
  let asked = 0
  return (q) => {
    asked += 1
    if (asked > limit) throw new Error(`more than ${limit} questions: the program is in a loop`)
    return answer(q)
  }
}

export const pushWorld = (records: MeshRecords) => {
  let sequence = 0
  return bounded((q: QuestionOf<PushQuestions>): unknown => {
    switch (q.q) {
      case "mesh-records":
        return records
      case "machines":
        return records.nodes
      case "plans-holding":
      case "sent":
      case "reports":
        return []
      case "report-of":
        return null
      case "now":
        return 0
      case "message-limit":
        return 1024 * 1024
      case "allot":
        return { sequence: ++sequence }
      default:
        return { ok: true }
    }
  })
}

/** Each machine drafted from the records' index or its own, then sequenced: what a push's delivery does. */
export const composeEach = (
  index: Parameters<typeof draftAll>[0],
  names: ReadonlyArray<string>,
  sequences: Parameters<typeof sequenceEach>[2],
) => sequenceEach(draftAll(index, names), names, sequences)

/** hq-1 holds the bus and carries its user list; app (at `appBuild`) on hq-3 and hq-4 requires postgres on hq-2. */
export const appMeshOf = (appBuild = "a1", more: Partial<MeshRecords> = {}): MeshRecords => ({
  mesh: "t",
  nodes: ["hq-1", "hq-2", "hq-3", "hq-4"],
  modules: [
    { name: "broker", build: "b1", busUsers: true, claims: ["bus"], subscribes: ["mesh.>"] },
    { name: "postgres", build: "p1", receives: ["postgres"], states: ["roles"] },
    { name: "app", build: appBuild, requires: ["postgres"], publishes: ["app.>"] },
    ...(more.modules ?? []),
  ],
  assignments: [
    { module: "broker", node: "hq-1" },
    { module: "postgres", node: "hq-2" },
    { module: "app", node: "hq-3" },
    { module: "app", node: "hq-4" },
    ...(more.assignments ?? []),
  ],
})
