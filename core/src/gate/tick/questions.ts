// What the tick's programs ask (issues 25, 39): `moveQuestions`, what carrying a plan on asks (a tier
// sent, a verdict kept, a rollback decided and sent: moves.ts, carried.ts, said.ts), which the
// operators' verbs ask too, as they carry a plan on the same way; and `tickQuestions`, those and what
// one judging reads. Each entry is spelt here once: the verbs, the release and the health statements
// ask the ones they share with the tick from here. What a replay infers of them is gate/world.ts's
// table; how the timeline shows them and what the metrics count, the controller's.
import * as Schema from "effect/Schema"
import { entry } from "../../program.ts"
import { Names, now, Outcome, question, readable } from "../../outcome.ts"
import { BuildRecord, PlanRecord, Sent, VerdictRecord } from "../plan/records.ts"
export { Sent } from "../plan/records.ts"
import { ConditionRecord, GateFactsRecord, ManifestRecord, ObservationRecord, WitnessRecord } from "../judging/facts.ts"

/**
 * A send counts as sent when no error came back and every machine asked was told (issue 9: a send
 * that reached some machines is tried again, and counted failed until it reaches every one).
 */
export const sentEvery = (machines: ReadonlyArray<string>, a: unknown): boolean => {
  if (typeof a !== "object" || a === null || ("error" in a && a.error !== undefined)) return false
  const told = "told" in a && Array.isArray(a.told) ? a.told : undefined
  return told === undefined || machines.every((m) => told.includes(m))
}

/**
 * What a controller's build reads of the store's schema: the migration the store is at now (the
 * highest applied), and the one the build recorded it reads up to (absent when it never recorded one).
 */
export const StoreReachRecord = Schema.Struct({ storeAt: Schema.Number, reach: Schema.optional(Schema.Number) })

/** A read: answered with the value, or why it could not be read. */
export const read = <K extends string, F extends Schema.Struct.Fields, A extends Schema.Top>(
  kind: K,
  fields: F,
  answer: A,
) => entry({ question: question(kind, fields), answer: readable(answer), act: false })

/** An act: answered done, or why not. */
export const act = <K extends string, F extends Schema.Struct.Fields>(kind: K, fields: F) =>
  entry({ question: question(kind, fields), answer: Outcome, act: true })

/** What carrying a plan on asks: the tick's moves, and the operators' verbs, which carry a plan on as the tick does. */
export const moveQuestions = {
  builds: read("builds", { builds: Names }, Schema.Array(BuildRecord)),
  "among-kept": read(
    "among-kept",
    { module: Schema.String, build: Schema.String, kept: Schema.Number },
    Schema.Boolean,
  ),
  /**
   * What a controller's build reads of the store's schema, against the migration the store is at now
   * (issue 352): asked only before putting a controller's build back. A what-if without it reads it as
   * reaching the store, so only what was recorded refuses a rollback.
   */
  "store-reach": read("store-reach", { build: Schema.String }, StoreReachRecord),
  "record-verdict": entry({
    question: question("record-verdict", { verdict: VerdictRecord }),
    answer: Schema.Union([
      Schema.Struct({ ok: Schema.Literal(true), mine: Schema.Boolean }),
      Schema.Struct({ ok: Schema.Literal(false), why: Schema.String }),
    ]),
    act: true,
  }),
  /**
   * The verdict kept for a build, when one was: a plan still open whose verdict is kept was left by a
   * controller that stopped between keeping it and moving the plan on, and is resumed.
   */
  "verdict-of": read(
    "verdict-of",
    { build: Schema.String },
    Schema.NullOr(Schema.Struct({ verdict: VerdictRecord, keptAt: Schema.Number })),
  ),
  "set-build": act("set-build", { module: Schema.String, build: Schema.String, commit: Schema.String }),
  "set-rollback": act("set-rollback", {
    build: Schema.String,
    rollback: Schema.String,
    // The verdict's reason with why it was not put back, kept with the verdict (seed 003's notBack:
    // SetRollback(build, NotRolledBack, why)); absent, the reason kept is left as it was.
    why: Schema.optionalKey(Schema.String),
  }),
  /**
   * A plan's own send: a push of exactly these machines, composed with what every plan holds
   * (core/src/delivery/held.ts, request `{kind: "plan"}`). `told`: the machines sent.
   */
  "send-plan": entry({
    question: question("send-plan", {
      plan: Schema.String,
      module: Schema.String,
      why: Schema.Literals(["tier", "rest", "rollback", "user-list"]),
      machines: Names,
      /**
       * A dry run's send (issue 10): these machines are composed with this build of the module, which
       * is not registered (so nothing holds for it and no other push sends it).
       */
      build: Schema.optionalKey(Schema.String),
    }),
    answer: Sent,
    act: true,
  }),
  /**
   * The machine holding the bus, and whether what it reports running lacks the user list composed
   * now (core/src/delivery/order.ts holderBehind, composed with what the plans hold).
   */
  "holder-list": read(
    "holder-list",
    {},
    Schema.Struct({ holder: Schema.NullOr(Schema.String), behind: Schema.Boolean }),
  ),
  publish: act("publish", { event: Schema.String, body: Schema.Record(Schema.String, Schema.Unknown) }),
  "save-plan": act("save-plan", { plan: PlanRecord }),
  "raise-condition": act("raise-condition", { observation: ObservationRecord, at: Schema.Number }),
  "clear-condition": act("clear-condition", { key: Schema.String, by: Schema.String }),
}
export type MoveQuestions = typeof moveQuestions

/** A tier's send (`send-plan`); a dry run's is composed with its own build, which nothing registered (issue 10). */
export const tierSend = (p: PlanRecord, machines: ReadonlyArray<string>) => ({
  q: "send-plan" as const,
  plan: p.id,
  module: p.module,
  why: "tier" as const,
  machines,
  ...(p.dryRun === true ? { build: p.build } : {}),
})

/** Every question of the tick: a plan carried on, and what one judging and the gate's probe read. */
export const tickQuestions = {
  ...moveQuestions,
  /** Every plan not ended: `open`, `sending` or `rolling-back`. */
  "plans-in-flight": read("plans-in-flight", {}, Schema.Array(PlanRecord)),
  "gate-facts": entry({ question: question("gate-facts", {}), answer: GateFactsRecord, act: false }),
  /** The clock, for a tick that gathers no gate facts. */
  now,
  /** What the gate knows of each module asked: its tools, and for the engine the builds a send delivers. */
  manifests: read("manifests", { modules: Names }, Schema.Record(Schema.String, ManifestRecord)),
  /** Each machine's node-engine build, as it last reported it. */
  "engine-builds": read("engine-builds", {}, Schema.Record(Schema.String, Schema.String)),
  /** What each machine's witnesses say they decided: the newest verdict per machine and component kept. */
  "witness-verdicts": read("witness-verdicts", {}, Schema.Record(Schema.String, Schema.Array(WitnessRecord))),
  /** The newest verdict of each module (the gate's probe keeps a failed one's condition). */
  "latest-verdicts": read("latest-verdicts", {}, Schema.Array(VerdictRecord)),
  /** The open conditions a probe keeps, by its source (the gate's: `DG`). */
  "probe-conditions": read("probe-conditions", { source: Schema.String }, Schema.Array(ConditionRecord)),
}
export type TickQuestions = typeof tickQuestions
