// The rollback program run with the facts given, as the gate's rule tests drive it: a fact it asks for
// and is not given throws, naming it; a question of its own throws too.
import {
  type Move,
  type PreviousBuild,
  rollbackDecided,
  type VerdictRecorded,
} from "@mesh-core/core/gate/tick/rollback"
import { runPure } from "@mesh-core/core/program"

export const decideRollback = (
  m: Move,
  why: string,
  f: { readonly unchanged: boolean; readonly recorded?: VerdictRecorded; readonly previousBuild?: PreviousBuild },
) =>
  runPure(
    rollbackDecided(m, why, f.unchanged, {
      // biome-ignore lint/correctness/useYield: a fact given, asked of nobody
      recorded: function* () {
        if (f.recorded === undefined) throw new Error("asked: record-verdict")
        return f.recorded
      },
      // biome-ignore lint/correctness/useYield: a fact given, asked of nobody
      previousBuild: function* () {
        if (f.previousBuild === undefined) throw new Error("asked: previous-build")
        return f.previousBuild
      },
    }),
    () => {
      throw new Error("the rollback asked a question of its own")
    },
  ).result
