// The controller's workers over the in-memory services (layerTest): what a follower keeps, sets
// aside, says and records, and that what it recorded replays through the same programs to the same
// acts and words (issue 8), with no server at all.
import { Effect, Fiber, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { canonicalJson } from "@mesh-core/core/json"
import { MeshBus } from "../../shells/src/bus/mesh-bus.ts"
import { busNames } from "../../shells/src/bus/subjects.ts"
import { standingsFollower } from "../../shells/src/controller/follow.ts"
import { healthFollower } from "../../shells/src/controller/health.ts"
import { ControllerRecorder } from "../../shells/src/program/recorder.ts"
import { deliveryNames } from "../../shells/src/bus/delivery-names.ts"
import * as Journal from "../../shells/src/journal.ts"
import { GateStore } from "../../shells/src/store/gate.ts"
import { FencedTransaction } from "../../shells/src/lease/fence.ts"
import { ControllerLease } from "../../shells/src/lease/service.ts"
import { StoreTransaction } from "../../shells/src/store/postgres.ts"
import { StandingsStore } from "../../shells/src/store/standings.ts"
import { replayLines } from "../integration/replay-recording.ts"
import { unreachableWord } from "../support/standing-words.ts"
import { until } from "../support/until.ts"

const names = busNames("")
const word = (i: number, attempts: number) => JSON.stringify(unreachableWord(`c${i}`, attempts))

const replayed = (lines: ReadonlyArray<string>) => {
  const r = replayLines(lines, false)
  return {
    counts: r.counts,
    said: r.said,
    acts: r.acts.map(canonicalJson),
    recordedActs: r.recordedActs.map(canonicalJson),
  }
}

// biome-ignore lint/suspicious/noExplicitAny: a worker or a read may need any of the services `run` provides
type Provided = any

/**
 * Runs `worker` over the in-memory services while `feed` publishes, waits on what the worker's last
 * keeping does (`done`: a follower says its lines once its transaction committed and was recorded),
 * then reads what it kept.
 */
const run = <A>(
  worker: Effect.Effect<unknown, unknown, Provided>,
  feed: Effect.Effect<void, unknown, MeshBus>,
  done: (said: ReadonlyArray<string>) => Effect.Effect<unknown, unknown, Provided>,
  read: Effect.Effect<A, unknown, Provided>,
  storeSeen = 0,
) => {
  const said: Array<string> = []
  const recorded: Array<string> = []
  // Every transaction a follower keeps is fenced under the lease's epoch (issue 13): the in-memory fence lists them.
  const epochs: Array<number> = []
  const program = Effect.gen(function* () {
    const fiber = yield* Effect.forkChild(worker)
    yield* feed
    yield* done(said)
    yield* Fiber.interrupt(fiber)
    return yield* read
  }).pipe(
    Effect.provide(
      Layer.mergeAll(
        MeshBus.layerTest(),
        StandingsStore.layerTest,
        GateStore.layerTest(),
        StoreTransaction.layerTest,
        ControllerRecorder.layerMemory(recorded),
        ControllerLease.layerTest(7),
        FencedTransaction.layerTest(epochs, storeSeen),
      ),
    ),
    Effect.provide(Journal.memoryLayer(said)),
  ) as Effect.Effect<A, unknown, never>
  return Effect.runPromise(program).then((value) => ({ value, said, recorded, epochs }))
}

describe("the controller's followers over the in-memory services", () => {
  it("a batch of words: the odd one set aside (said once), the rest kept; the recording replays to the same writes and words", async () => {
    const r = await run(
      standingsFollower({ names, batch: 50 }),
      Effect.gen(function* () {
        const bus = yield* MeshBus
        for (let i = 0; i < 5; i++)
          yield* bus.publish(names.failing, word(i, i === 2 ? 2_147_483_648 : 3), "2026-12-01T07:00:00Z")
        yield* bus.publish(names.failing, word(5, 3)) // no Mesh-At: when it was said is not known
      }),
      (said) => until(() => said.filter((l) => l.startsWith("[controller] set aside a word")).length === 2),
      Effect.gen(function* () {
        const standings = yield* StandingsStore
        return {
          failing: (yield* standings.failing).map((k) => k.consumer).sort(),
          aside: (yield* standings.setAsideCount).count,
        }
      }),
    )
    expect(r.value).toEqual({ failing: ["c0", "c1", "c3", "c4"], aside: 2 })
    expect(r.epochs.length).toBeGreaterThan(0)
    expect(new Set(r.epochs)).toEqual(new Set([7]))
    expect(r.said.filter((l) => l.startsWith("[controller] set aside a word"))).toHaveLength(2)
    const back = replayed(r.recorded)
    expect(back.counts).toMatchObject({ inferred: 0, differed: 0, unasked: 0 })
    expect(back.acts).toEqual(back.recordedActs)
    expect(back.said).toEqual(r.said.filter((l) => l.includes("set aside")))
  })

  it("a health statement naming an unknown state is set aside, not read as unhealthy; two unhealthy in a row raise the condition; the recording replays", async () => {
    const dn = deliveryNames("")
    const statement = (at: string, state: string) =>
      JSON.stringify({ machine: "hq-3", at, resources: [{ resource: "x-main", module: "x", state }] })
    const r = await run(
      healthFollower(dn),
      Effect.gen(function* () {
        const bus = yield* MeshBus
        yield* bus.publish(dn.healthSubject("hq-3"), statement("2026-12-01T10:00:01Z", "poorly"))
        yield* bus.publish(dn.healthSubject("hq-3"), statement("2026-12-01T10:00:02Z", "unhealthy"))
        yield* bus.publish(dn.healthSubject("hq-3"), statement("2026-12-01T10:00:03Z", "unhealthy"))
      }),
      (said) => until(() => said.some((l) => l.startsWith("[controller] raised module.x.hq-3.unhealthy"))),
      Effect.gen(function* () {
        const gates = yield* GateStore
        const standings = yield* StandingsStore
        return { open: (yield* gates.openConditions).map((c) => c.key), aside: (yield* standings.setAsideCount).count }
      }),
    )
    expect(r.value).toEqual({ open: ["module.x.hq-3.unhealthy"], aside: 1 })
    expect(r.epochs).toEqual([7, 7, 7])
    expect(r.said.some((l) => l.startsWith("[controller] set aside a statement") && l.includes("state"))).toBe(true)
    const back = replayed(r.recorded)
    expect(back.counts).toMatchObject({ programs: 3, inferred: 0, differed: 0, unasked: 0 })
    expect(back.acts).toEqual(back.recordedActs)
    expect(back.said).toEqual(r.said.filter((l) => !l.includes("following")))
  })

  it("a follower whose transaction the store fences (a newer epoch seen) keeps nothing, acts no more, and its lease is lost in the store's words", async () => {
    const r = await run(
      standingsFollower({ names, batch: 50 }),
      Effect.gen(function* () {
        const bus = yield* MeshBus
        for (let i = 0; i < 3; i++) yield* bus.publish(names.failing, word(i, 3), "2026-12-01T07:00:00Z")
      }),
      () => Effect.flatMap(ControllerLease, (lease) => lease.lost),
      Effect.gen(function* () {
        const standings = yield* StandingsStore
        const lease = yield* ControllerLease
        const lost = yield* Effect.timeoutOption(lease.lost, "1 second")
        return {
          failing: (yield* standings.failing).length,
          lost: lost._tag === "Some" ? lost.value.said : undefined,
          epoch: yield* Effect.result(lease.epoch),
        }
      }),
      8,
    )
    expect(r.value.failing).toBe(0)
    expect(r.value.lost).toContain("epoch 8 is newer")
    expect(r.value.epoch._tag).toBe("Failure")
    expect(r.epochs).toEqual([])
  })
})
