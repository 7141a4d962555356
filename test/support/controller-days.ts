// Random controller days: a few machines, builds that are healthy, crash-loop or flap, releases at
// random times, providers' words, restarts and store outages, random gate settings and cadences.
// Each is recorded by running the core's programs against the simulated world
// (examples/controller-world.ts), so properties can be stated over whole recorded days.
import fc from "fast-check"
import { type ControllerFact, freshControllerReader, readControllerNext } from "@mesh-core/core/controller/log"
import {
  gateSweep,
  gateSweepEnd,
  gateSweepFact,
  gateSweepPoints,
  gateSweepStart,
} from "@mesh-core/core/controller/sweep"
import {
  type BuildScript,
  crashLoopAfter,
  type DayScript,
  type Happening,
  healthyAfter,
} from "../../examples/controller-world.ts"

const second = 1_000
const minute = 60 * second

/** Health by 30-second spells, each chosen from the build's seed: a build that flaps. */
const flapping = (seed: number) => (since: number) => {
  const spell = Math.floor(since / (30 * second))
  const roll = (Math.imul(seed ^ (spell * 2654435761), 2246822519) >>> 0) % 3
  return roll === 0
    ? { state: "unhealthy" as const, reason: `spell ${spell}: probe failed` }
    : roll === 1
      ? { state: "starting" as const }
      : { state: "healthy" as const }
}

const health = fc.oneof(
  fc.integer({ min: 0, max: 90 * second }).map((s) => healthyAfter(s)),
  fc
    .tuple(fc.integer({ min: 0, max: 30 * second }), fc.integer({ min: 0, max: 60 * second }))
    .map(([s, h]) => crashLoopAfter(s, h, "exited with code 137, restarting (crash loop)")),
  fc.integer({ min: 1, max: 1_000_000 }).map(flapping),
)

const duration = (min: number, max: number) => fc.integer({ min, max }).map((n) => `${n}s`)

const word = (consumers: ReadonlyArray<string>) =>
  fc.record({
    consumer: fc.constantFrom(...consumers),
    failing: fc.boolean(),
    attempts: fc.integer({ min: 1, max: 500 }),
  })

export const controllerDay: fc.Arbitrary<DayScript> = fc
  .record({
    machineCount: fc.integer({ min: 1, max: 3 }),
    length: fc.integer({ min: 3 * minute, max: 16 * minute }),
    settings: fc.record({
      settle: duration(5, 180),
      bound: duration(60, 600),
      every: duration(5, 60),
      passes: fc.integer({ min: 1, max: 4 }),
    }),
    tick: fc.integer({ min: 5, max: 60 }).map((n) => n * second),
    statementEvery: fc.integer({ min: 10, max: 90 }).map((n) => n * second),
    statementOffset: fc.integer({ min: 1, max: 15 }).map((n) => n * second),
    applyAfter: fc.integer({ min: 1, max: 40 }).map((n) => n * second),
    releases: fc.array(
      fc.record({ at: fc.integer({ min: 0, max: 14 * minute }), health, firstCount: fc.integer({ min: 1, max: 2 }) }),
      { minLength: 1, maxLength: 3 },
    ),
    words: fc.array(fc.record({ at: fc.integer({ min: 0, max: 16 * minute }), w: word(["letta", "grafana"]) }), {
      maxLength: 4,
    }),
    restarts: fc.array(
      fc.record({
        at: fc.integer({ min: 1, max: 16 * minute }),
        passes: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
      }),
      { maxLength: 2 },
    ),
    outage: fc.option(
      fc.record({
        at: fc.integer({ min: 0, max: 14 * minute }),
        for: fc.integer({ min: 1, max: 90 }).map((n) => n * second),
      }),
      { nil: undefined },
    ),
    // A person's verbs, some of them while the store is down (issue 27: a verb refused live for a
    // store away was replayed done).
    verbs: fc.array(
      fc.record({
        at: fc.integer({ min: 1, max: 16 * minute }),
        verb: fc.constantFrom("pause" as const, "resume" as const, "promote" as const, "abort" as const),
        release: fc.integer({ min: 0, max: 1 }),
      }),
      { maxLength: 3 },
    ),
  })
  .map((r): DayScript => {
    const machines = ["hq-3", "hq-4", "hq-5"].slice(0, r.machineCount)
    const happenings: Array<Happening> = []
    r.releases.forEach((rel, i) => {
      const build: BuildScript = { build: `letta-${210 + i}`, commit: `c0ffee${i}a2b3c`, health: rel.health }
      happenings.push({
        at: rel.at,
        kind: "release",
        build,
        first: machines.slice(0, Math.min(rel.firstCount, machines.length)),
      })
    })
    for (const { at, w } of r.words) {
      const body = w.failing
        ? {
            provider: "identity",
            "provider-node": "hq-2",
            consumer: w.consumer,
            node: "hq-3",
            class: "credentials-rejected",
            error: "password authentication failed",
            since: "2026-11-20T09:00:00Z",
            attempts: w.attempts,
          }
        : {
            provider: "identity",
            "provider-node": "hq-2",
            consumer: w.consumer,
            attempts: w.attempts,
            why: "credentials-accepted",
          }
      happenings.push({ at, kind: "word", event: w.failing ? "provisioner.failing" : "provisioner.recovered", body })
    }
    // A restart may come up under other gate settings: the replay runs what follows under those.
    for (const { at, passes } of r.restarts)
      happenings.push(
        passes === undefined ? { at, kind: "restart" } : { at, kind: "restart", settings: { ...r.settings, passes } },
      )
    for (const v of r.verbs) happenings.push({ at: v.at, kind: "verb", verb: v.verb, release: v.release })
    // And one inside the outage, when there is one: the verb the store's absence refuses.
    const first = r.verbs[0]
    if (r.outage !== undefined && first !== undefined)
      happenings.push({ at: r.outage.at + 500, kind: "verb", verb: first.verb, release: first.release })
    if (r.outage !== undefined)
      happenings.push({
        at: r.outage.at,
        kind: "store-down",
        for: r.outage.for,
        why: "connect ECONNREFUSED 127.0.0.1:5432",
      })
    return {
      start: Date.UTC(2026, 10, 20, 10, 0, 0),
      length: r.length,
      settings: r.settings,
      module: "letta",
      resource: "letta-app",
      machines,
      builds: [{ build: "letta-203", commit: "a71c3d09e4", health: healthyAfter(10 * second) }],
      tick: r.tick,
      statementEvery: r.statementEvery,
      statementOffset: r.statementOffset,
      applyAfter: r.applyAfter,
      happenings,
    }
  })

/** The gate's sweep over a controller log's lines, in one reading: what `simulate --sweep` prints. */
export const gateSweepOf = (lines: ReadonlyArray<string>, said: ReadonlyArray<string>) => {
  const points = gateSweepPoints(said)
  if ("problem" in points) throw new Error(points.problem)
  const sweep = gateSweep(points)
  let reader = freshControllerReader
  for (const text of lines) {
    const r = readControllerNext(reader, text)
    if (!r.ok) throw new Error(r.bad.problem)
    if (reader.header === undefined && r.state.header !== undefined) gateSweepStart(sweep, r.state.header.settings.gate)
    reader = r.state
    if (r.fact !== undefined) gateSweepFact(sweep, r.fact as ControllerFact)
  }
  return gateSweepEnd(sweep)
}
