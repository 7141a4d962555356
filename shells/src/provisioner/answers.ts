// The provider's answers to its pass's questions (core/src/provisioner/questions.ts, issue 25):
// a secret read bounded (files/lines.ts), Holds, Create and Remove through the adapter
// (the module's half, ADR 0039), each bounded by holdsTimeout, and an announcement handed to the
// Announcer's outbox. Each answer is the fact the core is fed and the recorder writes; the time on
// it is Effect's clock as the call came back. Nothing here decides: a failure is an answer.
import { errorText } from "@mesh-core/core/text/error-text"
import { errorOf } from "@mesh-core/core/provisioner/classes"
import type { ProvisionerQuestions } from "@mesh-core/core/provisioner/questions"
import { Clock, Duration, Effect } from "effect"
import type { Answers } from "../program/drive.ts"
import type { Adapter, AdapterError } from "./adapter.ts"
import { Announcer } from "./announcer.ts"
import { readBounded, readLimits } from "../files/lines.ts"

// An adapter that throws is failing, not the loop: one consumer's failure never stops another's.
const outcome = <A>(call: Effect.Effect<A, AdapterError>) =>
  call.pipe(
    Effect.map((value) => ({ ok: true as const, value })),
    Effect.catch((e: AdapterError) => Effect.succeed({ ok: false as const, text: e.text, class: e.class })),
    Effect.catchDefect((d) => Effect.succeed({ ok: false as const, text: errorText(d), class: undefined })),
  )

// Every backend call is bounded, Create and Remove as well as Holds (issue 14: a create that never
// answered held the loop 53 s with nothing announced). They share the seed's HoldsTimeout, so one
// setting says how long the backend may take, and a call cut off is a failure of class
// unreachable, counted toward the standing like any other.
const bounded = <A>(what: string, ms: number, call: Effect.Effect<A, AdapterError>) =>
  outcome(call).pipe(
    Effect.timeoutOrElse({
      duration: Duration.millis(ms),
      orElse: () =>
        Effect.succeed({
          ok: false as const,
          text: `${what} did not answer within ${ms}ms: context deadline exceeded`,
          class: "unreachable",
          timedOut: true,
        }),
    }),
  )

/** The provider's answers, over `adapter`, the files it is given and the Announcer. */
export const provisionerAnswers = (
  adapter: Adapter,
  holdsTimeout: number,
): Answers<ProvisionerQuestions, never, Announcer> => ({
  secret: Effect.fn("Provisioner.secret")(function* ({ as, path }) {
    const read = yield* Effect.result(readBounded(path, readLimits.key))
    const at = yield* Clock.currentTimeMillis
    return read._tag === "Success"
      ? ({ fact: "secret", at, as, read: "ok", password: read.success } as const)
      : ({ fact: "secret", at, as, read: "failed", error: errorText(read.failure) } as const)
  }),
  holds: Effect.fn("Provisioner.holds")(function* ({ as, provision }) {
    const r = yield* bounded("holds", holdsTimeout, adapter.holds(provision))
    const at = yield* Clock.currentTimeMillis
    if (r.ok) return { fact: "holds", at, as, outcome: r.value ? "held" : "not-held" } as const
    return { fact: "holds", at, as, outcome: "error", ...errorOf(r.text, r.class), timedOut: "timedOut" in r } as const
  }),
  create: Effect.fn("Provisioner.create")(function* ({ as, provision }) {
    const r = yield* bounded("create", holdsTimeout, adapter.create(provision))
    const at = yield* Clock.currentTimeMillis
    return r.ok
      ? ({ fact: "create", at, as, outcome: "ok" } as const)
      : ({ fact: "create", at, as, outcome: "error", ...errorOf(r.text, r.class) } as const)
  }),
  remove: Effect.fn("Provisioner.remove")(function* ({ as, derived }) {
    const r = yield* bounded("remove", holdsTimeout, adapter.remove(as, derived))
    const at = yield* Clock.currentTimeMillis
    return r.ok
      ? ({ fact: "remove", at, as, outcome: "ok" } as const)
      : ({ fact: "remove", at, as, outcome: "error", error: r.text } as const)
  }),
  announce: Effect.fn("Provisioner.announce")(function* ({ announcement }) {
    const announcer = yield* Announcer
    yield* announcer.announce(announcement)
    return undefined
  }),
})
