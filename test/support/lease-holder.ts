// `serve` reduced to its lease, as a process of its own: composed as serve composes its workers under
// the lease (shells/src/lease/serve.ts): the lease's layer beneath one worker that acts (a fenced
// write to the store every LEASE_ACT_EVERY ms) and `untilTheLeaseIsLost` as the main fiber. It ends
// when the lease is lost or an act is refused (exit 1, the seed's sentence), or when told to stop
// (SIGTERM: the worker stopped, the lease given back, exit 0). What the fault tests and the takeover
// benchmark kill, stop and freeze.
//
// Environment: NATS_URL, LEASE_PREFIX (the mesh's prefix: the bucket is its `…controller_lease`),
// MESH_LEASE_DURATION / _RENEW_DEADLINE / _RETRY; and to act, DATABASE_URL and LEASE_SCHEMA (a schema
// migrated, with a table `lease_acts`), and LEASE_ACT_MS: how long an act works between reading its
// epoch and reaching the store (a pause there is the one the store's fence is for). Its store's
// sessions carry the bounds `serve`'s do (lease/store-bounds.ts), unless LEASE_STORE_UNBOUNDED=1 (as a
// controller built before them). Like `serve`, it records its epoch in the store as soon as it holds
// the lease (TakeoverFenced). Without LEASE_SCHEMA it only holds the lease (numbered from the bucket alone).
//
// SIGUSR2: the next act keeps its transaction open, fenced and written, for LEASE_HOLD_MS (3 s) before
// it commits: what a controller paused inside its transaction leaves at the store.
//
// Says on standard output, one line each: the lease's own words ([lease] …), `acting under epoch N`
// as an act reads its epoch, `holding a transaction open under epoch N (backend P)`, `acted under
// epoch N`, `refused: …` when the store fences an act, `not written: …` when the store failed it
// otherwise (its session ended), and the sentence it ends with.
import { Effect, Exit, Fiber, Layer } from "effect"
import * as Bus from "../../shells/src/bus/nats.ts"
import * as Journal from "../../shells/src/journal.ts"
import { leaseBucketName } from "../../shells/src/lease/bucket.ts"
import { TakeoverFenced, writeUnderEpoch } from "../../shells/src/lease/fence.ts"
import { actUnderTheLease, controllerLeaseLayer, untilTheLeaseIsLost } from "../../shells/src/lease/serve.ts"
import { ControllerLease } from "../../shells/src/lease/service.ts"
import { storeBoundsConfig } from "../../shells/src/lease/store-bounds.ts"
import * as Store from "../../shells/src/store/postgres.ts"

const env = (name: string, fallback?: string): string => {
  const v = process.env[name] ?? fallback
  if (v === undefined) throw new Error(`${name} is not set`)
  return v
}

const out = (line: string) => Effect.sync(() => void process.stdout.write(`${line}\n`))
const stdoutJournal = Layer.succeed(Journal.Journal, { say: out })

const natsUrl = env("NATS_URL", "nats://127.0.0.1:4222")
const prefix = env("LEASE_PREFIX")
const schema = process.env["LEASE_SCHEMA"]
const actMs = Number(env("LEASE_ACT_MS", "100"))
const actEvery = Number(env("LEASE_ACT_EVERY", "100"))
const holdMs = Number(env("LEASE_HOLD_MS", "3000"))
let holdNext = false
process.on("SIGUSR2", () => void (holdNext = true))

// One act: its epoch handed over by the lease, its work, then the store, fence first. An act begun is
// finished (uninterruptible): a store transaction on its way is answered, accepted or refused.
const act = (epoch: number) =>
  Effect.gen(function* () {
    yield* out(`acting under epoch ${epoch}`)
    yield* Effect.sleep(actMs)
    const self = (yield* ControllerLease).self
    const hold = holdNext
    holdNext = false
    const written = yield* Effect.result(
      writeUnderEpoch(epoch, async (tx) => {
        await tx`insert into lease_acts (epoch, holder) values (${epoch}, ${hold ? `${self} held` : self})`
        if (!hold) return
        const [b] = await tx`select pg_backend_pid() as pid`
        process.stdout.write(`holding a transaction open under epoch ${epoch} (backend ${String(b?.["pid"])})\n`)
        await new Promise((r) => setTimeout(r, holdMs))
      }),
    )
    if (written._tag === "Success") return yield* out(`acted under epoch ${epoch}`)
    yield* out(`${written.failure._tag === "Fenced" ? "refused" : "not written"}: ${written.failure.message}`)
    return yield* Effect.fail(written.failure)
  }).pipe(Effect.uninterruptible)

const worker = Layer.mergeAll(
  Layer.effectDiscard(
    Effect.forkScoped(Effect.forever(Effect.andThen(Effect.ignore(actUnderTheLease(act)), Effect.sleep(actEvery)))),
  ),
  TakeoverFenced,
)

const store = (url: string, schema: string) =>
  process.env["LEASE_STORE_UNBOUNDED"] === "1"
    ? Store.layer(url, schema)
    : Layer.unwrap(Effect.map(storeBoundsConfig, (bounds) => Store.layer(url, schema, bounds)))

const connections = Layer.mergeAll(Bus.layer(natsUrl), stdoutJournal)
const serve =
  schema === undefined
    ? Effect.provide(
        untilTheLeaseIsLost,
        ControllerLease.layer({ bucket: leaseBucketName(prefix), floor: Effect.succeed(0) }).pipe(
          Layer.provide(connections),
        ),
      )
    : Effect.provide(
        untilTheLeaseIsLost,
        worker.pipe(
          Layer.provideMerge(controllerLeaseLayer(prefix)),
          Layer.provideMerge(Layer.mergeAll(connections, store(env("DATABASE_URL"), schema))),
        ),
      )

const fiber = Effect.runFork(serve)
// SIGTERM: the fiber interrupted, its scope closed (the worker first, then the lease, given back).
process.once("SIGTERM", () => void Effect.runFork(Fiber.interrupt(fiber)))
fiber.addObserver((exit) => {
  if (Exit.isSuccess(exit) || Exit.hasInterrupts(exit)) return process.exit(0)
  const failure = exit.cause.reasons.find((r) => r._tag === "Fail")?.error
  process.stdout.write(`${failure instanceof Error ? failure.message : String(exit.cause)}\n`)
  process.exit(1)
})
