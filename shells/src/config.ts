// Where the bus and the store are, and the controller's settings, from the environment: read through
// Effect's Config, decoded by the core's Schemas (core/src/controller/settings.ts), once at start.
// A bad value is refused there with one line and exit code 2, never replaced by a default in silence.
// URLs are Redacted: printed, they show no password.
import {
  BusPrefixSetting,
  durationMs,
  PassesSetting,
  ErrorLimitSetting,
  PositiveDuration,
  ReplicasSetting,
  StoreSchemaSetting,
} from "@mesh-core/core/controller/settings"
import { defaultGateSettings, type GateSettings } from "@mesh-core/core/gate/judging/judge"
import { formatDuration } from "@mesh-core/core/duration"
import { StaleAfterSetting } from "@mesh-core/core/standings/status"
import { Config, Context, Data, Effect, Layer, Option, Redacted } from "effect"
import { natsSchemes, postgresSchemes, readConnectionUrl, readServerList } from "@mesh-core/core/connection-url"

const defaultNatsUrl = "nats://127.0.0.1:4222"
const defaultDatabaseUrl = "postgres://postgres@127.0.0.1:5432/test"

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
export const shownStoreSchema = (): string => shown("MESH_STORE_SCHEMA", "mesh")
/** Who acts, as a person's command records it unless told (`--by`, `--as`): $USER. */
export const userName = (): string => shown("USER", "")

/** PROVIDER_ADMIN_URL: the backend's admin connection, never on the command line (where ps would show its password). */
export const providerAdminUrl = Config.option(Config.Redacted("PROVIDER_ADMIN_URL"))

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

const duration = (name: string, fallbackMs: number) =>
  named(
    name,
    Config.schema(PositiveDuration, name).pipe(Config.withDefault(formatDuration(fallbackMs)), Config.map(durationMs)),
  )

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
  const errorLimit = yield* named(
    "MESH_GATE_ERROR_LIMIT",
    Config.option(Config.schema(ErrorLimitSetting, "MESH_GATE_ERROR_LIMIT").pipe(Config.map(Number))),
  )
  return {
    ...(Option.isSome(errorLimit) ? { errorLimit: errorLimit.value } : {}),
    settle: yield* duration("MESH_GATE_SETTLE", defaultGateSettings.settle),
    bound: yield* duration("MESH_GATE_BOUND", defaultGateSettings.bound),
    every: yield* duration("MESH_GATE_EVERY", defaultGateSettings.every),
    passes: yield* named(
      "MESH_GATE_PASSES",
      Config.schema(PassesSetting, "MESH_GATE_PASSES").pipe(
        Config.withDefault(String(defaultGateSettings.passes)),
        Config.map(Number),
      ),
    ),
  }
})

/** NATS_URL, DATABASE_URL (Redacted), MESH_BUS_PREFIX and MESH_STORE_SCHEMA, each decoded by the core's Schema. */
const readConnections: Effect.Effect<Connections, SettingRefused> = Effect.gen(function* () {
  const natsUrl = yield* named(
    "NATS_URL",
    Config.Redacted("NATS_URL").pipe(Config.withDefault(Redacted.make(defaultNatsUrl))),
  )
  const databaseUrl = yield* named(
    "DATABASE_URL",
    Config.Redacted("DATABASE_URL").pipe(Config.withDefault(Redacted.make(defaultDatabaseUrl))),
  )
  const busPrefix = yield* named(
    "MESH_BUS_PREFIX",
    Config.schema(BusPrefixSetting, "MESH_BUS_PREFIX").pipe(Config.withDefault("")),
  )
  const storeSchema = yield* named(
    "MESH_STORE_SCHEMA",
    Config.schema(StoreSchemaSetting, "MESH_STORE_SCHEMA").pipe(Config.withDefault("mesh")),
  )
  // Read as the core reads every connection URL, before anything is opened: one that does not read is
  // refused naming the part that is wrong, never echoed (issue 27).
  // NATS_URL may name a cluster's servers, separated by commas, as the NATS tools take it.
  for (const read of [
    readServerList("NATS_URL", Redacted.value(natsUrl), natsSchemes),
    readConnectionUrl("DATABASE_URL", Redacted.value(databaseUrl), postgresSchemes),
  ]) {
    if (!read.ok) return yield* Effect.fail(new SettingRefused({ said: read.problem }))
  }
  const busReplicas = yield* named(
    "MESH_BUS_REPLICAS",
    Config.schema(ReplicasSetting, "MESH_BUS_REPLICAS").pipe(Config.withDefault("1" as const), Config.map(Number)),
  )
  return { natsUrl, databaseUrl, busPrefix, storeSchema, busReplicas }
})

export const readSettings: Effect.Effect<Settings, SettingRefused> = Effect.gen(function* () {
  const connections = yield* readConnections
  const staleAfterMs = yield* named(
    "MESH_STALE_AFTER",
    Config.schema(StaleAfterSetting, "MESH_STALE_AFTER").pipe(Config.withDefault("30m"), Config.map(durationMs)),
  )
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
