// `simulate FILE --sweep name=v1,v2,…`: the day replayed once per value, every replay fed each
// fact as the log is read once, and a table of what each came to (core/src/provisioner/sweep.ts).
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
import { cannotWriteOver, writeBeside, writeLines, writeOut } from "../files/output.ts"
import { shownJson } from "@mesh-core/core/text/terminal-text"
import { BadInput, type SimulateOptions } from "./options.ts"
import { readProviderLog } from "./provider-log.ts"

/** Writes the page beside its path and renames it into place; a file that cannot be written is said as the file and why. */
export const writePage = (out: string, page: string): Effect.Effect<void, BadInput> =>
  writeBeside(out, page).pipe(
    Effect.mapError((e) => new BadInput({ said: `${out}: cannot be written: ${e.message}`, cause: e })),
  )

/**
 * Whether the page can be written, said before anything is replayed (issue 27): never over the fact
 * log being read, by any name, nor over anything but a regular file (issue 43).
 */
export const canWritePage = (out: string, input: string): Effect.Effect<void, BadInput> =>
  Effect.suspend(() => {
    const why = cannotWriteOver(out, [input])
    return why === undefined ? Effect.void : Effect.fail(new BadInput({ said: `${out}: cannot be written: ${why}` }))
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
  yield* options.json
    ? writeOut(`${shownJson(sweepJson(rows))}\n`)
    : writeLines(sweepReport({ file, facts: read.facts, set: options.set, recorded: settings }, rows))
  if (options.html !== undefined) {
    yield* writePage(
      options.html,
      dayPage({ file, provider: read.provider, rows: sweepRows(rows, settings, base.overrides) }),
    )
  }
  return { facts: read.facts, rows }
})
