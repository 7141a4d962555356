// `simulate` over a controller's fact log (area "controller"): every line checked first, so a bad
// line stops it before anything is printed as a result; then replayed through the same programs
// `serve` ran (core/src/controller/replay.ts), a chunk at a time, and printed as the core renders
// it (core/src/controller/render.ts). This reads, feeds and writes; it decides nothing.
import { Effect, Stream } from "effect"
import {
  freshControllerReader, gateSettingOverrides, gateSettingsOf, readControllerNext,
} from "@mesh-core/core/facts/controller-log"
import type { BadLine } from "@mesh-core/core/facts/log"
import {
  type ControllerDecision, type ControllerReplay, feedController, finishController, settingsWith, startControllerReplay,
} from "@mesh-core/core/controller/replay"
import { decisionJson, freshTally, summaryJson, summaryLines, tallyProgram, timelineLines } from "@mesh-core/core/controller/render"
import { type FileUnreadable, type LineRefused, lineChunks } from "../files/lines.ts"
import { writeOut } from "../files/output.ts"
import { BadInput, checkEveryLine, type SimulateOptions } from "./options.ts"

const badLine = (file: string, b: BadLine) => new BadInput({ said: `${file}:${b.line}: ${b.field}: ${b.problem}` })
const unreadable = (e: FileUnreadable | LineRefused) => new BadInput({ said: e.message })

/** First reading: every line checked; answers the header. */
const check = (file: string) =>
  checkEveryLine(file, freshControllerReader, readControllerNext).pipe(
    Effect.flatMap((s) =>
      s.header === undefined
        ? Effect.fail(badLine(file, { line: 1, field: "format", problem: "the log is empty: its first line must name the format" }))
        : Effect.succeed(s.header)
    ),
  )

export const simulateController = (options: SimulateOptions) =>
  Effect.gen(function*() {
    const { file } = options
    const header = yield* check(file)
    const chosen = gateSettingOverrides(options.set)
    if ("problem" in chosen) return yield* Effect.fail(new BadInput({ said: chosen.problem }))
    const settingsAt = settingsWith(chosen.overrides)
    let state: ControllerReplay = startControllerReplay(gateSettingsOf({ ...header.settings.gate, ...chosen.overrides }))
    let reader = freshControllerReader
    const tally = freshTally()
    const render = (decisions: ReadonlyArray<ControllerDecision>, out: Array<string>) => {
      if (decisions.length === 0) return
      tallyProgram(tally, decisions)
      if (options.json) for (const d of decisions) out.push(decisionJson(d))
      else out.push(...timelineLines(decisions))
    }
    yield* Stream.runForEach(lineChunks(file), (lines) => {
      const out: Array<string> = []
      for (const text of lines) {
        const r = readControllerNext(reader, text)
        // Checked in the first reading; a file changed since is said, not guessed at.
        if (!r.ok) return Effect.fail(new BadInput({ said: `${file}:${r.bad.line}: changed while it was replayed` }))
        reader = r.state
        if (r.fact === undefined) continue
        const fed = feedController(state, r.fact, settingsAt)
        state = fed.state
        render(fed.decisions, out)
      }
      options.progress?.(reader.line)
      return writeOut(out.length === 0 ? "" : `${out.join("\n")}\n`)
    }).pipe(Effect.mapError((e) => (e instanceof BadInput ? e : unreadable(e))))
    const out: Array<string> = []
    const end = finishController(state)
    state = end.state
    render(end.decisions, out)
    if (options.json) out.push(summaryJson(tally, state))
    else out.push(...summaryLines(tally, state))
    yield* writeOut(`${out.join("\n")}\n`)
    return { counts: state.counts }
  })
