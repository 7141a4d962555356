// `simulate FILE`: a recorded day replayed through the same core a live provider runs. The file is
// read twice, a chunk at a time: once to check every line (so a bad line stops it before anything
// is printed as a result), once to replay. Memory stays flat however long the log.
import { Effect, Stream } from "effect"
import { type BadLine, freshReader, type ReaderState, readLine } from "@mesh-core/core/facts/log"
import { dayReplay, type Decision, replayEnd, replayFact, type ReplayState } from "@mesh-core/core/facts/replay"
import { defaultSettings, type Provider } from "@mesh-core/core/provisioner/model"
import { decisionJson, summaryJson, summaryLines, timelineLine } from "@mesh-core/core/provisioner/render"
import { settingOverrides } from "@mesh-core/core/provisioner/settings"
import { type Summary, summaryGatherer } from "@mesh-core/core/provisioner/summary"
import { canOpen, type FileUnreadable, type LineRefused, lineChunks } from "../files/lines.ts"
import { writeErr, writeOut } from "../files/output.ts"
import { simulateController } from "./controller.ts"
import { BadInput, type SimulateOptions } from "./options.ts"

export { BadInput, type SimulateOptions } from "./options.ts"

export interface SimulateResult {
  readonly facts: number
  readonly summary: Summary
  readonly replay: ReplayState
}

const badLine = (file: string, bad: BadLine): BadInput =>
  new BadInput({ said: `${file}:${bad.line}: ${bad.field}: ${bad.problem}` })

const unreadable = (e: FileUnreadable | LineRefused): BadInput => new BadInput({ said: e.message })

/** First reading: every line checked; answers the provider and settings the header names. */
const check = (file: string) =>
  Stream.runFold(
    lineChunks(file),
    (): ReaderState | BadLine => freshReader,
    (state, lines) => {
      if ("problem" in state) return state
      let s: ReaderState = state
      for (const text of lines) {
        const r = readLine(s, text, defaultSettings)
        if (!r.ok) return r.bad
        s = r.state
      }
      return s
    },
  ).pipe(
    Effect.mapError(unreadable),
    Effect.flatMap((s) => {
      if ("problem" in s) return Effect.fail(badLine(file, s))
      if (s.provider === undefined || s.settings === undefined) {
        return Effect.fail(badLine(file, { line: 1, field: "format", problem: "the log is empty: its first line must name the format" }))
      }
      return Effect.succeed({ provider: s.provider, settings: s.settings })
    }),
  )

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

export const simulate = (options: SimulateOptions): Effect.Effect<unknown, BadInput> =>
  Effect.gen(function*() {
    yield* canOpen(options.file).pipe(Effect.mapError(unreadable))
    const area = yield* areaOf(options.file)
    if (area === "controller") return yield* simulateController(options)
    return yield* simulateProvisioner(options)
  })

const simulateProvisioner = (options: SimulateOptions): Effect.Effect<SimulateResult, BadInput> =>
  Effect.gen(function*() {
    const { file } = options
    const recorded = yield* check(file)
    const chosen = settingOverrides(options.set)
    if ("problem" in chosen) return yield* Effect.fail(new BadInput({ said: chosen.problem }))
    const provider: Provider = recorded.provider

    const day = dayReplay(chosen.overrides)
    const st = { reader: freshReader, summary: summaryGatherer(), facts: 0 }
    const render = (decisions: ReadonlyArray<Decision>, out: Array<string>) => {
      for (const d of decisions) {
        st.summary.add(d)
        const text = options.json ? decisionJson(d) : timelineLine(d, provider)
        if (text !== undefined) out.push(text)
      }
    }
    yield* Stream.runForEach(lineChunks(file), (lines) => {
      const out: Array<string> = []
      for (const text of lines) {
        const r = readLine(st.reader, text, defaultSettings)
        // Checked in the first reading; a file changed since is said, not guessed at.
        if (!r.ok) return Effect.fail(new BadInput({ said: `${file}:${r.bad.line}: changed while it was replayed` }))
        st.reader = r.state
        const fact = r.fact
        if (fact === undefined) continue
        if (fact.fact !== "started") st.facts += 1
        render(replayFact(day, fact), out)
      }
      options.progress?.(st.reader.line)
      return writeOut(out.length === 0 ? "" : `${out.join("\n")}\n`)
    }).pipe(Effect.mapError((e) => (e instanceof BadInput ? e : unreadable(e))))
    const out: Array<string> = []
    render(replayEnd(day), out)
    const r = day.replay
    const counts = { facts: st.facts, passes: r.passes, inferred: r.inferred, unasked: r.unasked, cut: r.cut, runs: r.runs }
    const summary = st.summary.result()
    if (options.json) out.push(summaryJson(summary, counts))
    else out.push(...summaryLines(summary, counts))
    yield* writeOut(`${out.join("\n")}\n`)
    return { facts: st.facts, summary, replay: r }
  })

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
