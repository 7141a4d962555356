// The gate's commands: release (open a plan and send its first machines), plans, conditions.
import { Clock, Effect, Layer } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { gateLine } from "@mesh-core/core/gate/judging/observations"
import { releaseProgram } from "@mesh-core/core/gate/operator/release"

import { ConnectionSettings, readGateSettings } from "../config.ts"
import { MeshBus } from "../bus/mesh-bus.ts"
import { drive } from "../program/drive.ts"
import { releaseAnswers } from "../gate/operator-answers.ts"
import { ActGuard } from "../gate/guard.ts"
import * as Journal from "../journal.ts"
import { deliveryNames } from "../bus/delivery-names.ts"
import { writeLines, writeOut } from "../files/output.ts"
import { GateStore } from "../store/gate.ts"
import { readOpenConditions, staleAfterMs } from "../controller/status.ts"
import { conditionLine } from "@mesh-core/core/status/conditions"
import { BusLive, forCommand, StoreLive, storesOver } from "./wiring.ts"
import { CommandFailed, endingWith, exitCodes } from "./errors.ts"

const bad = (said: string) => Effect.fail(new CommandFailed({ code: exitCodes.badInput, said }))
const stores = forCommand(storesOver(StoreLive))
const json = Flag.Boolean("json").pipe(Flag.withDescription("Print as JSON, for scripts"), Flag.withDefault(false))

export const releaseCommand = Command.make(
  "release",
  {
    module: Argument.String("module").pipe(Argument.withDescription("The module whose new build goes out")),
    build: Flag.String("build").pipe(Flag.withDescription("The new build's id")),
    commit: Flag.String("commit").pipe(Flag.withDescription("The commit it was made from")),
    source: Flag.String("source").pipe(
      Flag.withDescription("The fingerprint of the source it was made from"),
      Flag.optional,
    ),
    manifest: Flag.String("manifest").pipe(
      Flag.withDescription("The fingerprint of the manifest it was made from (with --artifacts)"),
      Flag.optional,
    ),
    artifacts: Flag.String("artifacts").pipe(
      Flag.withDescription(
        "The fingerprint of the artifacts it made (with --manifest): a failed gate leaves a send between builds with the same manifest and artifacts as it was",
      ),
      Flag.optional,
    ),
    first: Flag.String("first").pipe(
      Flag.withDescription("A first machine, judged by the gate before any other is sent (repeatable)"),
      Flag.atLeast(1),
    ),
    then: Flag.String("then").pipe(
      Flag.withDescription(
        "A further tier, machines separated by commas (hq-4,hq-5), judged by the gate once the tier before passed (repeatable)",
      ),
      Flag.atLeast(0),
    ),
    dryRun: Flag.Boolean("dry-run").pipe(
      Flag.withDescription(
        "Send the first tier the build and judge it as a real gate would, saying what it would decide; register, hold, send and put back nothing else",
      ),
      Flag.withDefault(false),
    ),
  },
  ({ module, build, commit, source, manifest, artifacts, first, then, dryRun }) =>
    Effect.gen(function* () {
      // The plan, its tiers, what is registered and sent, and what is said are the core's
      // (core/src/gate/operator/release.ts releaseProgram); this answers its questions and prints its sentence.
      const handlers = yield* releaseAnswers(deliveryNames((yield* ConnectionSettings).busPrefix), (l) =>
        writeLines([l]),
      )
      const now = yield* Clock.currentTimeMillis
      const inputs = {
        module,
        build,
        commit,
        source: source._tag === "Some" ? source.value : undefined,
        manifest: manifest._tag === "Some" ? manifest.value : undefined,
        artifacts: artifacts._tag === "Some" ? artifacts.value : undefined,
        first,
        then,
        dryRun,
      }
      const released = (yield* drive(releaseProgram(inputs, now), handlers)).result
      if (released.code !== 0)
        return yield* Effect.fail(new CommandFailed({ code: released.code, said: released.said }))
      const s = yield* readGateSettings.pipe(Effect.catchTag("SettingRefused", (e) => bad(e.message)))
      yield* writeOut(
        `${released.said} (${s.passes} passes over at least ${s.settle / 1000}s, within ${s.bound / 1000}s)\n`,
      )
    }).pipe(
      // The release is a person's command, acting outside the lease as push does (gate/guard.ts).
      Effect.provide(
        Layer.mergeAll(MeshBus.layer, ActGuard.layerUnfenced).pipe(
          Layer.provideMerge(
            Layer.mergeAll(forCommand(Layer.merge(storesOver(StoreLive), BusLive)), Journal.stderrLayer),
          ),
        ),
      ),
      endingWith(exitCodes.unreachable),
    ),
).pipe(
  Command.withDescription(
    "Release a module's new build in tiers: each tier sent and judged by the gate that serve runs before the next, then the rest, or put back where it was sent",
  ),
)

/** `plans` and `plans list`: every plan and its gate (the parent is plans-commands.ts). */
export const listPlans = Effect.fn("Plans.list")(
  function* ({ json }: { readonly json: boolean }) {
    const all = yield* (yield* GateStore).plans
    const s = yield* readGateSettings.pipe(Effect.catchTag("SettingRefused", (e) => bad(e.message)))
    if (json) return yield* writeOut(`${JSON.stringify(all)}\n`)
    const lines =
      all.length === 0
        ? ["no release plans"]
        : all.flatMap((p) => [
            `${p.id}: ${p.module} ${p.build}, ${p.state}`,
            `  ${p.gate === undefined ? `gate on ${p.machines.join(", ")}: not judged yet` : gateLine(p.gate, s)}`,
            ...(p.note === "" ? [] : [`  ${p.note}`]),
          ])
    yield* writeLines(lines)
  },
  (effect) => effect.pipe(Effect.provide(stores), endingWith(exitCodes.unreachable)),
)

export const conditionsCommand = Command.make(
  "conditions",
  { key: Argument.String("key").pipe(Argument.withDescription("One condition, by its key"), Argument.optional), json },
  ({ key, json }) =>
    Effect.gen(function* () {
      const staleAfter = yield* staleAfterMs.pipe(
        Effect.mapError((e) => new CommandFailed({ code: exitCodes.badInput, said: `MESH_STALE_AFTER: ${e.message}` })),
      )
      // The failing standings among them, as one list (issue 28; core/src/status/conditions.ts).
      const open = yield* readOpenConditions(staleAfter)
      const shown = key._tag === "Some" ? open.filter((c) => c.key === key.value) : open
      if (key._tag === "Some" && shown.length === 0) return yield* bad(`no open condition ${key.value}`)
      if (json) return yield* writeOut(`${JSON.stringify(shown)}\n`)
      const lines = shown.length === 0 ? ["nothing is wrong that a condition says"] : shown.map(conditionLine)
      yield* writeLines(lines)
    }).pipe(Effect.provide(stores), endingWith(exitCodes.unreachable)),
).pipe(Command.withDescription("What is wrong, as the open conditions say it"))
