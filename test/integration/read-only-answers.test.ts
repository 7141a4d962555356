// A catalogue entry is a contract (issue 39): `act: false` says asking it changes nothing. Held here
// against the handlers that answer it, on the real servers: every read of every catalogue (the gate's,
// the standings', the machines' reports, a push's, the lease's look, serve's schema reach at start and
// the provider's pass) is answered with every act of the lease's guard refused, and leaves as it was
// every table of the store, the lease's bucket, and the provider's roles and databases (each row
// compared before and after, so a read that locks the row it reads for the write after it is a read,
// and one that writes a row is not). The same check on acts bites: a letter set aside, a plan saved
// and a consumer created each change what is compared.
import { Effect, Layer } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import type { DeliveryQuestions, PushQuestions } from "@mesh-core/core/delivery/questions"
import type { reachQuestions } from "@mesh-core/core/gate/tick/schema-reach"
import type { LeaseQuestions } from "@mesh-core/core/lease/questions"
import type { ProvisionerQuestions } from "@mesh-core/core/provisioner/questions"
import type { GateQuestions } from "@mesh-core/core/gate/world"
import { openedPlan } from "../support/opened-plan.ts"
import type { ActKindOf, KindOf, QuestionOf } from "@mesh-core/core/program"
import type { StandingsQuestions } from "@mesh-core/core/standings/questions"
import { deliveryNames } from "../../shells/src/bus/delivery-names.ts"
import { MeshBus } from "../../shells/src/bus/mesh-bus.ts"
import { Bus, open } from "../../shells/src/bus/nats.ts"
import { deliveryAnswers, pushAnswers, pushServices } from "../../shells/src/delivery/answers.ts"
import { leaseAnswers } from "../../shells/src/lease/answers.ts"
import { leaseBucketName, openLeaseBucket } from "../../shells/src/lease/bucket.ts"
import { newestEpoch } from "../../shells/src/lease/fence.ts"
import { reachAnswers } from "../../shells/src/lease/schema-reach.ts"
import { type Announcer, memoryLayer } from "../../shells/src/provisioner/announcer.ts"
import { provisionerAnswers } from "../../shells/src/provisioner/answers.ts"
import { postgresAdapter } from "../../shells/src/provisioner/postgres-adapter.ts"
import { tickAnswers } from "../../shells/src/gate/answers.ts"
import { statementAnswers, witnessAnswers } from "../../shells/src/gate/message-answers.ts"
import { releaseAnswers, verbAnswers } from "../../shells/src/gate/operator-answers.ts"
import { ActGuard } from "../../shells/src/gate/guard.ts"
import { standingsAnswers } from "../../shells/src/standings/answers.ts"
import { DeliveryStore } from "../../shells/src/store/delivery.ts"
import { GateStore } from "../../shells/src/store/gate.ts"
import * as Store from "../../shells/src/store/postgres.ts"
import { migrate } from "../../shells/src/store/postgres.ts"
import { StandingsStore } from "../../shells/src/store/standings.ts"
import { databaseUrl, natsUrl, requirePostgres, uniqueNames, dropSchemas } from "../support/servers.ts"

/** One question of each read of a catalogue: the compiler asks for one for every kind it marks `act: false`. */
type Reads<C extends Parameters<typeof sample>[0], Not extends string = never> = {
  readonly [K in Exclude<Exclude<KindOf<C>, ActKindOf<C>>, Not>]: QuestionOf<C, K>
}
const sample = <C extends import("@mesh-core/core/program").Catalogue>(c: C) => c

const plan = openedPlan({
  module: "letta",
  build: "b2",
  commit: "c2",
  first: ["hq-1"],
  rest: [],
  previousBuild: "b1",
  previousCommit: "c1",
  sentAt: 1,
})
const statement = { machine: "hq-1", at: 1, resources: [{ resource: "r", module: "letta", state: "healthy" as const }] }

