// `simulate FILE`: a recorded day replayed through the same core a live provider runs. The file is
// read once, a chunk at a time: every line is checked and replayed as it is read, and what is
// printed is held until the end (held-output.ts), so a bad line still stops it before anything is
// printed as a result. Memory stays flat however long the log.
import { Effect, Stream } from "effect"
import { type BadLine, freshReader, type LogFact, type ReaderState, readLine } from "@mesh-core/core/facts/log"
import { dayReplay, type Decision, replayEnd, replayFact, type ReplayState } from "@mesh-core/core/facts/replay"
import { defaultSettings, type Provider } from "@mesh-core/core/provisioner/model"
import { decisionJson, summaryJson, summaryLines, timelineLine } from "@mesh-core/core/provisioner/render"
import { settingOverrides } from "@mesh-core/core/provisioner/settings"
import { type Summary, summaryGatherer } from "@mesh-core/core/provisioner/summary"
import { canOpen, type FileUnreadable, type LineRefused, lineChunks } from "../files/lines.ts"
import { writeErr } from "../files/output.ts"
import { heldOutput } from "./held-output.ts"
import { simulateGate } from "./gate.ts"
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

/**
 * One reading of a provider's log: every line checked and each fact handed to `feed` as it is read.
 * A bad line fails it, and whatever `feed` made of the lines before is the caller's to drop.
 */
const readProviderLog = (file: string, feed: (fact: LogFact) => void, progress: ((lines: number) => void) | undefined) =>
  Effect.gen(function*() {
    let reader: ReaderState = freshReader
    let facts = 0
    yield* Stream.runForEach(lineChunks(file), (lines) => {
      for (const text of lines) {
        const r = readLine(reader, text, defaultSettings)
        if (!r.ok) return Effect.fail(badLine(file, r.bad))
        reader = r.state
        const fact = r.fact
        if (fact === undefined) continue
        if (fact.fact !== "started") facts += 1
        feed(fact)
      }
      progress?.(reader.line)
      return Effect.void
    }).pipe(Effect.mapError((e) => (e instanceof BadInput ? e : unreadable(e))))
    if (reader.provider === undefined || reader.settings === undefined) {
      return yield* Effect.fail(badLine(file, { line: 1, field: "format", problem: "the log is empty: its first line must name the format" }))
    }
    return { provider: reader.provider, settings: reader.settings, facts }
  })

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
    if ((yield* areaOf(options.file)) === "gate") return yield* simulateGate(options)
    return yield* simulateProvisioner(options)
  })

const simulateProvisioner = (options: SimulateOptions): Effect.Effect<SimulateResult, BadInput> =>
  Effect.scoped(Effect.gen(function*() {
    const { file } = options
    const chosen = settingOverrides(options.set)
    if ("problem" in chosen) return yield* Effect.fail(new BadInput({ said: chosen.problem }))
    // Checked and replayed in one reading; what it prints is held until the last line has been read.
    const held = yield* heldOutput
    const day = dayReplay(chosen.overrides)
    const summary = summaryGatherer()
    let provider: Provider | undefined
    const render = (decisions: ReadonlyArray<Decision>) => {
      for (const d of decisions) {
        summary.add(d)
        const text = options.json ? decisionJson(d) : timelineLine(d, provider!)
        if (text !== undefined) held.push(`${text}\n`)
      }
    }
    const read = yield* readProviderLog(file, (fact) => {
      if (fact.fact === "started") provider = fact.provider
      render(replayFact(day, fact))
    }, options.progress)
    render(replayEnd(day))
    const r = day.replay
    const counts = { facts: read.facts, passes: r.passes, inferred: r.inferred, unasked: r.unasked, cut: r.cut, runs: r.runs }
    const result = summary.result()
    held.push(`${(options.json ? [summaryJson(result, counts)] : summaryLines(result, counts)).join("\n")}\n`)
    yield* held.release
    return { facts: read.facts, summary: result, replay: r }
  }))

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
