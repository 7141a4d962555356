// `simulate` over a gate's fact log: every line checked first, then replayed through the gate's
// judging, each judging printed with what was wanting, the verdict and the rollback decided.
import { Effect, Stream } from "effect"
import type { BadLine } from "@mesh-core/core/facts/log"
import { type GateHeader, readGateLine } from "@mesh-core/core/facts/gate-log"
import { parseDuration } from "@mesh-core/core/duration"
import type { GateSettings } from "@mesh-core/core/gate/judge"
import { gateSummaryLines, gateTimelineLines } from "@mesh-core/core/gate/render"
import { feedGateFact, type GateReplay, gateSettingsOf, startGateReplay } from "@mesh-core/core/gate/replay"
import { type FileUnreadable, type LineRefused, lineChunks } from "../files/lines.ts"
import { writeOut } from "../files/output.ts"
import { BadInput, type SimulateOptions } from "./options.ts"

const badLine = (file: string, b: BadLine) => new BadInput({ said: `${file}:${b.line}: ${b.field}: ${b.problem}` })
const unreadable = (e: FileUnreadable | LineRefused) => new BadInput({ said: e.message })

const gateSettingNames = ["settle", "bound", "every", "passes"] as const

export const withGateSettings = (base: GateSettings, said: ReadonlyArray<string>): { settings: GateSettings } | { problem: string } => {
  let settings = base
  for (const item of said) {
    const [name, value = ""] = item.split("=", 2) as [string, string?]
    if (!(gateSettingNames as ReadonlyArray<string>).includes(name)) {
      return { problem: `--set ${item}: no gate setting ${JSON.stringify(name)}; the gate's settings are ${gateSettingNames.join(", ")}` }
    }
    if (name === "passes") {
      const n = Number(value)
      if (!Number.isInteger(n) || n < 1) return { problem: `--set ${item}: passes is a whole number, at least 1` }
      settings = { ...settings, passes: n }
      continue
    }
    const ms = parseDuration(value)
    if (ms === undefined) return { problem: `--set ${item}: give a duration, as in ${name}=2m` }
    settings = { ...settings, [name]: ms }
  }
  return { settings }
}

const check = (file: string) =>
  Stream.runFold(
    lineChunks(file),
    (): { line: number; lastAt: number; header: GateHeader | undefined } | BadLine => ({ line: 0, lastAt: Number.NEGATIVE_INFINITY, header: undefined }),
    (state, lines) => {
      if ("problem" in state) return state
      let s = state
      for (const text of lines) {
        const line = s.line + 1
        const r = readGateLine(line, text, s.header === undefined, s.lastAt)
        if (!r.ok) return r.bad
        s = { line, lastAt: r.fact?.atMs ?? s.lastAt, header: r.header ?? s.header }
      }
      return s
    },
  ).pipe(
    Effect.mapError(unreadable),
    Effect.flatMap((s) => ("problem" in s ? Effect.fail(badLine(file, s)) : Effect.succeed(s.header!))),
  )

export const simulateGate = (options: SimulateOptions) =>
  Effect.gen(function*() {
    const { file } = options
    const header = yield* check(file)
    const chosen = withGateSettings(gateSettingsOf(header), options.set)
    if ("problem" in chosen) return yield* Effect.fail(new BadInput({ said: chosen.problem }))
    let state: GateReplay = startGateReplay(header, chosen.settings)
    let line = 0
    let lastAt = Number.NEGATIVE_INFINITY
    let facts = 0
    yield* Stream.runForEach(lineChunks(file), (lines) => {
      const out: Array<string> = []
      for (const text of lines) {
        line += 1
        const r = readGateLine(line, text, line === 1, lastAt)
        if (!r.ok) return Effect.fail(new BadInput({ said: `${file}:${line}: changed while it was replayed` }))
        if (r.fact === undefined) continue
        facts += 1
        lastAt = r.fact.atMs
        const fed = feedGateFact(state, r.fact)
        state = fed.state
        for (const d of fed.decisions) {
          if (options.json) out.push(JSON.stringify({ ...d, at: new Date(d.at).toISOString() }))
          else out.push(...gateTimelineLines(d))
        }
      }
      options.progress?.(line)
      return writeOut(out.length === 0 ? "" : `${out.join("\n")}\n`)
    }).pipe(Effect.mapError((e) => (e instanceof BadInput ? e : unreadable(e))))
    const summary = options.json
      ? [JSON.stringify({ summary: { facts, judgings: state.judgings, gate: state.gate ?? null } })]
      : gateSummaryLines(state, facts)
    yield* writeOut(`${summary.join("\n")}\n`)
    return { facts }
  })
