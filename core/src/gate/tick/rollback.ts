// The rollback after a failed gate (seed 003's gateFailed): a gate program that asks for the facts it
// needs one at a time, in the seed's order, and stops where the seed stops:
//
//   unchanged by the send (issue 280)  → left as it was, never marked
//   no build id                        → not put back, said
//   the verdict already kept           → not made again (a restarted controller, a second controller)
//   no previous build                  → left with a first build, said
//   previous build not among those kept → not put back, said
//   otherwise                          → restore it and send, with everything else the send put back
//                                        on those machines, in one send per machine (issue 281)

import type { Program } from "../../program.ts"
import type { MoveQuestions } from "./questions.ts"
import type { BuildRecord, PlanRecord } from "../plan/records.ts"

/** A send that failed its gate: the plan's module, build and commits (the one before, the one sent), on its machines. */
export type Move = Pick<PlanRecord, "module" | "build" | "previous" | "commit"> & {
  readonly machines: ReadonlyArray<string>
}

/** What makes two builds the same thing: their source, and the artifacts a manifest made. */
export type BuildFacts = Pick<BuildRecord, "source" | "manifest" | "artifacts">

/**
 * A send that changed nothing of the module: the same commit, builds from the same source, or builds
 * that made the same artifacts from the same manifest, by what the build records say of the one
 * before (`from`) and the one sent (`to`). Each build's facts are its own record's, never the other's
 * (issue 280). Not known is changed.
 */
export const unchangedBy = (from: string, to: string, before?: BuildFacts, sent?: BuildFacts): boolean => {
  if (from === "" || to === "") return false
  if (from === to || from.startsWith(to) || to.startsWith(from)) return true
  if (before?.source !== undefined && before.source === sent?.source) return true
  // The artifacts are the same thing only when both builds' are known, from the same manifest.
  const made = before?.manifest !== undefined && before.artifacts !== undefined
  return made && before.manifest === sent?.manifest && before.artifacts === sent?.artifacts
}

export type PreviousBuild =
  | { readonly found: true; readonly build: string; readonly commit: string }
  | { readonly found: false; readonly why: string }

/** Whether this controller recorded the verdict, or found it kept. */
export type VerdictRecorded = "recorded" | "already-kept" | { readonly error: string }

/** The rollback decided. */
export type RollbackDecided =
  | { readonly rollback: "unchanged"; readonly said: string }
  | { readonly rollback: "not-rolled-back"; readonly said: string; readonly recordIt: boolean }
  | { readonly rollback: "already-kept"; readonly said: string }
  | { readonly rollback: "restore"; readonly build: string; readonly commit: string }

export const keptBuilds = 10

/**
 * The rollback decided as a gate program (issue 25), in the seed's order: each fact got by the program
 * given for it (what it asks is the gate's to say: recording the verdict, finding the previous build
 * among those kept). Recording the verdict may find the plan already acted on to its end: the decision
 * ends there (`ended`).
 */
export function* rollbackDecided(
  move: Move,
  why: string,
  unchanged: boolean,
  facts: {
    readonly recorded: () => Program<MoveQuestions, VerdictRecorded | "ended">
    readonly previousBuild: () => Program<MoveQuestions, PreviousBuild>
  },
): Program<MoveQuestions, RollbackDecided | "ended"> {
  const on = move.machines.join(", ")
  if (unchanged)
    return {
      rollback: "unchanged",
      said:
        `the send to ${on} failed its gate: ${why}; ${move.module} was left as it was — ${on} already ran ${move.module} ` +
        `${move.commit.slice(0, 7)}, or a build identical to it, before the send, so nothing of it moved and nothing is put back`,
    }
  if (move.build === "")
    return {
      rollback: "not-rolled-back",
      said: "not put back: the plan does not know which build it sent",
      recordIt: false,
    }
  const recorded = yield* facts.recorded()
  if (recorded === "ended") return "ended"
  if (recorded === "already-kept")
    return { rollback: "already-kept", said: "its rollback was already made once and is not made again" }
  if (recorded !== "recorded")
    return {
      rollback: "not-rolled-back",
      recordIt: false,
      said: `not put back: its verdict could not be kept, and a rollback that cannot be counted is not made — ${recorded.error}`,
    }
  if (move.previous === "")
    return {
      rollback: "not-rolled-back",
      recordIt: true,
      said:
        `NOT put back: this is the first build of ${move.module} that ${on} was sent, or what it was sent before is not known: ` +
        `there is no earlier build there to put back, so it is left with this one — \`unassign\` takes it off, a newer merge replaces it`,
    }
  const previous = yield* facts.previousBuild()
  if (!previous.found) return { rollback: "not-rolled-back", recordIt: true, said: `NOT put back: ${previous.why}` }
  return { rollback: "restore", build: previous.build, commit: previous.commit }
}

/** What the verdict of a build not put back keeps as its reason: the gate's, then why not (seed 003's notBack). */
export const notPutBackWhy = (gateWhy: string, said: string): string => `${gateWhy}; ${said}`

export const notAmongKept = (module: string, previous: string) =>
  `no build of ${module} from ${previous.slice(0, 7)}, asked before the failed one, is among the ${keptBuilds} newest kept to put back`

/**
 * Everything a failed send put back, sent together: one send per machine, each with every module
 * put back there, not a send for each module (the churn that failed the gate in the first place).
 */
export const batchRollbacks = (restores: ReadonlyArray<Pick<Move, "module" | "machines" | "build">>) => {
  const byMachine = new Map<string, Array<{ module: string; build: string }>>()
  for (const r of restores)
    for (const m of r.machines) {
      const list = byMachine.get(m) ?? []
      if (!list.some((x) => x.module === r.module)) list.push({ module: r.module, build: r.build })
      byMachine.set(m, list)
    }
  return [...byMachine.keys()].sort().map((machine) => ({ machine, modules: byMachine.get(machine)! }))
}
