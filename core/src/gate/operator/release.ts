// Opening a release: which of a module's machines go first and which wait for the gate, and what
// the first machines ran before (what a failed gate would put back).
import type { MeshRecords } from "../../mesh/records.ts"
import { rfc3339 } from "../../duration.ts"
import type { BuildRecord, PlanRecord, Sent } from "../plan/records.ts"
import { type Program, programsOf } from "../../program.ts"
import { type ReleaseQuestions, releaseQuestions } from "./questions.ts"
import { afterTierSend, phaseOf, tierGate } from "../plan/plan.ts"
import { tierMovedWords } from "../tick/carried.ts"
import { tierSend } from "../tick/questions.ts"
import { textBounds, textProblem } from "../../person.ts"

const { ask, say } = programsOf(releaseQuestions)

// ---- release in tiers (seed 003, issue 9) ----
// `release MODULE --build B --commit C --first hq-3 [--then hq-4,hq-5]…`: each tier judged by the
// gate before the next is sent; the module's machines in no tier are the rest, sent once the last
// tier passed. The plan is saved before anything is registered or sent, so from its first moment it
// holds every machine it has not reached (core/src/delivery/held.ts); a first send that reaches no
// machine leaves nothing registered.

export interface ReleaseInputs {
  readonly module: string
  readonly build: string
  readonly commit: string
  readonly source?: string | undefined
  /**
   * `--manifest` and `--artifacts`: the fingerprints of the manifest the build was made from and of
   * the artifacts it made. A send between two builds with the same of both changed nothing (seed 003's
   * unchangedBy), so a failed gate leaves it as it was. One without the other is refused.
   */
  readonly manifest?: string | undefined
  readonly artifacts?: string | undefined
  /** `--first`, repeatable. */
  readonly first: ReadonlyArray<string>
  /** Each `--then`, a tier of machines separated by commas. */
  readonly then: ReadonlyArray<string>
  /**
   * `--dry-run` (issue 10, Argo's dryRun): the first tier is sent the build and judged as a real gate
   * would, and what it would have decided is said; nothing is registered (so nothing is held and no
   * push sends it), and nothing else is sent or put back.
   */
  readonly dryRun?: boolean | undefined
}

export type ReleaseRow =
  | {
      readonly ok: true
      readonly plan: PlanRecord
      readonly records: MeshRecords
      readonly builds: ReadonlyArray<BuildRecord>
    }
  | { readonly ok: false; readonly problem: string }

const refuse = (problem: string): ReleaseRow => ({ ok: false, problem })

/** A plan's id: its build, when the build names its module (letta-205), else module-build. */
export const planId = (module: string, build: string): string =>
  build.startsWith(`${module}-`) ? build : `${module}-${build}`

/** The tiers as given: `--first` machines, then each `--then` split at its commas. */
export const tiersGiven = (
  first: ReadonlyArray<string>,
  then: ReadonlyArray<string>,
): { readonly tiers: ReadonlyArray<ReadonlyArray<string>> } | { readonly problem: string } => {
  const tiers: Array<ReadonlyArray<string>> = [first.map((m) => m.trim())]
  for (const t of then) {
    const machines = t.split(",").map((m) => m.trim())
    if (machines.some((m) => m === ""))
      return {
        problem: `--then: ${JSON.stringify(t)} names an empty machine; give machines separated by commas, as in --then hq-4,hq-5`,
      }
    tiers.push(machines)
  }
  if (tiers[0]!.some((m) => m === "")) return { problem: "--first: give a machine's name (it is empty)" }
  const seen = new Map<string, number>()
  for (const [i, tier] of tiers.entries())
    for (const m of tier) {
      const was = seen.get(m)
      if (was === i) return { problem: `${i === 0 ? "--first" : "--then"}: ${m} is named twice` }
      if (was !== undefined) return { problem: `${m} is named in tier ${was + 1} and again in tier ${i + 1}` }
      seen.set(m, i)
    }
  return { tiers }
}

/**
 * The plan a release opens, from the command's inputs, or the sentence that refuses it: a module
 * with a plan still in flight takes no second release until that one ends (two plans of one module
 * would each hold the other's machines).
 */
