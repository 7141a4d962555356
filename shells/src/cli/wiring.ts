// One wiring for every command: its settings read through Config once (config.ts), the store and
// the bus opened from them, and the store's services over the store. A command provides from here
// what it reaches, so every command opens the store and the bus the same way.
import { Effect, Layer, Redacted } from "effect"
import * as BusNats from "../bus/nats.ts"
import { ConnectionSettings } from "../config.ts"
import { DeliveryStore } from "../store/delivery.ts"
import { GateStore } from "../store/gate.ts"
import * as Postgres from "../store/postgres.ts"
import { StandingsStore } from "../store/standings.ts"

const settings = Effect.gen(function* () {
  return yield* ConnectionSettings
})

/** The store at DATABASE_URL, in MESH_STORE_SCHEMA, migrated: what a command that writes opens. */
export const StoreLive = Layer.unwrap(
  Effect.map(settings, (c) => Postgres.layerMigrated(Redacted.value(c.databaseUrl), c.storeSchema)),
)

/** The store as it is, never set up by the command: what `status` and `standings forget` read. */
export const StoreAsItIs = Layer.unwrap(
  Effect.map(settings, (c) => Postgres.layer(Redacted.value(c.databaseUrl), c.storeSchema)),
)

/** The bus at NATS_URL. */
export const BusLive = Layer.unwrap(
  Effect.map(settings, (c) => BusNats.layer(Redacted.value(c.natsUrl), c.busReplicas)),
)

/** The store's services (and the store) over `store`. */
export const storesOver = <E, R>(store: Layer.Layer<Postgres.Store, E, R>) =>
  Layer.mergeAll(GateStore.layer, DeliveryStore.layer, StandingsStore.layer).pipe(Layer.provideMerge(store))

/** A command's layer, with its settings read once and given to it too (the bus prefix, the URLs to say). */
export const forCommand = <A, E, R>(layer: Layer.Layer<A, E, R>) =>
  layer.pipe(Layer.provideMerge(ConnectionSettings.layer))
