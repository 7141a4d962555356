// `simulate` over a controller's fact log (area "controller"): read once, a chunk at a time, every
// line checked and replayed through the same programs `serve` ran (core/src/controller/replay.ts)
// as it is read, and what it prints held until the last line has been read (held-output.ts), so a
// bad line still stops it before anything is printed as a result (reading the file twice was most
// of a week's replay, issue 11). `--sweep` replays it once per value of the gate's settings in the
// same one reading (core/src/controller/sweep.ts). This reads, feeds and writes; it decides nothing.
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import {
  type ControllerFact,
  type ControllerHeader,
  type ControllerReader,
  freshControllerReader,
  gateSettingOverrides,
  gateSettingsOf,
  readControllerNext,
} from "@mesh-core/core/controller/log"
import type { BadLine } from "@mesh-core/core/provisioner/log"
import {
  type ControllerDecision,
  type ControllerReplay,
  feedController,
  finishController,
  settingsWith,
  startControllerReplay,
} from "@mesh-core/core/controller/replay"
import {
  decisionJson,
  freshTally,
  summaryJson,
  summaryLines,
  tallyProgram,
  timelineLines,
} from "@mesh-core/core/controller/render"
import {
  gateSweep,
  gateSweepEnd,
  gateSweepFact,
  gateSweepJson,
  gateSweepPoints,
  gateSweepReport,
  gateSweepStart,
} from "@mesh-core/core/controller/sweep"
import { controllerPage, controllerRow, pageGatherer } from "@mesh-core/core/controller/page"
import { writePage } from "./sweep.ts"
import { type FileUnreadable, type LineRefused, lineChunks } from "../files/lines.ts"
import { writeLines, writeOut } from "../files/output.ts"
import { shown, shownJson } from "@mesh-core/core/text/terminal-text"
import { heldOutput } from "./held-output.ts"
import { BadInput, type SimulateOptions } from "./options.ts"

const badLine = (file: string, b: BadLine) => new BadInput({ said: `${file}:${b.line}: ${b.field}: ${b.problem}` })
const unreadable = (e: FileUnreadable | LineRefused) => new BadInput({ said: e.message, cause: e })

/**
 * One reading of a controller's log: every line checked, the header handed to `begin` and each
 * fact to `feed` as it is read. A bad line fails it; what `feed` made of the lines before is dropped.
 */
const readControllerLog = (
  options: SimulateOptions,
  begin: (header: ControllerHeader) => void,
  feed: (fact: ControllerFact) => void,
) =>
  Effect.gen(function* () {
    const { file } = options
    let reader: ControllerReader = freshControllerReader
    yield* Stream.runForEach(lineChunks(file), (lines) => {
      for (const text of lines) {
        const r = readControllerNext(reader, text)
        if (!r.ok) return Effect.fail(badLine(file, r.bad))
        if (reader.header === undefined && r.state.header !== undefined) begin(r.state.header)
        reader = r.state
        if (r.fact !== undefined) feed(r.fact)
      }
      options.progress?.(reader.line)
      return Effect.void
    }).pipe(Effect.mapError((e) => (e instanceof BadInput ? e : unreadable(e))))
    if (reader.header === undefined)
      return yield* Effect.fail(
        badLine(file, { line: 1, field: "format", problem: "the log is empty: its first line must name the format" }),
      )
    return reader.header
  })

export const simulateController = Effect.fn("Simulate.controller")(function* (options: SimulateOptions) {
  const chosen = gateSettingOverrides(options.set)
  if ("problem" in chosen) return yield* Effect.fail(new BadInput({ said: chosen.problem }))
  const settingsAt = settingsWith(chosen.overrides)
  const held = yield* heldOutput
  let state: ControllerReplay | undefined
  const tally = freshTally()
  const page = options.html === undefined ? undefined : pageGatherer()
  const render = (decisions: ReadonlyArray<ControllerDecision>) => {
    if (decisions.length === 0) return
    tallyProgram(tally, decisions)
    page?.add(decisions)
    const lines = options.json ? decisions.map((d) => shownJson(decisionJson(d))) : timelineLines(decisions).map(shown)
    if (lines.length > 0) held.push(`${lines.join("\n")}\n`)
  }
  yield* readControllerLog(
    options,
    (header) => {
      state = startControllerReplay(gateSettingsOf({ ...header.settings.gate, ...chosen.overrides }))
    },
    (fact) => {
      const fed = feedController(state!, fact, settingsAt)
      state = fed.state
      render(fed.decisions)
    },
  )
  const end = finishController(state!)
  render(end.decisions)
  held.push(
    `${(options.json ? [shownJson(summaryJson(tally, end.state))] : summaryLines(tally, end.state).map(shown)).join("\n")}\n`,
  )
  yield* held.release
  if (page !== undefined && options.html !== undefined) {
    const label = options.set.length === 0 ? "as recorded" : options.set.join(" ")
    yield* writePage(options.html, controllerPage({ file: options.file, rows: [controllerRow(label, page.result())] }))
  }
  return { counts: end.state.counts }
}, Effect.scoped)

/** `--sweep` on a controller's log: the gate's settings, one replay per point, in one reading. */
export const simulateControllerSweep = Effect.fn("Simulate.controllerSweep")(function* (options: SimulateOptions) {
  const { file } = options
  const base = gateSettingOverrides(options.set)
  if ("problem" in base) return yield* Effect.fail(new BadInput({ said: base.problem }))
  const points = gateSweepPoints(options.sweep ?? [])
  if ("problem" in points) return yield* Effect.fail(new BadInput({ said: points.problem }))
  const sweep = gateSweep(points, base.overrides, options.html !== undefined)
  let facts = 0
  const header = yield* readControllerLog(
    options,
    (h) => gateSweepStart(sweep, h.settings.gate),
    (fact) => {
      facts += 1
      gateSweepFact(sweep, fact)
    },
  )
  const rows = gateSweepEnd(sweep)
  const report = options.json
    ? [gateSweepJson(rows)]
    : gateSweepReport({ file, facts, set: options.set, recorded: header.settings.gate }, rows)
  yield* options.json ? writeOut(`${shownJson(report.join("\n"))}\n`) : writeLines(report)
  if (options.html !== undefined) {
    const pageRows = rows.flatMap((r) => (r.page === undefined ? [] : [controllerRow(r.point.label, r.page)]))
    yield* writePage(options.html, controllerPage({ file, rows: pageRows }))
  }
  return { facts, rows }
})
