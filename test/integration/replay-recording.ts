// Replays a controller's recording (serve --record) through the same programs, the way `simulate`
// does (core/src/controller/replay.ts): for the tests that hold replay identity (issue 8).
import { readFileSync } from "node:fs"
import { parseDuration } from "@mesh-core/core/duration"
import { type ControllerFact, type GateSettingsLine, readControllerLine } from "@mesh-core/core/controller/log"
import {
  type ControllerDecision,
  feedController,
  finishController,
  startControllerReplay,
} from "@mesh-core/core/controller/replay"
import { defaultGateSettings, type GateSettings } from "@mesh-core/core/gate/judging/judge"
import { actKinds } from "@mesh-core/core/controller/replay"
import type { Question } from "@mesh-core/core/controller/catalogue"

const settingsOf = (s: GateSettingsLine): GateSettings => ({
  settle: s.settle === undefined ? defaultGateSettings.settle : parseDuration(s.settle)!,
  bound: s.bound === undefined ? defaultGateSettings.bound : parseDuration(s.bound)!,
  every: s.every === undefined ? defaultGateSettings.every : parseDuration(s.every)!,
  passes: s.passes ?? defaultGateSettings.passes,
  ...(s.errorLimit === undefined ? {} : { errorLimit: s.errorLimit }),
})

export const replayRecording = (file: string) => replayLines(readFileSync(file, "utf8").split("\n"))

/** Replays a recording's lines; without its header (`headed` false) under the default gate settings. */
export const replayLines = (lines: ReadonlyArray<string>, headed = true) => {
  let state = startControllerReplay(defaultGateSettings)
  const decisions: Array<ControllerDecision> = []
  const recordedActs: Array<Question> = []
  const facts: Array<ControllerFact> = []
  let lastAt = 0
  lines.forEach((text, i) => {
    const r = readControllerLine(headed ? i + 1 : i + 2, text, headed && i === 0, lastAt)
    if (!r.ok) throw new Error(`line ${r.bad.line}: ${r.bad.field}: ${r.bad.problem}`)
    if (r.header !== undefined) state = startControllerReplay(settingsOf(r.header.settings.gate))
    if (r.fact === undefined) return
    lastAt = r.fact.atMs
    facts.push(r.fact)
    if (r.fact.fact === "answer" && actKinds.has(r.fact.q.q)) recordedActs.push(r.fact.q)
    const fed = feedController(state, r.fact, (started) => settingsOf(started.settings.gate))
    state = fed.state
    decisions.push(...fed.decisions)
  })
  const end = finishController(state)
  decisions.push(...end.decisions)
  return {
    counts: end.state.counts,
    facts,
    said: decisions.flatMap((d) => (d.kind === "said" ? [d.line] : [])),
    acts: decisions.flatMap((d) => (d.kind === "act" ? [d.act] : [])),
    recordedActs,
  }
}

/** Whether `said` appears in `output`, line by line, in order (other lines may come between). */
export const inOrderIn = (
  said: ReadonlyArray<string>,
  output: string,
): { readonly ok: true } | { readonly ok: false; readonly missing: string } => {
  const lines = output.split("\n")
  let at = 0
  for (const s of said) {
    const i = lines.indexOf(s, at)
    if (i < 0) return { ok: false, missing: s }
    at = i + 1
  }
  return { ok: true }
}
