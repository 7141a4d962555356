// A world that answers every question of a push (core/src/delivery/questions.ts) from the records
// given: nothing sent or reported yet, every act done, sequences numbered from 1. What a push's
// program is driven with by `runPure` in the tests of the push and of a plan's send.
import { draftAll, sequenceEach } from "@mesh-core/core/delivery/compose"
import type { PushQuestions } from "@mesh-core/core/delivery/questions"
import type { MeshRecords } from "@mesh-core/core/mesh/records"
import type { QuestionOf } from "@mesh-core/core/program"

export const pushWorld = (records: MeshRecords) => {
  let sequence = 0
  return (q: QuestionOf<PushQuestions>): unknown => {
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
  }
}

/** Each machine drafted from the records' index or its own, then sequenced: what a push's delivery does. */
export const composeEach = (
  index: Parameters<typeof draftAll>[0],
  names: ReadonlyArray<string>,
  sequences: Parameters<typeof sequenceEach>[2],
) => sequenceEach(draftAll(index, names), names, sequences)
