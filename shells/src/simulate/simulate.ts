// `simulate FILE`: a recorded day replayed through the same core a live provider runs. The file is
// read once, a chunk at a time: every line is checked and replayed as it is read, and what is
// printed is held until the end (held-output.ts), so a bad line still stops it before anything is
// printed as a result. Memory stays flat however long the log.
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { dayReplay, type Decision, replayEnd, replayFact, type ReplayState } from "@mesh-core/core/provisioner/replay"
import type { Provider, Settings } from "@mesh-core/core/provisioner/model"
import { dayPage, replayRow } from "@mesh-core/core/provisioner/page"
import { decisionJson, summaryJson, summaryLines, timelineLine } from "@mesh-core/core/provisioner/render"
import { settingOverrides } from "@mesh-core/core/provisioner/settings"
import { type Summary, summaryGatherer } from "@mesh-core/core/provisioner/summary"
import { canOpen, lineChunks } from "../files/lines.ts"
import { writeErr } from "../files/output.ts"
import { shown, shownJson } from "@mesh-core/core/text/terminal-text"
import { simulateController, simulateControllerSweep } from "./controller.ts"
import { heldOutput } from "./held-output.ts"
import { BadInput, ReplayDiffers, type SimulateOptions } from "./options.ts"
import { type ReplayCounts, strictWithWhatIf, unreproduced } from "@mesh-core/core/strict"
import { readProviderLog, unreadable } from "./provider-log.ts"
import { canWritePage, simulateSweep, writePage } from "./sweep.ts"

export { BadInput, type SimulateOptions } from "./options.ts"

export interface SimulateResult {
  readonly facts: number
  readonly summary: Summary
  readonly replay: ReplayState
}

/** The area line 1 names: which core the log's facts are for. */
const areaOf = (file: string) =>
  Stream.runHead(lineChunks(file)).pipe(
    Effect.mapError(unreadable),
    Effect.map((first) => {
      try {
        const head = first._tag === "Some" ? first.value[0] : undefined
        const area = head === undefined ? undefined : (JSON.parse(head) as { area?: unknown }).area
        return typeof area === "string" ? area : undefined
      } catch {
        return undefined
      }
    }),
  )

export const simulate = Effect.fn("Simulate.simulate")(function* (options: SimulateOptions) {
  const whatIf = options.strict === true ? strictWithWhatIf(options.set, options.sweep ?? []) : undefined
  if (whatIf !== undefined) return yield* Effect.fail(new BadInput({ said: whatIf }))
  yield* canOpen(options.file).pipe(Effect.mapError(unreadable))
  if (options.html !== undefined) yield* canWritePage(options.html, options.file)
  if ((yield* areaOf(options.file)) === "controller") {
    if ((options.sweep ?? []).length > 0) return yield* simulateControllerSweep(options)
    const day = yield* simulateController(options)
    return yield* strictly(options, day.counts)
  }
  if ((options.sweep ?? []).length > 0) return yield* simulateSweep(options)
  const day = yield* simulateProvisioner(options)
  return yield* strictly(options, day.replay)
})

/** Under `--strict`, a replay that does not reproduce the day ends non-zero, saying why. */
const strictly = (options: SimulateOptions, counts: ReplayCounts): Effect.Effect<ReplayCounts, ReplayDiffers> => {
  const why = options.strict === true ? unreproduced(counts) : undefined
  return why === undefined ? Effect.succeed(counts) : Effect.fail(new ReplayDiffers({ said: why }))
}

const simulateProvisioner = (options: SimulateOptions): Effect.Effect<SimulateResult, BadInput> =>
  Effect.scoped(
    Effect.gen(function* () {
      const { file } = options
      const chosen = settingOverrides(options.set)
      if ("problem" in chosen) return yield* Effect.fail(new BadInput({ said: chosen.problem }))
      // Checked and replayed in one reading; what it prints is held until the last line has been read.
      const held = yield* heldOutput
      const day = dayReplay(chosen.overrides)
      const summary = summaryGatherer()
      let provider: Provider | undefined
      let settings: Settings | undefined
      const render = (decisions: ReadonlyArray<Decision>) => {
        for (const d of decisions) {
          summary.add(d)
          const text = options.json ? decisionJson(d) : timelineLine(d, provider!)
          if (text !== undefined) held.push(`${options.json ? shownJson(text) : shown(text)}\n`)
        }
      }
      const read = yield* readProviderLog(
        file,
        (fact) => {
          if (fact.fact === "started") {
            provider = fact.provider
            settings ??= fact.settings
          }
          render(replayFact(day, fact))
        },
        options.progress,
      )
      render(replayEnd(day))
      const r = day.replay
      const counts = {
        facts: read.facts,
        passes: r.passes,
        inferred: r.inferred,
        unasked: r.unasked,
        cut: r.cut,
        runs: r.runs,
      }
      const result = summary.result()
      held.push(
        `${(options.json ? [shownJson(summaryJson(result, counts))] : summaryLines(result, counts).map(shown)).join("\n")}\n`,
      )
      yield* held.release
      if (options.html !== undefined) {
        const row = replayRow(result, settings ?? read.settings, chosen.overrides, options.set)
        yield* writePage(options.html, dayPage({ file, provider: read.provider, rows: [row] }))
      }
      return { facts: read.facts, summary: result, replay: r }
    }),
  )

/** Progress on standard error, for a person at a terminal: a line every few seconds. */
export const terminalProgress = (file: string): ((lines: number) => void) | undefined => {
  if (!process.stderr.isTTY) return undefined
  let last = Date.now()
  return (lines) => {
    const now = Date.now()
    if (now - last < 2_000) return
    last = now
    Effect.runSync(writeErr(`simulate: ${file}: ${lines.toLocaleString("en")} lines replayed\n`))
  }
}
