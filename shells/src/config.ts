// Where the bus and the store are, and the controller's settings, from the environment: read through
// Effect's Config, decoded by the core's Schemas (core/src/controller/settings.ts), once at start.
// A bad value is refused there with one line and exit code 2, never replaced by a default in silence.
// URLs are Redacted: printed, they show no password.
import { durationMs } from "@mesh-core/core/controller/settings"
import { type SettingName, settingNamed } from "@mesh-core/core/controller/setting-table"
import { defaultGateSettings, type GateSettings } from "@mesh-core/core/gate/judging/judge"
import { Config, Context, Data, Effect, Layer, Option, Redacted } from "effect"
import { natsSchemes, postgresSchemes, readConnectionUrl, readServerList } from "@mesh-core/core/text/connection-url"

/** A setting as the core's table has it (core/src/controller/setting-table.ts): its Schema, and its default when it has one. */
export const tableSetting = (name: SettingName): Config.Config<string> => {
  const { schema, fallback } = settingNamed[name]
  const read = Config.schema(schema, name)
  return fallback === undefined ? read : read.pipe(Config.withDefault(fallback))
}
/** A setting without a default, as the table has it: none when unset. */
export const optionalSetting = (name: SettingName) => Config.option(Config.schema(settingNamed[name].schema, name))

const defaultNatsUrl = settingNamed.NATS_URL.fallback ?? ""
const defaultDatabaseUrl = settingNamed.DATABASE_URL.fallback ?? ""

/**
 * A setting as the help shows it, read through Config like every other: the value set, or the
 * default. Never refused here (a bad value is refused when a command reads its settings).
 */
const shown = (name: string, fallback: string): string =>
  Effect.runSync(
    Config.String(name)
      .pipe(Config.withDefault(fallback))
      .pipe(Effect.orElseSucceed(() => fallback)),
  )

/** The store's URL and schema, as `status --help` names them. */
export const shownDatabaseUrl = (): string => shown("DATABASE_URL", defaultDatabaseUrl)
export const shownStoreSchema = (): string => shown("MESH_STORE_SCHEMA", settingNamed.MESH_STORE_SCHEMA.fallback ?? "")
/** Who acts, as a person's command records it unless told (`--by`, `--as`): $USER. */
export const userName = (): string => shown("USER", "")

/** PROVIDER_ADMIN_URL: the backend's admin connection, never on the command line (where ps would show its password). */
export const providerAdminUrl = optionalSetting("PROVIDER_ADMIN_URL").pipe(Config.map(Option.map(Redacted.make)))

export class SettingRefused extends Data.TaggedError("SettingRefused")<{
  readonly said: string
  readonly cause?: unknown
}> {
  override get message(): string {
    return this.said
  }
}

export const named = <A>(name: string, c: Config.Config<A>): Effect.Effect<A, SettingRefused> =>
  Effect.catch(c, (e) =>
    Effect.flatMap(
      Config.option(Config.String(name)).pipe(Effect.orElseSucceed(() => Option.none<string>())),
      (value) => {
        const problem = e.cause.message
        return Effect.fail(
          new SettingRefused({
            said: `${name}${Option.isNone(value) ? "" : ` ${JSON.stringify(value.value)}`}: ${oneLine(problem.replace(/\s+at \[.*\]\s*$/s, ""))}`,
            cause: e,
          }),
        )
      },
    ),
  )

const oneLine = (s: string) => s.replace(/\s+/g, " ").trim()

const duration = (name: SettingName) => named(name, tableSetting(name).pipe(Config.map(durationMs)))

/** Where the bus and the store are: what every command that reaches them is told by its environment. */
export interface Connections {
  readonly natsUrl: Redacted.Redacted<string>
  readonly databaseUrl: Redacted.Redacted<string>
  readonly busPrefix: string
  readonly storeSchema: string
  /** MESH_BUS_REPLICAS: the copies each stream and bucket the mesh makes keeps on a clustered bus. */
  readonly busReplicas: number
}

/** Everything `serve` is told by its environment, read and checked once at start. */
export interface Settings extends Connections {
  readonly staleAfterMs: number
  readonly gate: GateSettings
}

