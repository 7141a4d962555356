// `simulate FILE --sweep name=v1,v2,…`: the day replayed once per value, every replay fed each
// fact as the log is read once, and a table of what each came to (core/src/provisioner/sweep.ts).
import { writeFile } from "node:fs/promises"
import { Effect } from "effect"
import { dayPage } from "@mesh-core/core/provisioner/page"
import { settingOverrides } from "@mesh-core/core/provisioner/settings"
import { providerSweepPoints, sweepEnd, sweepFact, sweepJson, sweepReplay, sweepTable } from "@mesh-core/core/provisioner/sweep"
import { formatDuration } from "@mesh-core/core/duration"
import { settingNames, type Settings } from "@mesh-core/core/provisioner/model"
import { writeOut } from "../files/output.ts"
import { BadInput, type SimulateOptions } from "./options.ts"
import { readProviderLog } from "./provider-log.ts"

/** Writes the page; a file that cannot be written is said as the file and why. */
export const writePage = (out: string, page: string): Effect.Effect<void, BadInput> =>
  Effect.tryPromise({
    try: () => writeFile(out, page, "utf8"),
    catch: (e) => new BadInput({ said: `${out}: cannot be written: ${e instanceof Error ? e.message : String(e)}` }),
  })

export const simulateSweep = (options: SimulateOptions) =>
  Effect.gen(function*() {
    const { file } = options
    const base = settingOverrides(options.set)
    if ("problem" in base) return yield* Effect.fail(new BadInput({ said: base.problem }))
    const points = providerSweepPoints(options.sweep ?? [])
    if ("problem" in points) return yield* Effect.fail(new BadInput({ said: points.problem }))
    const sweep = sweepReplay(points, base.overrides)
    let recorded: Settings | undefined
    const read = yield* readProviderLog(file, (fact) => {
      if (fact.fact === "started") recorded ??= fact.settings
      sweepFact(sweep, fact)
    }, options.progress)
    const rows = sweepEnd(sweep)
    if (options.json) {
      yield* writeOut(`${sweepJson(rows)}\n`)
    } else {
      const settings = recorded ?? read.settings
      yield* writeOut([
        `sweep of ${file}: ${read.facts} facts, each replayed ${rows.length} times in one reading` +
        (options.set.length === 0 ? "" : `, with ${options.set.join(" ")}`),
        "",
        ...sweepTable(rows),
        "",
        `recorded under ${settingNames.map((n) => `${n}=${formatDuration(settings[n])}`).join(" ")}`,
        `failing, recovered: announcements made. first failure → first announcement: over the runs announced. ` +
        `unannounced: how long failing consumers went unannounced, added over every run. runs: failing runs (of them announced). ` +
        `said: lines in the journal. inferred: answers the recording did not have.`,
      ].join("\n") + "\n")
    }
    if (options.html !== undefined) {
      const recordedSettings = recorded ?? read.settings
      const page = dayPage({
        file,
        provider: read.provider,
        rows: rows.map((r) => ({
          label: r.point.label,
          settings: { ...recordedSettings, ...base.overrides, ...Object.fromEntries(r.point.values.map((v) => [v.name, v.value])) },
          day: r.day,
          figures: r.figures,
        })),
      })
      yield* writePage(options.html, page)
    }
    return { facts: read.facts, rows }
  })