export const releaseRow = (
  records: MeshRecords,
  inFlight: ReadonlyArray<PlanRecord>,
  i: ReleaseInputs,
  now: number,
): ReleaseRow => {
  const given = tiersGiven(i.first, i.then)
  if ("problem" in given) return refuse(given.problem)
  if ((i.manifest === undefined) !== (i.artifacts === undefined))
    return refuse(
      `${i.manifest === undefined ? "--artifacts" : "--manifest"} without ${i.manifest === undefined ? "--manifest" : "--artifacts"}: the artifacts a build made are the same thing only from the same manifest, so give both or neither`,
    )
  const open = inFlight.find((p) => p.module === i.module)
  if (open !== undefined)
    return refuse(
      `plan ${open.id} of ${i.module} is ${open.state} (${phaseOf(open)}): a new release of it waits until that plan ends`,
    )
  // issue 14: an empty build is bad input
  if (i.build.trim() === "") return refuse("--build: give the new build's id (it is empty)")
  if (i.commit.trim() === "") return refuse("--commit: give the commit the build was made from (it is empty)")
  // issue 43: a 100,000-character build was kept
  for (const [flag, t] of [
    ["--build", i.build],
    ["--commit", i.commit],
  ] as const)
    if (t.length > textBounds.build) return refuse(`${flag}: ${textProblem(t, textBounds.build)}`)
  const m = records.modules.find((x) => x.name === i.module)
  if (m === undefined) return refuse(`no module named ${i.module} is registered`)
  const all = given.tiers.flat()
  const on = records.assignments.filter((a) => a.module === i.module).map((a) => a.node)
  const stray = all.find((n) => !on.includes(n))
  if (stray !== undefined)
    return refuse(`${i.module} is not assigned to ${stray}; it runs on ${on.join(", ") || "no machine"}`)
  if (m.build === i.build) return refuse(`${i.module} is at ${i.build} already`)
  const builds: Array<BuildRecord> = []
  // What the machines ran before: the registered build, kept so a rollback can find it.
  if (m.commit !== undefined) builds.push({ build: m.build, module: i.module, commit: m.commit })
  builds.push({
    build: i.build,
    module: i.module,
    commit: i.commit,
    ...(i.source === undefined ? {} : { source: i.source }),
    ...(i.manifest === undefined || i.artifacts === undefined ? {} : { manifest: i.manifest, artifacts: i.artifacts }),
  })
  return {
    ok: true,
    // The new build becomes the module's registered one; a failed gate puts the previous back.
    records: {
      ...records,
      modules: records.modules.map((x) => (x.name === i.module ? { ...x, build: i.build, commit: i.commit } : x)),
    },
    builds,
    plan: {
      id: planId(i.module, i.build),
      module: i.module,
      build: i.build,
      commit: i.commit,
      previous: m.commit ?? "",
      ...(m.build === "" ? {} : { previousBuild: m.build }),
      machines: given.tiers[0]!,
      rest: on.filter((n) => !all.includes(n)),
      sentAt: now,
      state: "open",
      note: "",
      tiers: given.tiers,
      tier: 0,
      sent: [],
    },
  }
}

/**
 * A dry run's plan id: its own, stamped with when it began (letta-205-dry-run-20261203T085210Z), so a
 * dry run never takes the id the real release of the build will have, and each dry run is its own row.
 */
export const dryRunId = (id: string, now: number): string => `${id}-dry-run-${rfc3339(now).replace(/[-:]/g, "")}`

export interface Released {
  /** 0 sent and judged from here; 1 not all was sent; 2 refused; 3 the store cannot be read. */
  readonly code: 0 | 1 | 2 | 3
  readonly said: string
  readonly plan: PlanRecord | undefined
}

/** A release refused (2), or stopped before anything was kept (3): no plan. */
const nothing = (code: 2 | 3, said: string): Released => ({ code, said, plan: undefined })

/**
 * `release` as a program: the plan saved first, then the build registered, then its first tier sent.
 * A first send that reaches no machine puts the registered build back and ends the plan; one that
 * reaches some keeps it open, and serve's gate sends the rest of the tier again on every tick.
 */
