// Every setting of the core's table as this process reads it (`mesh-controller settings`, issue 44),
// and every refusal of them at once, as `serve`, `settings` and `doctor` check before anything is
// opened (issue 43: a setting found wrong only after the store opened).
import { settingTable, type SettingRead } from "@mesh-core/core/controller/setting-table"
import { Config, Effect, Option } from "effect"
import { builtAs } from "../build-stamp.ts"
import { named, optionalSetting, readSettings, tableSetting } from "../config.ts"
import { leaseSettingsConfig } from "../lease/settings.ts"

/** Each setting: its value, and whether it came from the environment, its default or the build stamp. */
export const readEverySetting: Effect.Effect<ReadonlyArray<SettingRead>> = Effect.forEach(settingTable, (setting) =>
  Config.option(Config.String(setting.name)).pipe(
    Effect.orElseSucceed(() => Option.none<string>()),
    Effect.map((given): SettingRead => {
      if (Option.isSome(given)) return { setting, value: given.value, from: "environment" }
      if (setting.name === "MESH_BUILD" && builtAs !== undefined)
        return { setting, value: builtAs.build, from: "build stamp" }
      return setting.fallback === undefined
        ? { setting, value: undefined, from: "unset" }
        : { setting, value: setting.fallback, from: "default" }
    }),
  ),
)

const problemOf = <A, E extends { readonly message: string }, R>(e: Effect.Effect<A, E, R>) =>
  Effect.match(e, { onFailure: (f): ReadonlyArray<string> => [f.message], onSuccess: () => [] })

/** Every setting refused, each in one line; none when all read. */
export const settingProblems: Effect.Effect<ReadonlyArray<string>> = Effect.gen(function* () {
  const each = yield* Effect.forEach(settingTable, (s) =>
    problemOf(
      s.fallback === undefined
        ? Effect.asVoid(named(s.name, optionalSetting(s.name)))
        : Effect.asVoid(named(s.name, tableSetting(s.name))),
    ),
  )
  if (each.flat().length > 0) return each.flat()
  // The rules between settings (a URL read as a connection, the lease's bounds), once each reads alone.
  const between = yield* Effect.all([problemOf(readSettings), problemOf(leaseSettingsConfig)])
  return between.flat()
})
