// runProvisioner: the Effect program that runs the provisioner core's loop every `every` (seed
// 000's Run). It reads the contributions file and each secret through the platform's FileSystem,
// calls the adapter, says what the core says and announces what it announces. The clock is
// Effect's, so a test can drive it. Every fact fed to the core can be recorded (`record`).
import { closeSync } from "node:fs"
import { type AnswerFact, defaultSettings, type DocumentRead, type Provider, type Request, type Settings } from "@mesh-core/core/provisioner/model"
import { errorOf } from "@mesh-core/core/provisioner/classes"
import { initialState, type PassFact, reconcile } from "@mesh-core/core/provisioner/pass"
import { Clock, Duration, Effect, FileSystem } from "effect"
import { say } from "../journal.ts"
import type { Adapter, AdapterError } from "./adapter.ts"
import { Announcer } from "./announcer.ts"
import { openRecording, RecordingUnusable } from "./recorder.ts"
import { errorText } from "@mesh-core/core/error-text"

export interface ProvisionerOptions {
  readonly provider: Provider
  readonly adapter: Adapter
  readonly settings?: Partial<Settings>
  /** A file to record every fact in, in the fact-log format, for `simulate`. */
  readonly record?: string
}

// Every backend call is bounded, Create and Remove as well as Holds (issue 14: a create that never
// answered held the loop 53 s with nothing announced). They share the seed's HoldsTimeout, so one
// setting says how long the backend may take, and a call cut off is a failure of class
// unreachable, counted toward the standing like any other.
const bounded = <A>(what: string, ms: number, call: Effect.Effect<A, AdapterError>) =>
  outcome(call).pipe(
    Effect.timeoutOrElse({
      duration: Duration.millis(ms),
      orElse: () => Effect.succeed({ ok: false as const, text: `${what} did not answer within ${ms}ms: context deadline exceeded`, class: "unreachable", timedOut: true }),
    }),
  )

// An adapter that throws is failing, not the loop: one consumer's failure never stops another's.
const outcome = <A>(call: Effect.Effect<A, AdapterError>) =>
  call.pipe(
    Effect.map((value) => ({ ok: true as const, value })),
    Effect.catch((e: AdapterError) => Effect.succeed({ ok: false as const, text: e.text, class: e.class })),
    Effect.catchDefect((d) => Effect.succeed({ ok: false as const, text: errorText(d), class: undefined })),
  )

// Appends (issue 8): a restarted provider adds a `started` line to the log it was given.
const recording = (file: string, provider: Provider, settings: Settings) =>
  Effect.acquireRelease(
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const opened = yield* Effect.try({
        try: () => openRecording(file, provider, settings, new Date(now)),
        catch: (e) => (e instanceof RecordingUnusable ? e : new RecordingUnusable({ file, reason: errorText(e), cause: e })),
      })
      if (opened.note !== undefined) yield* say(`[provider] ${opened.note}`)
      return opened
    }),
    ({ fd }) => Effect.sync(() => closeSync(fd)),
  )

export const runProvisioner = Effect.fn("Provisioner.run")(function*(options: ProvisionerOptions) {
    const fs = yield* FileSystem.FileSystem
    const announcer = yield* Announcer
    const { provider, adapter } = options
    const settings: Settings = { ...defaultSettings, ...options.settings }
    const recorder = options.record === undefined ? undefined : yield* recording(options.record, provider, settings)
    let state = initialState

    const answer = (request: Request): Effect.Effect<AnswerFact> =>
      Effect.gen(function*() {
        const as = request.as
        switch (request.call) {
          case "secret": {
            const read = yield* Effect.result(fs.readFileString(request.path))
            const at = yield* Clock.currentTimeMillis
            return read._tag === "Success"
              ? { fact: "secret", at, as, read: "ok", password: read.success }
              : { fact: "secret", at, as, read: "failed", error: errorText(read.failure) }
          }
          case "holds": {
            const r = yield* bounded("holds", settings.holdsTimeout, adapter.holds(request.provision))
            const at = yield* Clock.currentTimeMillis
            if (r.ok) return { fact: "holds", at, as, outcome: r.value ? "held" : "not-held" }
            return { fact: "holds", at, as, outcome: "error", ...errorOf(r.text, r.class), timedOut: "timedOut" in r }
          }
          case "create": {
            const r = yield* bounded("create", settings.holdsTimeout, adapter.create(request.provision))
            const at = yield* Clock.currentTimeMillis
            return r.ok ? { fact: "create", at, as, outcome: "ok" } : { fact: "create", at, as, outcome: "error", ...errorOf(r.text, r.class) }
          }
          case "remove": {
            const r = yield* bounded("remove", settings.holdsTimeout, adapter.remove(as, request.derived))
            const at = yield* Clock.currentTimeMillis
            return r.ok ? { fact: "remove", at, as, outcome: "ok" } : { fact: "remove", at, as, outcome: "error", error: r.text }
          }
        }
      })

    // The Effect driver of the core's pass: each question answered by the platform and the adapter,
    // each word said or announced as the pass yields it, every fact recorded as it is fed.
    const pass = Effect.gen(function*() {
      const at = yield* Clock.currentTimeMillis
      const read = yield* Effect.result(fs.readFileString(provider.receives))
      const document: DocumentRead = read._tag === "Success" ? { read: "ok", text: read.success } : { read: "failed", error: errorText(read.failure) }
      const begun: PassFact = { fact: "pass", at, document }
      recorder?.write(begun)
      const run = reconcile(state, begun, settings, provider)
      let r = run.next()
      while (!r.done) {
        const y = r.value
        if (y.kind === "ask") {
          const fact = yield* answer(y.request)
          recorder?.write(fact)
          r = run.next(fact)
        } else {
          if (y.kind === "said") yield* say(`[provisioner:${provider.resource}] ${y.said.text}`)
          else yield* announcer.announce(y.announcement)
          r = run.next()
        }
      }
      state = r.value
    })

    yield* say(`[provider] ${provider.resource} reconciling ${provider.receives} every ${settings.every}ms on ${provider.node}`)
    return yield* Effect.forever(Effect.andThen(pass, Effect.sleep(Duration.millis(settings.every))))
  })
