// What `/readyz` and `/healthz` ask (issue 10). The facts are gathered through small probes (does
// this controller hold the lease, does the store answer, does the bus answer) and each loop's beat;
// whether that is ready or alive, and the words, are the core's (core/src/controller/readiness.ts).
// The probes are given by whoever wires the controller: from the real lease, store and bus in serve
// (probes.ts), constants in tests (`layerTest`).
import { liveness, readiness, type Verdict } from "@mesh-core/core/controller/readiness"
import { Clock, Context, Data, Duration, Effect, Layer, Ref } from "effect"

export class ProbeFailed extends Data.TaggedError("ProbeFailed")<{
  readonly reason: string
  readonly cause?: unknown
}> {
  override get message(): string {
    return this.reason
  }
}

/** The lease as this controller sees it: held or not, and who holds it when another is known to. */
export interface LeaseSeen {
  readonly held: boolean
  readonly holder?: string | undefined
  readonly epoch?: number | undefined
  /** The followers of its term still catching up, while it holds the lease. */
  readonly catchingUp?: ReadonlyArray<string> | undefined
}

export interface ReadinessProbes {
  readonly lease: Effect.Effect<LeaseSeen>
  /** Succeeds when the store answers (a `select 1`). */
  readonly store: Effect.Effect<void, ProbeFailed>
  /** Succeeds when the bus answers (a round trip to the server). */
  readonly bus: Effect.Effect<void, ProbeFailed>
  /** What a person should know that does not stop it acting (a recording that stopped). */
  readonly notes?: Effect.Effect<ReadonlyArray<string>>
}

export interface ReadinessOptions {
  /** How recent an answer of the store or bus must be to count (ms): one slow probe does not flap readiness. */
  readonly within?: number
  /** How long one probe may take before it counts as not answering (ms). */
  readonly timeout?: number
  /** How long a loop may go without finishing a pass before the process is not alive (ms). */
  readonly stallAfter?: number
}

const defaultReadinessOptions = { within: 10_000, timeout: 2_000, stallAfter: 120_000 } as const

export class Readiness extends Context.Service<
  Readiness,
  {
    /** Asks the probes now and judges: ready only while holding the lease with the store and bus answering. */
    readonly ready: Effect.Effect<Verdict>
    /** Judges the loops' beats: alive while none has stalled. */
    readonly alive: Effect.Effect<Verdict>
    /** A loop finished a pass: what `alive` reads. */
    readonly beat: (loop: string) => Effect.Effect<void>
  }
>()("mesh-core/Readiness") {
  static readonly layer = (probes: ReadinessProbes, options: ReadinessOptions = {}) =>
    Layer.effect(Readiness, make(probes, options))

  /** Constant probes: a lease held or not, a store and bus answering or not. */
  static readonly layerTest = (
    seen: { readonly lease: LeaseSeen; readonly store: boolean; readonly bus: boolean },
    options: ReadinessOptions = {},
  ) =>
    Readiness.layer(
      {
        lease: Effect.succeed(seen.lease),
        store: seen.store ? Effect.void : Effect.fail(new ProbeFailed({ reason: "connection refused" })),
        bus: seen.bus ? Effect.void : Effect.fail(new ProbeFailed({ reason: "connection refused" })),
      },
      options,
    )
}

interface Answer {
  readonly at: number | undefined
  readonly why?: string | undefined
}

const make = Effect.fn("Readiness.make")(function* (probes: ReadinessProbes, options: ReadinessOptions) {
  const within = options.within ?? defaultReadinessOptions.within
  const timeout = options.timeout ?? defaultReadinessOptions.timeout
  const stallAfter = options.stallAfter ?? defaultReadinessOptions.stallAfter
  const store = yield* Ref.make<Answer>({ at: undefined })
  const bus = yield* Ref.make<Answer>({ at: undefined })
  const beats = yield* Ref.make<Readonly<Record<string, number>>>({})

  /** Runs one probe, bounded; an answer moves `at`, a failure keeps the last `at` and says why. */
  const ask = (probe: Effect.Effect<void, ProbeFailed>, into: Ref.Ref<Answer>) =>
    probe.pipe(
      Effect.timeoutOrElse({
        duration: Duration.millis(timeout),
        orElse: () => Effect.fail(new ProbeFailed({ reason: `no answer within ${timeout}ms` })),
      }),
      Effect.matchEffect({
        onSuccess: () => Effect.flatMap(Clock.currentTimeMillis, (at) => Ref.set(into, { at })),
        onFailure: (e) => Ref.update(into, (a) => ({ at: a.at, why: e.reason })),
      }),
    )

  const ready = Effect.gen(function* () {
    const [lease] = yield* Effect.all([probes.lease, ask(probes.store, store), ask(probes.bus, bus)], {
      concurrency: "unbounded",
    })
    return readiness({
      lease,
      store: yield* Ref.get(store),
      bus: yield* Ref.get(bus),
      now: yield* Clock.currentTimeMillis,
      within,
      notes: probes.notes === undefined ? [] : yield* probes.notes,
    })
  }).pipe(Effect.withSpan("Readiness.ready"))

  const alive = Effect.gen(function* () {
    return liveness({ beats: yield* Ref.get(beats), now: yield* Clock.currentTimeMillis, stallAfter })
  })

  const beat = (loop: string) =>
    Effect.flatMap(Clock.currentTimeMillis, (at) => Ref.update(beats, (b) => ({ ...b, [loop]: at })))
  return Readiness.of({ ready, alive, beat })
})