// `lease-holder` is answered from the lease on the bus by the verb responder, never by the store.
const gateReads: Reads<GateQuestions, "lease-holder"> = {
  "plans-in-flight": { q: "plans-in-flight" },
  "gate-facts": { q: "gate-facts" },
  now: { q: "now" },
  manifests: { q: "manifests", modules: ["letta"] },
  "engine-builds": { q: "engine-builds" },
  "witness-verdicts": { q: "witness-verdicts" },
  builds: { q: "builds", builds: ["b2"] },
  "among-kept": { q: "among-kept", module: "letta", build: "b2", kept: 3 },
  "store-reach": { q: "store-reach", build: "b2" },
  "verdict-of": { q: "verdict-of", build: "b2" },
  "holder-list": { q: "holder-list" },
  "latest-verdicts": { q: "latest-verdicts" },
  "probe-conditions": { q: "probe-conditions", source: "DG" },
  "plan-of": { q: "plan-of", id: plan.id },
  "mesh-records-read": { q: "mesh-records-read" },
  "kept-statement": { q: "kept-statement", machine: "hq-1" },
  "kept-witness": { q: "kept-witness", machine: "hq-1", component: "engine" },
}
const standingsReads: Reads<StandingsQuestions> = {}
const deliveryReads: Reads<DeliveryQuestions> = { "kept-report": { q: "kept-report", node: "hq-1" } }
const pushReads: Reads<PushQuestions> = {
  "mesh-records": { q: "mesh-records" },
  machines: { q: "machines" },
  "plans-holding": { q: "plans-holding" },
  sent: { q: "sent" },
  reports: { q: "reports" },
  "report-of": { q: "report-of", node: "hq-1" },
  now: { q: "now" },
  sleep: { q: "sleep", ms: 0 },
  "message-limit": { q: "message-limit" },
}
const leaseReads: Reads<LeaseQuestions> = {
  "lease-record": { q: "lease-record" },
  "lease-epoch-floor": { q: "lease-epoch-floor" },
  "lease-now": { q: "lease-now" },
}
const reachReads: Reads<typeof reachQuestions> = { "carried-reach": { q: "carried-reach" } }
const consumer = {
  as: "read_only_consumer",
  password: "not-the-real-one",
  values: {},
  derived: {},
  at: "2026-12-06T00:00:00Z",
  consumer: "letta",
}
const provisionerReads: Reads<ProvisionerQuestions> = {
  secret: { q: "secret", as: consumer.as, path: "package.json" },
  holds: { q: "holds", as: consumer.as, provision: consumer },
}

const letter = { kind: "words", stream: "s", subject: "x", streamSequence: 7, body: "{}", why: "unreadable" }
const acts = [
  { q: "set-aside", letters: [letter] },
  { q: "save-plan", plan },
  { q: "write-statement", statement, streaks: {} },
  { q: "create", as: consumer.as, provision: consumer },
] as const

const { schema, prefix } = uniqueNames("read_only")
afterAll(async () => {
  await dropSchemas([schema])
  // The provider's consumers the acts made: their databases, then their roles.
  const sql = await requirePostgres()
  try {
    for (const { datname } of await sql`select datname from pg_database where datname like ${`${consumer.as}%`}`)
      await sql.unsafe(`drop database if exists "${String(datname)}"`)
    for (const { rolname } of await sql`select rolname from pg_roles where rolname like ${`${consumer.as}%`}`)
      await sql.unsafe(`drop role if exists "${String(rolname)}"`)
  } finally {
    await sql.end()
  }
})

/**
 * Every row of every table of the schema, the lease's record in its bucket, and the roles and
 * databases a provider makes, as text: what a read must leave as it was.
 */
const tables = async (): Promise<string> => {
  const sql = await requirePostgres()
  try {
    // Only this file's consumers: other files make roles and databases on the same server meanwhile.
    const like = `${consumer.as}%`
    const made = await sql`select
      (select string_agg(rolname, ',' order by rolname) from pg_roles where rolname like ${like}) as roles,
      (select string_agg(datname, ',' order by datname) from pg_database where datname like ${like}) as databases`
    const lease = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const kv = yield* openLeaseBucket(leaseBucketName(prefix))
          return JSON.stringify(yield* Effect.result(kv.read))
        }).pipe(Effect.provide(Layer.effect(Bus, open(natsUrl)))),
      ),
    )
    const names = await sql`select table_name from information_schema.tables where table_schema = ${schema} order by 1`
    const out: Array<string> = []
    for (const { table_name } of names) {
      const [row] = await sql.unsafe(
        `select coalesce(jsonb_agg(to_jsonb(t) order by to_jsonb(t)::text), '[]')::text as rows from "${schema}"."${String(table_name)}" t`,
      )
      out.push(`${String(table_name)} ${String(row!["rows"])}`)
    }
    return [...out, `lease ${lease}`, `roles ${made[0]!["roles"]}`, `databases ${made[0]!["databases"]}`].join("\n")
  } finally {
    await sql.end()
  }
}

