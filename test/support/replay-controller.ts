// A whole controller log replayed at once, from its lines: what the tests check a day with. `simulate`
// reads a file a chunk at a time through the same core steps (readControllerNext, feedController);
// this is that loop over an array, kept with the tests that are its only callers.
import type { BadLine } from "@mesh-core/core/provisioner/log"
import {
  type ControllerHeader,
  type ControllerReader,
  emptyLog,
  freshControllerReader,
  gateSettingsOf,
  type GateSettingsLine,
  readControllerNext,
} from "@mesh-core/core/controller/log"
import {
  type ControllerDecision,
  type ControllerReplay,
  feedController,
  finishController,
  settingsWith,
  startControllerReplay,
} from "@mesh-core/core/controller/replay"

export interface ReplayedDay {
  readonly header: ControllerHeader
  readonly state: ControllerReplay
  readonly decisions: ReadonlyArray<ControllerDecision>
  /** The same decisions, one entry for each program run that decided anything. */
  readonly programs: ReadonlyArray<ReadonlyArray<ControllerDecision>>
}

export const replayControllerLog = (
  lines: Iterable<string>,
  overrides: GateSettingsLine = {},
): { readonly ok: true; readonly day: ReplayedDay } | { readonly ok: false; readonly bad: BadLine } => {
  let reader: ControllerReader = freshControllerReader
  let state: ControllerReplay | undefined
  const programs: Array<ReadonlyArray<ControllerDecision>> = []
  for (const text of lines) {
    const r = readControllerNext(reader, text)
    if (!r.ok) return r
    reader = r.state
    if (state === undefined && reader.header !== undefined)
      state = startControllerReplay(gateSettingsOf({ ...reader.header.settings.gate, ...overrides }))
    if (r.fact === undefined || state === undefined) continue
    const fed = feedController(state, r.fact, settingsWith(overrides))
    state = fed.state
    if (fed.decisions.length > 0) programs.push(fed.decisions)
  }
  if (state === undefined || reader.header === undefined) return { ok: false, bad: emptyLog(1) }
  const end = finishController(state)
  if (end.decisions.length > 0) programs.push(end.decisions)
  return { ok: true, day: { header: reader.header, state: end.state, decisions: programs.flat(), programs } }
}
