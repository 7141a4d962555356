// Schema reach in the store (novox/hq issue 352, seed 004; migration 0006's `schema_reach`): `serve`
// records at start which migration its build reads up to, and the gate reads it before putting a
// controller's build back. The decisions and the words are the core's (core/src/gate/tick/schema-reach.ts);
// this answers its questions.
import {
  reachOf,
  type reachQuestions,
  RunningBuild,
  runningBuildVar,
  schemaReachAtStart,
  type StoreReach,
} from "@mesh-core/core/gate/tick/schema-reach"
import type { Readable } from "@mesh-core/core/outcome"
import { Config, Effect, Layer } from "effect"
import { done, type Outcome } from "@mesh-core/core/outcome"
import { Journal } from "../journal.ts"
import { type Answers, drive } from "../program/drive.ts"
import { migrations, type Store } from "../store/postgres.ts"
import { readReach, recordReach } from "../store/reach.ts"
import { errorText } from "@mesh-core/core/text/error-text"
import { builtAs } from "../build-stamp.ts"

/** Which build this process is: MESH_BUILD when set, else the build stamped into the one file; undefined when neither. */
export const runningBuild: Effect.Effect<string | undefined, Config.ConfigError> = Effect.gen(function* () {
  const build = yield* Config.schema(RunningBuild, runningBuildVar).pipe(Config.withDefault(""))
  return build === "" ? builtAs?.build : build
})

/** `serve`'s questions at start answered: the highest migration this build carries, and its record. */
export const reachAnswers: Answers<typeof reachQuestions, never, Store> = {
  "carried-reach": () =>
    Effect.try({ try: () => reachOf(migrations().map((m) => m.version)), catch: errorText }).pipe(
      Effect.map((value) => ({ ok: true as const, value })),
      Effect.catch((why) => Effect.succeed({ ok: false as const, why })),
    ),
  "record-reach": (q) =>
    recordReach(q.build, q.reach).pipe(
      Effect.as(done),
      Effect.catch((e) => Effect.succeed<Outcome>({ ok: false, why: e.reason })),
    ),
}

/** `serve` at start: records what this build reads of the store's schema, and says one of the seed's three sentences. */
export const recordSchemaReach = Effect.fn("SchemaReach.record")(function* (build: string | undefined) {
  const { result } = yield* drive(schemaReachAtStart(build), reachAnswers)
  yield* Journal.use((j) => j.say(`[controller] ${result}`))
  return result
})

/** What the gate reads before putting back a controller's build: the store's migration now, and the build's recorded reach. */
export const storeReach = Effect.fn("SchemaReach.read")(function* (build: string) {
  return yield* readReach(build).pipe(
    Effect.map((value): Readable<StoreReach> => ({ ok: true, value })),
    Effect.catch((e) => Effect.succeed<Readable<StoreReach>>({ ok: false, why: e.reason })),
  )
})

/**
 * `serve`'s record of its reach as a layer: beneath the lease's layer, so it is said at start, after the
 * store is open and before the lease is waited for (the seed's order). MESH_BUILD with spaces is refused.
 */
export const SchemaReachLive = Layer.effectDiscard(Effect.flatMap(runningBuild, recordSchemaReach))