export function* releaseProgram(i: ReleaseInputs, now: number): Program<ReleaseQuestions, Released> {
  const records = yield* ask({ q: "mesh-records-read" })
  if (!records.ok) return nothing(3, `the mesh's records cannot be read: ${records.why}`)
  if (records.value === null)
    return nothing(2, "the mesh has no records yet: give them with mesh-controller mesh apply FILE")
  const inFlight = yield* ask({ q: "plans-in-flight" })
  if (!inFlight.ok) return nothing(3, `the release plans cannot be read: ${inFlight.why}`)
  const row = releaseRow(records.value, inFlight.value, i, now)
  if (!row.ok) return nothing(2, row.problem)
  // A build that failed its gate is not sent again (seed 003: registration refuses it).
  const judged = yield* ask({ q: "verdict-of", build: i.build })
  if (!judged.ok) return nothing(3, `whether ${i.build} was judged before cannot be read: ${judged.why}`)
  if (judged.value !== null && judged.value.verdict.verdict === "failed") {
    const v = judged.value.verdict
    return nothing(
      2,
      `${i.build} failed its gate on ${v.machines.join(", ")} (plan ${v.plan}): ${v.why} — a build that failed its gate is not sent again; release a newer one`,
    )
  }
  if (i.dryRun === true)
    return yield* dryRunRelease({ ...row.plan, id: dryRunId(row.plan.id, now), dryRun: true, triedAt: now })
  for (const build of row.builds) {
    const kept = yield* ask({ q: "record-build", build })
    if (!kept.ok) return nothing(3, `the build ${build.build} cannot be recorded, so nothing is released: ${kept.why}`)
  }
  // Saved as about to be sent: serve's gate leaves the first send to this command (firstSendLeftFor).
  const plan: PlanRecord = { ...row.plan, triedAt: now }
  const saved = yield* ask({ q: "save-plan", plan })
  if (!saved.ok) return nothing(3, `the plan cannot be kept, so nothing is registered or sent: ${saved.why}`)
  const registered = yield* ask({ q: "set-build", module: plan.module, build: plan.build, commit: plan.commit })
  if (!registered.ok) {
    const ended: PlanRecord = {
      ...plan,
      state: "failed",
      note: `${plan.build} could not be registered, so nothing was sent: ${registered.why}`,
    }
    yield* ask({ q: "save-plan", plan: ended })
    return { code: 3, said: ended.note, plan: ended }
  }
  const first = plan.tiers![0]!
  const sent = yield* ask(tierSend(plan, first))
  if (!sent.told.some((m) => first.includes(m))) {
    // Nothing reached: nothing registered either, so no push sends the build anywhere.
    const back =
      plan.previousBuild === undefined
        ? { ok: false as const, why: `${plan.module} had no registered build before` }
        : yield* ask({ q: "set-build", module: plan.module, build: plan.previousBuild, commit: plan.previous })
    if (!back.ok) {
      const note = `its first send reached no machine (${sent.error ?? "none told"}); it stays open and holds every machine of ${plan.module}, and serve's gate sends tier 1 again`
      yield* ask({ q: "save-plan", plan: { ...plan, note, tries: 1 } })
      return { code: 1, said: `plan ${plan.id}: ${note}`, plan: { ...plan, note } }
    }
    return yield* ended(
      plan,
      `its first send reached no machine: ${sent.error ?? "none told"}; nothing is registered: ${plan.module} stays at ${plan.previousBuild}`,
    )
  }
  const later = plan.tiers!.slice(1).map((t, n) => `tier ${n + 2} (${t.join(", ")})`)
  const then = [...later, ...(plan.rest.length > 0 ? [`the rest (${plan.rest.join(", ")})`] : [])]
  const r = yield* firstTierSent(plan, sent, "", `; the gate judges it there`)
  return r.code === 0 && then.length > 0
    ? { ...r, said: `${r.said}; then, each once the gate passes, ${then.join(", then ")}` }
    : r
}

/** A plan ended before anything of it was judged, saved and said. */
function* ended(plan: PlanRecord, note: string): Program<ReleaseQuestions, Released> {
  const end: PlanRecord = { ...plan, state: "failed", note }
  yield* ask({ q: "save-plan", plan: end })
  return { code: 1, said: `plan ${plan.id}: ${end.note}`, plan: end }
}

/**
 * The first tier's send kept: the gate opened on it when every machine of it was told (0), else what
 * is not sent yet, which serve's gate sends again (1). A dry run's words say so.
 */
function* firstTierSent(
  plan: PlanRecord,
  sent: Sent,
  dry: string,
  judged: string,
): Program<ReleaseQuestions, Released> {
  const first = plan.tiers![0]!
  const told = sent.told.filter((m) => first.includes(m))
  const at = yield* ask({ q: "now" })
  const all = told.length === first.length
  const moved = afterTierSend(plan, told, sent)
  const note = all
    ? `${dry}${plan.module} ${plan.build} sent to tier 1 (${first.join(", ")})${judged}${tierMovedWords(moved)}`
    : `${dry}tier 1: ${first.filter((m) => !told.includes(m)).join(", ")} not sent yet (${sent.error ?? "not told"}); serve's gate sends it again`
  // Its gate opens once every machine of the tier was told.
  const next: PlanRecord = { ...moved, ...(all ? { gate: tierGate(moved, at) } : {}), note }
  const kept = yield* ask({ q: "save-plan", plan: next })
  if (!kept.ok)
    yield* say(`plan ${plan.id}: what was sent could not be kept (serve's gate sends tier 1 again): ${kept.why}`)
  return { code: all ? 0 : 1, plan: next, said: `plan ${plan.id}: ${next.note}` }
}

/**
 * A dry run's release: the plan saved, then its first tier sent the build, composed on those machines
 * only (`send-plan` with `build`); nothing registered, recorded or held. serve's gate judges it and
 * says what it would have decided, and does nothing of it.
 */
function* dryRunRelease(plan: PlanRecord): Program<ReleaseQuestions, Released> {
  const saved = yield* ask({ q: "save-plan", plan })
  if (!saved.ok) return nothing(3, `the plan cannot be kept, so nothing is sent: ${saved.why}`)
  const first = plan.tiers![0]!
  const sent = yield* ask(tierSend(plan, first))
  if (!sent.told.some((m) => first.includes(m)))
    return yield* ended(
      plan,
      `dry run: its first send reached no machine (${sent.error ?? "none told"}); nothing was registered or judged`,
    )
  return yield* firstTierSent(
    plan,
    sent,
    "dry run: ",
    " and judged there; what the gate would decide is said, and nothing else is sent",
  )
}
