// `serve --record FILE`: every fact the controller's core is fed, in the controller's fact-log format
// (core/src/controller/log.ts, docs/fact-log.md): the header with the gate's settings, then per
// program its input (a tick, a batch of words, a report, a statement, a witness's verdict, a store
// that failed) followed by each answer it got, in order, written together when the program ends, so
// programs running side by side never interleave their lines. A recording appends
// (files/recording.ts): a restarted serve adds a `started` line and goes on; a log of another area is
// refused before anything is written.
import { answerLine, type InputFact, readControllerLine } from "@mesh-core/core/controller/log"
import { gateSettingsLine } from "@mesh-core/core/controller/settings"
import { recordingStopped } from "@mesh-core/core/controller/readiness"
import type { GateSettings } from "@mesh-core/core/gate/judging/judge"
import { Clock, Context, Effect, Layer, Option, Ref } from "effect"
import { ControllerNotes } from "./notes.ts"
import { openAppendingLog, RecordingUnusable } from "../files/recording.ts"
import { Journal } from "../journal.ts"
import type { Answered } from "./drive.ts"

export type { Answered } from "./drive.ts"

/** A program's input as the recorder is given it; the recorder dates it. */
export type RecordedInput = InputFact extends infer F
  ? F extends { readonly at: string }
    ? Omit<F, "at">
    : never
  : never

/** A recording's first line, as a controller's fact log must begin. */
export const controllerLogAccepts = (first: string) => {
  const r = readControllerLine(1, first, true, 0)
  return r.ok
    ? ({ ok: true } as const)
    : ({ ok: false, problem: `not a controller's fact log (line 1: ${r.bad.field}: ${r.bad.problem})` } as const)
}

export class ControllerRecorder extends Context.Service<
  ControllerRecorder,
  {
    /** Records one program: its input and every answer it got, in order, as consecutive lines. */
    readonly record: (
      input: Exclude<RecordedInput, { fact: "started" }>,
      answers: ReadonlyArray<Answered>,
    ) => Effect.Effect<void>
  }
>()("mesh-core/controller/ControllerRecorder") {
  /** Records nothing: serve without --record. */
  static readonly layerNone = Layer.succeed(ControllerRecorder, { record: () => Effect.void })

  /** Lines kept in memory, for tests: the same lines a file would get, without the header. */
  static readonly layerMemory = (lines: Array<string>) =>
    Layer.effect(
      ControllerRecorder,
      Effect.gen(function* () {
        const last = yield* Ref.make(0)
        return ControllerRecorder.of({
          record: (input, answers) =>
            Effect.flatMap(linesOf(last, input, answers), (ls) => Effect.sync(() => void lines.push(...ls))),
        })
      }),
    )

  /** Appends to `file`: a header when new, a `started` line when not. */
  static readonly layerFile = (file: string, settings: GateSettings) =>
    Layer.effect(
      ControllerRecorder,
      Effect.gen(function* () {
        const journal = yield* Journal
        const now = yield* Clock.currentTimeMillis
        const log = yield* Effect.acquireRelease(
          Effect.try({
            try: () => openAppendingLog(file, controllerLogAccepts),
            catch: (e) => (e instanceof RecordingUnusable ? e : new RecordingUnusable({ file, reason: String(e) })),
          }),
          (log) => Effect.sync(() => log.close()),
        )
        if (log.note !== undefined) yield* journal.say(`[controller] ${log.note}`)
        const at = new Date(now).toISOString()
        const gate = gateSettingsLine(settings)
        log.write([
          JSON.stringify(
            log.kept === 0
              ? { format: "mesh-core.facts", version: 1, area: "controller", settings: { gate }, recorded: at }
              : { at, fact: "started", settings: { gate } },
          ),
        ])
        yield* journal.say(`[controller] recording every fact fed to the core in ${file}`)
        const last = yield* Ref.make(now)
        const stopped = yield* Ref.make<string | undefined>(undefined)
        const notes = yield* Effect.serviceOption(ControllerNotes)
        return ControllerRecorder.of({
          // A write that fails stops the recording at its last whole line, said once (issue 27); the
          // controller decides on, and /readyz says it.
          record: (input, answers) =>
            Effect.gen(function* () {
              if ((yield* Ref.get(stopped)) !== undefined) return
              const written = log.write(yield* linesOf(last, input, answers))
              if (written.ok) return
              const said = recordingStopped(file, written.why)
              yield* Ref.set(stopped, said)
              yield* journal.say(`[controller] ${said}`)
              if (Option.isSome(notes)) yield* notes.value.add(said)
            }),
        })
      }),
    )
}

/**
 * A program's lines, dated when it ended and never before the lines already written (programs end
 * in another order than they began, and a log's times never go back).
 */
const linesOf = (last: Ref.Ref<number>, input: RecordedInput, answers: ReadonlyArray<Answered>) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const ms = yield* Ref.modify(last, (l) => {
      const t = Math.max(l, now)
      return [t, t]
    })
    const at = new Date(ms).toISOString()
    return [JSON.stringify({ at, ...input }), ...answers.map((x) => answerLine(at, x.q, x.a))]
  })