const refused = (what: string) => Effect.die(new Error(`a read asked the lease's guard to ${what}`))
const guardRefusing = Layer.succeed(
  ActGuard,
  ActGuard.of({ write: () => refused("write"), act: () => refused("act"), hold: () => Effect.void }),
)
const services = (guard: Layer.Layer<ActGuard>) =>
  Layer.mergeAll(
    GateStore.layer,
    DeliveryStore.layer,
    StandingsStore.layer,
    MeshBus.layerTest(),
    guard,
    Layer.effect(Bus, open(natsUrl)),
  ).pipe(Layer.provideMerge(Store.layer(databaseUrl, schema)))

/** Each question asked of the handlers the controller answers with, and what it got. */
const ask = (questions: ReadonlyArray<{ readonly q: string }>, guard: Layer.Layer<ActGuard> = guardRefusing) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const handlers: Record<string, (q: never) => Effect.Effect<unknown, unknown, Announcer | Store.Store>> = {
          // Each worker's answers: a kind two of them answer is answered alike (the same handler over the same services).
          ...(yield* statementAnswers),
          ...(yield* witnessAnswers),
          ...(yield* releaseAnswers(deliveryNames(prefix), () => Effect.void)),
          ...(yield* verbAnswers(deliveryNames(prefix), () => Effect.void)),
          ...(yield* tickAnswers(deliveryNames(prefix), () => Effect.void)),
          ...(yield* standingsAnswers),
          ...(yield* deliveryAnswers),
          ...(yield* pushAnswers(yield* pushServices, deliveryNames(prefix), undefined)).answers,
          ...leaseAnswers(yield* openLeaseBucket(leaseBucketName(prefix)), newestEpoch, 1_000, Effect.succeed(false)),
          ...reachAnswers,
          ...provisionerAnswers(yield* postgresAdapter({ adminUrl: databaseUrl }), 5_000),
        }
        const out: Array<unknown> = []
        for (const q of questions) out.push(yield* Effect.result(handlers[q.q]!(q as never)))
        return out
      }).pipe(Effect.provide(Layer.merge(services(guard), memoryLayer([])))),
    ),
  )

describe("a question marked as changing nothing (issue 39)", () => {
  it("is answered by a read: no act of the lease's guard, every table of the store as it was", async () => {
    const setup = await requirePostgres()
    await migrate(setup, schema)
    await setup.end()
    // Something to read: the reads that lock a row for the write after them find one.
    const seeded = await ask(acts, ActGuard.layerUnfenced)
    for (const s of seeded) expect(s).toMatchObject({ _tag: "Success" })
    const reads = [
      gateReads,
      standingsReads,
      deliveryReads,
      pushReads,
      leaseReads,
      reachReads,
      provisionerReads,
    ].flatMap((r) => Object.values<{ readonly q: string }>(r))
    for (const read of reads) {
      const before = await tables()
      const [answer] = await ask([read])
      expect(answer, read.q).toMatchObject({ _tag: "Success" })
      expect(await tables(), read.q).toBe(before)
    }
  })

  // Asked again when the server ends a connection mid-query (57P01, seen once in a whole CI run while
  // the acts take newer epochs): that is no act's outcome; the cause is still to be found.
  it("bites: each act, asked the same way, changes a table", async () => {
    for (const [n, act] of acts.entries()) {
      const before = await tables()
      const fresh =
        act.q === "set-aside"
          ? { ...act, letters: [{ ...letter, streamSequence: 100 + n }] }
          : act.q === "save-plan"
            ? { ...act, plan: { ...plan, id: `${plan.id}-${n}` } }
            : act.q === "create"
              ? { ...act, as: `${consumer.as}_${n}`, provision: { ...consumer, as: `${consumer.as}_${n}` } }
              : { ...act, statement: { ...statement, machine: `hq-${n + 10}` } }
      await ask([fresh], ActGuard.layerUnfenced)
      expect(await tables(), act.q).not.toBe(before)
    }
  })
})
