// A controller reduced to its lease, as a process of its own: a candidate through the ControllerLease
// service that, once it holds the lease, acts (a fenced write to the store every LEASE_ACT_EVERY ms)
// until it loses the lease, is fenced, or is told to stop (SIGTERM: the lease given back). What the
// fault tests and the takeover benchmark kill, stop and freeze; `serve` does the same once wired.
//
// Environment: NATS_URL, LEASE_BUCKET, MESH_LEASE_DURATION / _RENEW_DEADLINE / _RETRY; and to act,
// DATABASE_URL and LEASE_SCHEMA (a schema migrated with 0006, with a table `lease_acts`), and
// LEASE_ACT_MS: how long an act works between reading its epoch and reaching the store (a pause
// there is the one the store's fence is for).
//
// Says on standard output, one line each: the lease's own words ([lease] …), `acting under epoch N`
// as an act reads its epoch, `acted under epoch N`, `refused: …` when the store fences an act, and
// the lost sentence before it exits 1.
import { Context, Effect, Exit, Fiber, Layer } from "effect"
import postgres from "postgres"
import * as Bus from "../../shells/src/bus/nats.ts"
import * as Journal from "../../shells/src/journal.ts"
import { newestEpochIn, writeUnderEpoch } from "../../shells/src/lease/fence.ts"
import { Store } from "../../shells/src/store/postgres.ts"
import { ControllerLease } from "../../shells/src/lease/service.ts"

const env = (name: string, fallback?: string): string => {
  const v = process.env[name] ?? fallback
  if (v === undefined) throw new Error(`${name} is not set`)
  return v
}

const out = (line: string) => Effect.sync(() => void process.stdout.write(`${line}\n`))
const stdoutJournal = Layer.succeed(Journal.Journal, { say: out })

const natsUrl = env("NATS_URL", "nats://127.0.0.1:4222")
const bucket = env("LEASE_BUCKET")
const schema = process.env["LEASE_SCHEMA"]
const actMs = Number(env("LEASE_ACT_MS", "100"))
const actEvery = Number(env("LEASE_ACT_EVERY", "100"))

const sql = schema === undefined ? undefined : postgres(env("DATABASE_URL"), { max: 2, onnotice: () => undefined, connection: { search_path: schema } })
const url = process.env["DATABASE_URL"] ?? ""
const floor = sql === undefined ? Effect.succeed(0) : newestEpochIn(sql, url)

const main = Effect.scoped(Effect.gen(function*() {
  const layer = ControllerLease.layer({ bucket, floor }).pipe(Layer.provide(Layer.mergeAll(Bus.layer(natsUrl), stdoutJournal)))
  const lease = Context.get(yield* Layer.build(layer), ControllerLease)

  // One act: its epoch read from the lease, its work, then the store, fence first. An act begun is
  // finished (uninterruptible): a store transaction on its way is answered, accepted or refused.
  const act = Effect.gen(function*() {
    const epoch = yield* lease.epoch
    yield* out(`acting under epoch ${epoch}`)
    yield* Effect.sleep(actMs)
    if (sql === undefined) return
    // The store tells the lease itself when it refuses the act (writeUnderEpoch).
    const written = yield* Effect.result(writeUnderEpoch(epoch, (tx) => tx`insert into lease_acts (epoch, holder) values (${epoch}, ${lease.self})`).pipe(
      Effect.provideService(ControllerLease, lease),
      Effect.provideService(Store, { sql, url, schema: schema ?? "" }),
    ))
    if (written._tag === "Success") return yield* out(`acted under epoch ${epoch}`)
    yield* out(`refused: ${written.failure.message}`)
  }).pipe(Effect.uninterruptible, Effect.ignore)
  const acting = Effect.forever(Effect.andThen(act, Effect.sleep(actEvery)))

  const lost = yield* Effect.raceFirst(Effect.andThen(acting, Effect.never), lease.lost)
  yield* out(lost.said)
  return 1
}))

const fiber = Effect.runFork(main)
// SIGTERM: the fiber interrupted, its scope closed, the lease given back.
process.once("SIGTERM", () => void Effect.runFork(Fiber.interrupt(fiber)))
fiber.addObserver((exit) => {
  const code = Exit.isSuccess(exit) ? exit.value : 0
  if (Exit.isFailure(exit) && !Exit.hasInterrupts(exit)) process.stdout.write(`failed: ${String(exit.cause)}\n`)
  const end = () => process.exit(Exit.isFailure(exit) && !Exit.hasInterrupts(exit) ? 2 : code)
  if (sql === undefined) end()
  else void sql.end({ timeout: 2 }).finally(end)
})
