// Opening a release: which of a module's machines go first and which wait for the gate, and what
// the first machines ran before (what a failed gate would put back).
import type { MeshRecords } from "../delivery/records.ts"

export type ReleasePlan =
  | {
    readonly ok: true
    readonly first: ReadonlyArray<string>
    readonly rest: ReadonlyArray<string>
    /** The registered build the first machines run now, and its commit when known. */
    readonly previousBuild: string
    readonly previousCommit: string | undefined
    readonly records: MeshRecords
  }
  | { readonly ok: false; readonly problem: string }

export const planRelease = (
  records: MeshRecords, module: string, build: string, commit: string, first: ReadonlyArray<string>,
): ReleasePlan => {
  // issue 14: an empty build, or a first machine named twice (it was sent twice), is bad input
  if (build.trim() === "") return { ok: false, problem: "--build: give the new build's id (it is empty)" }
  if (commit.trim() === "") return { ok: false, problem: "--commit: give the commit the build was made from (it is empty)" }
  const twice = first.find((n, i) => first.indexOf(n) !== i)
  if (twice !== undefined) return { ok: false, problem: `--first: ${twice} is named twice` }
  const m = records.modules.find((x) => x.name === module)
  if (m === undefined) return { ok: false, problem: `no module named ${module} is registered` }
  const on = records.assignments.filter((a) => a.module === module).map((a) => a.node)
  const stray = first.find((n) => !on.includes(n))
  if (stray !== undefined) return { ok: false, problem: `${module} is not assigned to ${stray}; it runs on ${on.join(", ") || "no machine"}` }
  if (m.build === build) return { ok: false, problem: `${module} is at ${build} already` }
  return {
    ok: true, first, rest: on.filter((n) => !first.includes(n)), previousBuild: m.build, previousCommit: m.commit,
    // The new build becomes the module's registered one; a failed gate puts the previous back.
    records: { ...records, modules: records.modules.map((x) => (x.name === module ? { ...x, build, commit } : x)) },
  }
}
