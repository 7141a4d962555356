// The gate's commands: release (open a plan and send its first machines), plans, conditions.
import { Clock, Effect, Layer } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { gateLine } from "@mesh-core/core/gate/observations"
import { planRelease } from "@mesh-core/core/gate/release"
import * as Bus from "../bus/nats.ts"
import { busPrefix, databaseUrl, natsUrl, readGateSettings, storeSchema } from "../config.ts"
import { push } from "../delivery/push.ts"
import { deliveryNames } from "../delivery/wire.ts"
import { writeOut } from "../files/output.ts"
import * as Store from "../store/postgres.ts"
import { loadRecords, saveRecords } from "../store/delivery.ts"
import { GateStore, openConditions, recordBuild } from "../store/gate.ts"
import { gateOf, openedPlan } from "@mesh-core/core/controller/records"
import { CommandFailed, endingWith, exitCodes } from "./errors.ts"

const bad = (said: string) => Effect.fail(new CommandFailed({ code: exitCodes.badInput, said }))
const store = () => Store.layerMigrated(databaseUrl(), storeSchema())
const json = Flag.Boolean("json").pipe(Flag.withDescription("Print as JSON, for scripts"), Flag.withDefault(false))

export const releaseCommand = Command.make(
  "release",
  {
    module: Argument.String("module").pipe(Argument.withDescription("The module whose new build goes out")),
    build: Flag.String("build").pipe(Flag.withDescription("The new build's id")),
    commit: Flag.String("commit").pipe(Flag.withDescription("The commit it was made from")),
    source: Flag.String("source").pipe(Flag.withDescription("The fingerprint of the source it was made from"), Flag.optional),
    first: Flag.String("first").pipe(Flag.withDescription("A first machine, judged by the gate before the rest are sent (repeatable)"), Flag.atLeast(1)),
  },
  ({ module, build, commit, source, first }) =>
    Effect.gen(function*() {
      const { sql, url } = yield* Store.Store
      const io = <A>(f: () => Promise<A>) => Effect.tryPromise({ try: f, catch: Store.storeError(url) })
      const records = yield* io(() => loadRecords(sql))
      if (records === undefined) return yield* bad("the mesh has no records yet: give them with mesh-controller mesh apply FILE")
      const plan = planRelease(records, module, build, commit, first)
      if (!plan.ok) return yield* bad(plan.problem)
      // What the first machines ran before: the registered build, kept so a rollback can find it.
      if (plan.previousCommit !== undefined) yield* io(() => recordBuild(sql, { build: plan.previousBuild, module, commit: plan.previousCommit! }))
      yield* io(() => recordBuild(sql, { build, module, commit, source: source._tag === "Some" ? source.value : undefined }))
      yield* io(() => saveRecords(sql, plan.records))
      // When the first machines were sent it: the gate's settle and bound count from here.
      const sentAt = yield* Clock.currentTimeMillis
      const result = yield* push({ machines: first, node: undefined, behind: false, wait: 0, names: deliveryNames(busPrefix()), say: (l) => writeOut(`${l}\n`) })
      if (result.error !== undefined) return yield* Effect.fail(new CommandFailed({ code: exitCodes.notWell, said: result.error }))
      const opened = openedPlan({
        module, build, commit, first, rest: plan.rest, previousBuild: plan.previousBuild, previousCommit: plan.previousCommit, sentAt,
      })
      const id = opened.id
      yield* (yield* GateStore).savePlan(opened)
      const s = yield* readGateSettings.pipe(Effect.catchTag("SettingRefused", (e) => bad(e.message)))
      yield* writeOut(`plan ${id}: ${module} ${build} sent to ${first.join(", ")}; the gate judges it there (${s.passes} passes over at least ` +
        `${s.settle / 1000}s, within ${s.bound / 1000}s), then the rest are sent${plan.rest.length > 0 ? ` (${plan.rest.join(", ")})` : ""}\n`)
    }).pipe(Effect.provide(Layer.mergeAll(GateStore.layer.pipe(Layer.provideMerge(store())), Bus.layer(natsUrl()))), endingWith(exitCodes.unreachable)),
).pipe(Command.withDescription("Release a module's new build: sent to its first machines, judged there by the gate that serve runs, then to the rest or put back"))

/** `plans` and `plans list`: every plan and its gate (the parent is plans-commands.ts). */
export const listPlans = ({ json }: { readonly json: boolean }) =>
  Effect.gen(function*() {
    const all = yield* (yield* GateStore).plans
    const s = yield* readGateSettings.pipe(Effect.catchTag("SettingRefused", (e) => bad(e.message)))
    if (json) return yield* writeOut(`${JSON.stringify(all)}\n`)
    const lines = all.length === 0 ? ["no release plans"] : all.flatMap((p) => [
      `${p.id}: ${p.module} ${p.build}, ${p.state}`,
      `  ${p.gate === undefined ? `gate on ${p.machines.join(", ")}: not judged yet` : gateLine(gateOf(p.gate), s)}`,
      ...(p.note === "" ? [] : [`  ${p.note}`]),
    ])
    yield* writeOut(`${lines.join("\n")}\n`)
  }).pipe(Effect.provide(GateStore.layer.pipe(Layer.provide(store()))), endingWith(exitCodes.unreachable))

export const conditionsCommand = Command.make(
  "conditions",
  { key: Argument.String("key").pipe(Argument.withDescription("One condition, by its key"), Argument.optional), json },
  ({ key, json }) =>
    Effect.gen(function*() {
      const { sql, url } = yield* Store.Store
      const open = yield* Effect.tryPromise({ try: () => openConditions(sql), catch: Store.storeError(url) })
      const shown = key._tag === "Some" ? open.filter((c) => c.key === key.value) : open
      if (key._tag === "Some" && shown.length === 0) return yield* bad(`no open condition ${key.value}`)
      if (json) return yield* writeOut(`${JSON.stringify(shown)}\n`)
      const lines = shown.length === 0 ? ["nothing is wrong that a condition says"] : shown.map((c) =>
        `${c.key} (${c.severity}${c.resolver ? `, for a person` : ""}) raised ${new Date(c.raised).toISOString()} by ${c.source}: ${c.summary}`)
      yield* writeOut(`${lines.join("\n")}\n`)
    }).pipe(Effect.provide(store()), endingWith(exitCodes.unreachable)),
).pipe(Command.withDescription("What is wrong, as the open conditions say it"))
