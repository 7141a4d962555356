// Where the bus and the store are, and the controller's settings, from the environment: read through
// Effect's Config, decoded by the core's Schemas (core/src/controller/settings.ts), once at start.
// A bad value is refused there with one line and exit code 2, never replaced by a default in silence.
// URLs are Redacted: printed, they show no password.
import {
  BusPrefixSetting, durationMs, PassesSetting, PositiveDuration, StoreSchemaSetting,
} from "@mesh-core/core/controller/settings"
import { defaultGateSettings, type GateSettings } from "@mesh-core/core/gate/judge"
import { formatDuration } from "@mesh-core/core/duration"
import { StaleAfterSetting } from "@mesh-core/core/standings/status"
import { Config, Context, Data, Effect, Layer, Redacted } from "effect"

export const defaultNatsUrl = "nats://127.0.0.1:4222"
export const defaultDatabaseUrl = "postgres://postgres@127.0.0.1:5432/test"

// The plain readers the one-shot commands use (push, release, status…).
export const natsUrl = (): string => process.env["NATS_URL"] ?? defaultNatsUrl
export const databaseUrl = (): string => process.env["DATABASE_URL"] ?? defaultDatabaseUrl
/** A prefix for every subject and stream this mesh uses, so several meshes (or test runs) share one bus. */
export const busPrefix = (): string => process.env["MESH_BUS_PREFIX"] ?? ""
/** The PostgreSQL schema the controller keeps its records in. */
export const storeSchema = (): string => process.env["MESH_STORE_SCHEMA"] ?? "mesh"

/** A URL as it may be printed: any password in it replaced. */
export const redactUrl = (url: string): string => {
  try {
    const u = new URL(url)
    if (u.password !== "") u.password = "***"
    return u.toString()
  } catch {
    return url.replace(/\/\/([^/@]*)@/, (_m, who: string) => `//${who.includes(":") ? `${who.slice(0, who.indexOf(":"))}:***` : who}@`)
  }
}

/** A text as it may be printed: every spelling of the URL's password replaced (an error may quote the URL). */
export const withoutPassword = (text: string, url: string): string => {
  let password = ""
  try {
    password = new URL(url).password
  } catch {
    password = /\/\/[^:/@]*:([^@]*)@/.exec(url)?.[1] ?? ""
  }
  if (password === "") return text.split(url).join(redactUrl(url))
  const forms = new Set([password])
  try {
    forms.add(decodeURIComponent(password))
  } catch { /* not percent-encoded */ }
  forms.add(encodeURIComponent(password))
  let out = text.split(url).join(redactUrl(url))
  for (const f of [...forms].sort((a, b) => b.length - a.length)) if (f !== "") out = out.split(f).join("***")
  return out
}

export class SettingRefused extends Data.TaggedError("SettingRefused")<{ readonly said: string }> {
  override get message(): string {
    return this.said
  }
}

const named = <A>(name: string, c: Config.Config<A>): Effect.Effect<A, SettingRefused> =>
  Effect.mapError(c, (e) => {
    const problem = e.cause.message
    const value = process.env[name]
    return new SettingRefused({ said: `${name}${value === undefined ? "" : ` ${JSON.stringify(value)}`}: ${oneLine(problem.replace(/\s+at \[.*\]\s*$/s, ""))}` })
  })

const oneLine = (s: string) => s.replace(/\s+/g, " ").trim()

const duration = (name: string, fallbackMs: number) =>
  named(name, Config.schema(PositiveDuration, name).pipe(Config.withDefault(formatDuration(fallbackMs)), Config.map(durationMs)))

/** Everything `serve` is told by its environment, read and checked once at start. */
export interface Settings {
  readonly natsUrl: Redacted.Redacted<string>
  readonly databaseUrl: Redacted.Redacted<string>
  readonly busPrefix: string
  readonly storeSchema: string
  readonly staleAfterMs: number
  readonly gate: GateSettings
}

/** The gate's settings alone (MESH_GATE_SETTLE, _BOUND, _EVERY, _PASSES), for the commands that word them. */
export const readGateSettings: Effect.Effect<GateSettings, SettingRefused> = Effect.gen(function*() {
  return {
    settle: yield* duration("MESH_GATE_SETTLE", defaultGateSettings.settle),
    bound: yield* duration("MESH_GATE_BOUND", defaultGateSettings.bound),
    every: yield* duration("MESH_GATE_EVERY", defaultGateSettings.every),
    passes: yield* named("MESH_GATE_PASSES", Config.schema(PassesSetting, "MESH_GATE_PASSES").pipe(Config.withDefault(String(defaultGateSettings.passes)), Config.map(Number))),
  }
})

export const readSettings: Effect.Effect<Settings, SettingRefused> = Effect.gen(function*() {
  const natsUrl = yield* named("NATS_URL", Config.Redacted("NATS_URL").pipe(Config.withDefault(Redacted.make(defaultNatsUrl))))
  const databaseUrl = yield* named("DATABASE_URL", Config.Redacted("DATABASE_URL").pipe(Config.withDefault(Redacted.make(defaultDatabaseUrl))))
  const busPrefix = yield* named("MESH_BUS_PREFIX", Config.schema(BusPrefixSetting, "MESH_BUS_PREFIX").pipe(Config.withDefault("")))
  const storeSchema = yield* named("MESH_STORE_SCHEMA", Config.schema(StoreSchemaSetting, "MESH_STORE_SCHEMA").pipe(Config.withDefault("mesh")))
  const staleAfterMs = yield* named("MESH_STALE_AFTER", Config.schema(StaleAfterSetting, "MESH_STALE_AFTER").pipe(Config.withDefault("30m"), Config.map(durationMs)))
  const gate = yield* readGateSettings
  return { natsUrl, databaseUrl, busPrefix, storeSchema, staleAfterMs, gate }
})

/** The settings as a service: read once, when the controller's layers are built. */
export class ControllerSettings extends Context.Service<ControllerSettings, Settings>()("mesh-core/ControllerSettings") {
  static readonly layer = Layer.effect(ControllerSettings, readSettings)
  static readonly layerTest = (s: Partial<Settings> = {}) =>
    Layer.succeed(ControllerSettings, {
      natsUrl: Redacted.make(defaultNatsUrl), databaseUrl: Redacted.make(defaultDatabaseUrl), busPrefix: "", storeSchema: "mesh",
      staleAfterMs: 30 * 60_000, gate: defaultGateSettings, ...s,
    })
}
