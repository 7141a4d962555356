// `simulate FILE --sweep name=v1,v2,…`: the day replayed once per value, every replay fed each
// fact as the log is read once, and a table of what each came to (core/src/provisioner/sweep.ts).
import { open, writeFile } from "node:fs/promises"
import * as Effect from "effect/Effect"
import { dayPage, sweepRows } from "@mesh-core/core/provisioner/page"
import { settingOverrides } from "@mesh-core/core/provisioner/settings"
import type { Settings } from "@mesh-core/core/provisioner/model"
import {
  providerSweepPoints,
  sweepEnd,
  sweepFact,
  sweepJson,
  sweepReplay,
  sweepReport,
} from "@mesh-core/core/provisioner/sweep"
import { writeOut } from "../files/output.ts"
import { BadInput, type SimulateOptions } from "./options.ts"
import { readProviderLog } from "./provider-log.ts"
import { errorText } from "@mesh-core/core/error-text"

/** Writes the page; a file that cannot be written is said as the file and why. */
export const writePage = (out: string, page: string): Effect.Effect<void, BadInput> =>
  Effect.tryPromise({
    try: () => writeFile(out, page, "utf8"),
    catch: (e) => new BadInput({ said: `${out}: cannot be written: ${errorText(e)}`, cause: e }),
  })

/**
 * The page's file made (empty) before anything is replayed: a path that cannot be written is said
 * at once, not after the whole replay was printed (issue 27).
 */
export const canWritePage = (out: string): Effect.Effect<void, BadInput> =>
  Effect.tryPromise({
    try: async () => (await open(out, "w")).close(),
    catch: (e) => new BadInput({ said: `${out}: cannot be written: ${errorText(e)}`, cause: e }),
  })

export const simulateSweep = Effect.fn("Simulate.sweep")(function* (options: SimulateOptions) {
  const { file } = options
  const base = settingOverrides(options.set)
  if ("problem" in base) return yield* Effect.fail(new BadInput({ said: base.problem }))
  const points = providerSweepPoints(options.sweep ?? [])
  if ("problem" in points) return yield* Effect.fail(new BadInput({ said: points.problem }))
  const sweep = sweepReplay(points, base.overrides)
  let recorded: Settings | undefined
  const read = yield* readProviderLog(
    file,
    (fact) => {
      if (fact.fact === "started") recorded ??= fact.settings
      sweepFact(sweep, fact)
    },
    options.progress,
  )
  const rows = sweepEnd(sweep)
  const settings = recorded ?? read.settings
  yield* writeOut(
    `${(options.json ? [sweepJson(rows)] : sweepReport({ file, facts: read.facts, set: options.set, recorded: settings }, rows)).join("\n")}\n`,
  )
  if (options.html !== undefined) {
    yield* writePage(
      options.html,
      dayPage({ file, provider: read.provider, rows: sweepRows(rows, settings, base.overrides) }),
    )
  }
  return { facts: read.facts, rows }
})
