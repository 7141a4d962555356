// Every setting a process of the controller reads from its environment, in one table (issue 44): its
// Schema, its default, its range in words and what it sets. The shells read each through it
// (shells/src/config.ts), `mesh-controller settings` prints it with the values a process would run
// with, and docs/configuration.md is its markdown (a test holds the page to settingsMarkdown).
import * as Schema from "effect/Schema"
import { formatDuration } from "../duration.ts"
import { defaultErrorLimit, defaultGateSettings } from "../gate/judging/judge.ts"
import { RunningBuild } from "../gate/tick/schema-reach.ts"
import { LogFormat } from "../text/journal-line.ts"
import { defaultLeaseSettings, LeaseDurationText } from "../lease/settings.ts"
import { StaleAfterSetting } from "../standings/status.ts"
import { defaultMetricsAddress, ListenAddressText } from "./metrics.ts"
import * as S from "./settings.ts"
import { sweepTable } from "../sweep.ts"

export interface Setting {
  readonly name: string
  /** The value when unset; undefined: unset means none (no admin URL, no traces, no build). */
  readonly fallback: string | undefined
  readonly range: string
  readonly what: string
  readonly schema: Schema.Codec<string, string>
  /** Its value may carry a password: printed with the password masked. */
  readonly secret?: true
}

const row = <N extends string>(
  name: N,
  fallback: string | undefined,
  schema: Schema.Codec<string, string>,
  range: string,
  what: string,
) => ({ name, fallback, schema, range, what }) satisfies Setting
const secret = <S extends Setting>(s: S): S => ({ ...s, secret: true })
const Url = Schema.String.check(Schema.makeFilter((s: string) => s.trim() !== "" || "empty: give a URL, or unset it"))
const d = formatDuration
const g = defaultGateSettings
const l = defaultLeaseSettings

// biome-ignore format: a table, one setting a line
export const settingTable = [
  secret(row("NATS_URL", "nats://127.0.0.1:4222", Url, "nats://, tls://, ws:// or wss:// URLs, comma-separated for a cluster; never empty", "the bus (NATS with JetStream)")),
  secret(row("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/test", Url, "a postgres:// URL; never empty", "the store (PostgreSQL)")),
  row("MESH_STORE_SCHEMA", "mesh", S.StoreSchemaSetting, "a PostgreSQL name, at most 63 characters", "the store's schema, made and migrated by serve"),
  row("MESH_BUS_PREFIX", "", S.BusPrefixSetting, "subject tokens (letters, digits, _ -), or nothing", "put before every subject and stream, so meshes can share a bus"),
  row("MESH_BUS_REPLICAS", "1", S.ReplicasSetting, "1, 3 or 5; at most the bus cluster's servers", "copies of every stream and bucket the mesh makes"),
  row("MESH_LEASE_REPLICAS", undefined, S.ReplicasSetting, "1, 3 or 5; at most the bus cluster's servers", "copies of the lease bucket (unset: MESH_BUS_REPLICAS)"),
  row("MESH_LEASE_DURATION", d(l.duration), LeaseDurationText, "a duration above 0s; above the renew deadline", "how long a lease not renewed is held"),
  row("MESH_LEASE_RENEW_DEADLINE", d(l.renewDeadline), LeaseDurationText, "a duration above the retry, below the lease", "the holder stops acting when it could not renew for this long"),
  row("MESH_LEASE_RETRY", d(l.retry), LeaseDurationText, "a duration above 0s, below the renew deadline", "how often the lease is tried and renewed"),
  row("MESH_GATE_SETTLE", d(g.settle), S.PositiveDuration, "a duration above 0s, at most 596h", "how long a release waits before its first judging"),
  row("MESH_GATE_BOUND", d(g.bound), S.PositiveDuration, "a duration above 0s, at most 596h", "how long a plan may go without passing before it is put back"),
  row("MESH_GATE_EVERY", d(g.every), S.PositiveDuration, "a duration above 0s, at most 596h", "passes at least this far apart"),
  row("MESH_GATE_PASSES", String(g.passes), S.PassesSetting, "1 to 999999", "judgings in a row that must find a build healthy"),
  row("MESH_GATE_ERROR_LIMIT", String(defaultErrorLimit), S.ErrorLimitSetting, "1 to 999999", "judgings in a row that could not ask before a plan is paused"),
  row("MESH_STALE_AFTER", "30m", StaleAfterSetting, "a duration above 0s, at most 596h", "a failing standing unsaid this long is marked stale"),
  row("MESH_METRICS_ADDR", defaultMetricsAddress, ListenAddressText, "host:port (--metrics-addr wins)", "where /metrics, /healthz, /readyz and the live page listen"),
  row("MESH_LOG_FORMAT", "text", LogFormat, "text or json (--log-format wins)", "the journal's form"),
  row("MESH_BUILD", undefined, RunningBuild, "a build id without spaces (unset: the one file's stamp)", "which build this is, for its schema reach"),
  secret(row("PROVIDER_ADMIN_URL", undefined, Url, "a postgres:// URL; never empty", "provide postgres: the backend's admin connection")),
  row("OTEL_EXPORTER_OTLP_ENDPOINT", undefined, Url, "an http:// or https:// URL (unset: no traces)", "where spans are sent over OTLP/HTTP"),
  row("MESH_BUNDLE", "on", Schema.Literals(["on", "off"]), "on or off (a checkout only)", "off runs the sources rather than their bundle"),
]

export type SettingName = (typeof settingTable)[number]["name"]
/** Each setting by its name. */
export const settingNamed = Object.fromEntries(settingTable.map((s) => [s.name, s])) as Record<SettingName, Setting>

/** A setting as a process reads it: from its environment, its default, or (MESH_BUILD) the one file's stamp. */
export interface SettingRead {
  readonly setting: Setting
  readonly value: string | undefined
  readonly from: "environment" | "default" | "build stamp" | "unset"
}

const shown = (s: Setting, v: string | undefined, mask: (url: string) => string) =>
  v === undefined ? "-" : v === "" ? '""' : s.secret === true ? mask(v) : v

/** `mesh-controller settings`: one line a setting, in columns; secrets printed through `mask`. */
export const settingsLines = (reads: ReadonlyArray<SettingRead>, mask: (url: string) => string) =>
  sweepTable(
    ["NAME", "VALUE", "DEFAULT", "FROM"],
    reads.map((r) => [
      r.setting.name,
      shown(r.setting, r.value, mask),
      shown(r.setting, r.setting.fallback, mask),
      r.from,
    ]),
  )

/** docs/configuration.md's table. */
export const settingsMarkdown = (): string =>
  [
    "| setting | default | range | what it sets |",
    "| --- | --- | --- | --- |",
    ...settingTable.map(
      (s) =>
        `| \`${s.name}\` | ${s.fallback === undefined ? "unset" : s.fallback === "" ? '`""`' : `\`${s.fallback}\``} | ${s.range} | ${s.what} |`,
    ),
  ].join("\n")
