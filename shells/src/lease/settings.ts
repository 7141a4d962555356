// The lease's bounds from the environment (docs/lease.md): MESH_LEASE_DURATION, MESH_LEASE_RENEW_DEADLINE,
// MESH_LEASE_RETRY, durations as "15s" or "500ms"; defaults client-go's 15 s / 10 s / 2 s. Decoded by the
// core's Schema and checked by the core's rule, so bounds that could let two holders overlap stop serve.
import { leaseSettings, type LeaseSettings } from "@mesh-core/core/lease/settings"
import { Data, Effect, Option } from "effect"
import { named, optionalSetting, type SettingRefused, tableSetting } from "../config.ts"

export class LeaseSettingsRefused extends Data.TaggedError("LeaseSettingsRefused")<{
  readonly problem: string
  readonly cause?: unknown
}> {
  override get message(): string {
    return `the controller lease's settings are refused: ${this.problem}`
  }
}

export const leaseSettingsConfig: Effect.Effect<LeaseSettings, LeaseSettingsRefused> = Effect.gen(function* () {
  // Each named in one line, as every setting serve refuses (config.ts `named`).
  const texts = yield* Effect.all({
    duration: named("MESH_LEASE_DURATION", tableSetting("MESH_LEASE_DURATION")),
    renewDeadline: named("MESH_LEASE_RENEW_DEADLINE", tableSetting("MESH_LEASE_RENEW_DEADLINE")),
    retry: named("MESH_LEASE_RETRY", tableSetting("MESH_LEASE_RETRY")),
  }).pipe(Effect.mapError((e) => new LeaseSettingsRefused({ problem: e.said, cause: e })))
  const checked = leaseSettings(texts)
  if (!checked.ok) return yield* Effect.fail(new LeaseSettingsRefused({ problem: checked.problem }))
  return checked.settings
})

/**
 * MESH_LEASE_REPLICAS: the lease bucket's copies on a clustered bus (1, 3 or 5), so the lease outlives
 * a node; by default as many as MESH_BUS_REPLICAS gives every stream and bucket (default 1).
 */
export const leaseReplicasConfig: Effect.Effect<number, LeaseSettingsRefused> = Effect.gen(function* () {
  const refused = (e: SettingRefused) => new LeaseSettingsRefused({ problem: e.said, cause: e })
  const bus = yield* named("MESH_BUS_REPLICAS", tableSetting("MESH_BUS_REPLICAS")).pipe(Effect.mapError(refused))
  const lease = yield* named("MESH_LEASE_REPLICAS", optionalSetting("MESH_LEASE_REPLICAS")).pipe(
    Effect.mapError(refused),
  )
  return Number(Option.getOrElse(lease, () => bus))
})
