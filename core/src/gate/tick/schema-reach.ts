// Schema reach (novox/hq issue 352, seed 004): which migration of the store each build of the
// controller reads up to, recorded by `serve` at start, and the gate's rule that a build that cannot
// read the store as it is is never put back. A rollback to a controller built before a migration
// ran would start against tables it does not know, and act on them as if it did.
import * as Schema from "effect/Schema"
import { done, type Outcome, type Readable } from "../../outcome.ts"
import { type Program, programsOf } from "../../program.ts"
import { act, read, type StoreReachRecord } from "./questions.ts"
import { ComponentController, coreComponent } from "../judging/facts.ts"
import type { PreviousBuild } from "./rollback.ts"

/** The environment setting that tells `serve` which build it is (the seed's RunningBuildVar). */
export const runningBuildVar = "MESH_BUILD"

/** A build as the environment names it: no spaces; empty is not told. */
export const RunningBuild = Schema.String.check(
  Schema.makeFilter((s: string) => (/^[^\s]*$/.test(s) ? undefined : "a build id, without spaces")),
)

const migrationNumber = (n: number): string => String(n).padStart(4, "0")

/**
 * What `serve` asks at start to say what it reads of the store's schema: a namespace of its own (the
 * controller's log does not record it), named `…-reach` so no kind means two questions.
 */
export const reachQuestions = {
  /** The highest migration this build carries. */
  "carried-reach": read("carried-reach", {}, Schema.Number),
  /** Record it against the build. */
  "record-reach": act("record-reach", { build: Schema.String, reach: Schema.Number }),
}
const Reach = programsOf(reachQuestions)

/**
 * `serve`'s three sentences at start, in the seed's order: recorded; not recorded, and why; or not told
 * which build it is, so never put back. The shell answers (the migrations it carries, an insert) and
 * says what it returns.
 */
export function* schemaReachAtStart(build: string | undefined): Program<typeof reachQuestions, string> {
  if (build === undefined || build === "") {
    return (
      `this process was not told which build it is (${runningBuildVar}), so what it reads of the store's schema is not ` +
      "recorded, and a gate will never put it back"
    )
  }
  const reach = yield* Reach.ask({ q: "carried-reach" })
  if (!reach.ok) return `what this build reads of the store's schema is not recorded: ${reach.why}`
  const recorded = yield* Reach.ask({ q: "record-reach", build, reach: reach.value })
  if (!recorded.ok) return `what this build (${build}) reads of the store's schema is not recorded: ${recorded.why}`
  return `this build (${build}) reads the store's schema up to migration ${migrationNumber(reach.value)}; recorded`
}

/** The highest migration among those a build carries (the seed's schemaReach); 0 when it carries none. */
export const reachOf = (versions: ReadonlyArray<number>): number => versions.reduce((a, b) => Math.max(a, b), 0)

export type StoreReach = typeof StoreReachRecord.Type

/**
 * Whether a build may be put back as far as the store goes: only a controller's build reads the store,
 * and it may only when it recorded that it reads the store up to the migration it is at now, or
 * further. Not known is never yes.
 */
export const readsTheStore = (module: string, build: string, facts: Readable<StoreReach>): Outcome => {
  const cannot = (why: string): Outcome => ({ ok: false, why })
  if (coreComponent(module) !== ComponentController) return done
  if (!facts.ok) return cannot(`what build ${build} reads of the store's schema cannot be read: ${facts.why}`)
  const { storeAt, reach } = facts.value
  if (reach === undefined)
    return cannot(
      `build ${build} never recorded which migration of the store it reads up to (it ran without ${runningBuildVar}), so whether it ` +
        `can read the store as it is now (migration ${migrationNumber(storeAt)}) is not known`,
    )
  if (reach < storeAt)
    return cannot(
      `build ${build} reads the store's schema up to migration ${migrationNumber(reach)}, and the store is at migration ` +
        `${migrationNumber(storeAt)} now: it cannot read the store as it is`,
    )
  return done
}

/** The rollback's previous build, refused when it cannot read the store as it is (the rollback then says `NOT put back: why`). */
export const putBackOnlyIfItReads = (
  module: string,
  previous: PreviousBuild,
  facts: Readable<StoreReach>,
): PreviousBuild => {
  if (!previous.found) return previous
  const r = readsTheStore(module, previous.build, facts)
  return r.ok ? previous : { found: false, why: r.why }
}
