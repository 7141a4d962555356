// runProvisioner: the Effect program that runs the provisioner core's loop every `every` (seed
// 000's Run). It reads the contributions file, and drives each pass with the one driver
// (shells/src/program/drive.ts): the pass's questions answered in answers.ts (the secrets through the
// platform's FileSystem, the adapter's calls, announcements to the outbox), its words said. The clock
// is Effect's, so a test can drive it. Every fact fed to the core can be recorded (`record`).
import { closeSync } from "node:fs"
import { defaultSettings, type DocumentRead, type Provider, type Settings } from "@mesh-core/core/provisioner/model"
import { initialState, type PassFact, reconcile } from "@mesh-core/core/provisioner/pass"
import { Clock, Duration, Effect, Option } from "effect"
import { readBounded, readLimits } from "../files/lines.ts"
import { say } from "../journal.ts"
import { drive, ProgramWatch } from "../program/drive.ts"
import type { Adapter } from "./adapter.ts"
import { provisionerAnswers } from "./answers.ts"
import { recordingStopped } from "@mesh-core/core/controller/readiness"
import { openRecording, RecordingUnusable } from "./recorder.ts"
import { errorText } from "@mesh-core/core/text/error-text"

export interface ProvisionerOptions {
  readonly provider: Provider
  readonly adapter: Adapter
  readonly settings?: Partial<Settings>
  /** A file to record every fact in, in the fact-log format, for `simulate`. */
  readonly record?: string
}

// Appends (issue 8): a restarted provider adds a `started` line to the log it was given.
const recording = (file: string, provider: Provider, settings: Settings) =>
  Effect.acquireRelease(
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const opened = yield* Effect.try({
        try: () => openRecording(file, provider, settings, new Date(now)),
        catch: (e) =>
          e instanceof RecordingUnusable ? e : new RecordingUnusable({ file, reason: errorText(e), cause: e }),
      })
      if (opened.note !== undefined) yield* say(`[provider] ${opened.note}`)
      return opened
    }),
    ({ fd }) => Effect.sync(() => closeSync(fd)),
  )

export const runProvisioner = Effect.fn("Provisioner.run")(function* (options: ProvisionerOptions) {
  const { provider, adapter } = options
  const settings: Settings = { ...defaultSettings, ...options.settings }
  const recorder = options.record === undefined ? undefined : yield* recording(options.record, provider, settings)
  const answers = provisionerAnswers(adapter, settings.holdsTimeout)
  // Each answer is recorded as the driver hands it on, not once the pass ends: a provider killed
  // mid-pass leaves every fact it was fed in the log (issue 8), as the replay expects.
  const outer = Option.getOrUndefined(yield* Effect.serviceOption(ProgramWatch))
  const watch = ProgramWatch.of({
    answered: (question, answer) =>
      Effect.andThen(
        Effect.sync(() => recorder?.answered({ q: question, a: answer })),
        outer?.answered(question, answer) ?? Effect.void,
      ),
    failed: (kind, error) => outer?.failed(kind, error) ?? Effect.void,
  })
  let state = initialState
  let stopSaid = false

  // One pass: the document read, then the core's pass driven by the one driver (its words said,
  // its announcements handed to the outbox, every answer recorded).
  const pass = Effect.gen(function* () {
    const at = yield* Clock.currentTimeMillis
    const read = yield* Effect.result(readBounded(provider.receives, readLimits.document))
    const document: DocumentRead =
      read._tag === "Success" ? { read: "ok", text: read.success } : { read: "failed", error: errorText(read.failure) }
    const begun: PassFact = { fact: "pass", at, document }
    recorder?.write(begun)
    const driven = yield* drive(reconcile(state, begun, settings, provider), answers).pipe(
      Effect.provideService(ProgramWatch, watch),
    )
    state = driven.result
    // A recording that could not be written is said once; the provider goes on without it (issue 27).
    const stopped = recorder?.stopped()
    if (stopped !== undefined && !stopSaid) {
      stopSaid = true
      yield* say(`[provider] ${recordingStopped(options.record ?? "", stopped, "provider")}`)
    }
  })

  yield* say(
    `[provider] ${provider.resource} reconciling ${provider.receives} every ${settings.every}ms on ${provider.node}`,
  )
  return yield* Effect.forever(Effect.andThen(pass, Effect.sleep(Duration.millis(settings.every))))
})