/**
 * The gate's settings alone (MESH_GATE_SETTLE, _BOUND, _EVERY, _PASSES, _ERROR_LIMIT), for the
 * commands that word them. An error limit not given is the gate's own (defaultErrorLimit).
 */
export const readGateSettings: Effect.Effect<GateSettings, SettingRefused> = Effect.gen(function* () {
  // Unset, the gate's own limit, and none written in a fact log's header (a replay reads it so).
  const errorLimit = yield* named("MESH_GATE_ERROR_LIMIT", optionalSetting("MESH_GATE_ERROR_LIMIT"))
  return {
    ...(Option.isSome(errorLimit) ? { errorLimit: Number(errorLimit.value) } : {}),
    settle: yield* duration("MESH_GATE_SETTLE"),
    bound: yield* duration("MESH_GATE_BOUND"),
    every: yield* duration("MESH_GATE_EVERY"),
    passes: yield* named("MESH_GATE_PASSES", tableSetting("MESH_GATE_PASSES").pipe(Config.map(Number))),
  }
})

/** NATS_URL, DATABASE_URL (Redacted), MESH_BUS_PREFIX and MESH_STORE_SCHEMA, each decoded by the core's Schema. */
const readConnections: Effect.Effect<Connections, SettingRefused> = Effect.gen(function* () {
  // An empty URL is refused, never read as the default server (issue 43).
  const natsUrl = yield* named("NATS_URL", tableSetting("NATS_URL").pipe(Config.map(Redacted.make)))
  const databaseUrl = yield* named("DATABASE_URL", tableSetting("DATABASE_URL").pipe(Config.map(Redacted.make)))
  const busPrefix = yield* named("MESH_BUS_PREFIX", tableSetting("MESH_BUS_PREFIX"))
  const storeSchema = yield* named("MESH_STORE_SCHEMA", tableSetting("MESH_STORE_SCHEMA"))
  // Read as the core reads every connection URL, before anything is opened: one that does not read is
  // refused naming the part that is wrong, never echoed (issue 27).
  // NATS_URL may name a cluster's servers, separated by commas, as the NATS tools take it.
  for (const read of [
    readServerList("NATS_URL", Redacted.value(natsUrl), natsSchemes),
    readConnectionUrl("DATABASE_URL", Redacted.value(databaseUrl), postgresSchemes),
  ]) {
    if (!read.ok) return yield* Effect.fail(new SettingRefused({ said: read.problem }))
  }
  const busReplicas = yield* named("MESH_BUS_REPLICAS", tableSetting("MESH_BUS_REPLICAS").pipe(Config.map(Number)))
  return { natsUrl, databaseUrl, busPrefix, storeSchema, busReplicas }
})

export const readSettings: Effect.Effect<Settings, SettingRefused> = Effect.gen(function* () {
  const connections = yield* readConnections
  const staleAfterMs = yield* named("MESH_STALE_AFTER", tableSetting("MESH_STALE_AFTER").pipe(Config.map(durationMs)))
  const gate = yield* readGateSettings
  return { ...connections, staleAfterMs, gate }
})

/** Where the bus and the store are, as a service: read once, when a command's layers are built. */
export class ConnectionSettings extends Context.Service<ConnectionSettings, Connections>()(
  "mesh-core/ConnectionSettings",
) {
  static readonly layer = Layer.effect(ConnectionSettings, readConnections)
}

/** The settings as a service: read once, when the controller's layers are built. */
export class ControllerSettings extends Context.Service<ControllerSettings, Settings>()(
  "mesh-core/ControllerSettings",
) {
  static readonly layer = Layer.effect(ControllerSettings, readSettings)
  static readonly layerTest = (s: Partial<Settings> = {}) =>
    Layer.succeed(ControllerSettings, {
      natsUrl: Redacted.make(defaultNatsUrl),
      databaseUrl: Redacted.make(defaultDatabaseUrl),
      busPrefix: "",
      storeSchema: "mesh",
      busReplicas: 1,
      staleAfterMs: 30 * 60_000,
      gate: defaultGateSettings,
      ...s,
    })
}
