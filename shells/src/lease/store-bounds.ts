// The store `serve` keeps, its sessions bounded by the lease (issue 26; core/src/lease/store-bounds.ts):
// a transaction left open by a holder paused past its renew deadline is ended by PostgreSQL before any
// candidate may take the lease over. Read from the same settings as the lease (MESH_LEASE_*), so
// settings that leave no room for the bounds stop `serve` at start, as unsafe lease settings do.
import { type StoreBounds, storeBounds } from "@mesh-core/core/lease/store-bounds"
import { Effect, Layer } from "effect"
import { Store } from "../store/postgres.ts"
import { LeaseSettingsRefused, leaseSettingsConfig } from "./settings.ts"

/** The bounds of the controller's sessions, from MESH_LEASE_DURATION and MESH_LEASE_RENEW_DEADLINE. */
export const storeBoundsConfig: Effect.Effect<StoreBounds, LeaseSettingsRefused> = Effect.gen(function* () {
  const checked = storeBounds(yield* leaseSettingsConfig)
  if (!checked.ok) return yield* Effect.fail(new LeaseSettingsRefused({ problem: checked.problem }))
  return checked.bounds
})

/** `serve`'s store (Store.layer), every session bounded by the lease. */
export const StoreUnderTheLease = Layer.unwrap(Effect.map(storeBoundsConfig, Store.layer))
