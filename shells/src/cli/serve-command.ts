import { Effect, Layer } from "effect"
import { Command, Flag } from "effect/cli"
import * as Bus from "../bus/nats.ts"
import { busNames } from "../bus/subjects.ts"
import { busPrefix, databaseUrl, natsUrl, redactUrl, storeSchema } from "../config.ts"
import { followStandings } from "../controller/follow.ts"
import { followHealth } from "../controller/health.ts"
import { followReports } from "../controller/reports.ts"
import { runGates } from "../gate/runner.ts"
import { gateSettingsFromEnvironment } from "../gate/settings.ts"
import { deliveryNames } from "../delivery/wire.ts"
import * as Journal from "../journal.ts"
import * as Store from "../store/postgres.ts"
import { endingWith, exitCodes } from "./errors.ts"

export const serveCommand = Command.make(
  "serve",
  {
    batch: Flag.Int("batch").pipe(Flag.withDescription("Most words kept in one transaction"), Flag.withDefault(1_000)),
  },
  ({ batch }) =>
    Effect.gen(function*() {
      yield* Journal.say(`[controller] store ${redactUrl(databaseUrl())} schema ${storeSchema()}; bus ${redactUrl(natsUrl())}`)
      return yield* Effect.all([
        followStandings({ names: busNames(busPrefix()), batch }),
        followReports(deliveryNames(busPrefix())),
        followHealth(deliveryNames(busPrefix())),
        runGates(deliveryNames(busPrefix()), gateSettingsFromEnvironment(), gateSettingsFromEnvironment().every),
      ], { concurrency: "unbounded" })
    }).pipe(
      Effect.provide(Layer.mergeAll(Bus.layer(natsUrl()), Store.layerMigrated(databaseUrl(), storeSchema()), Journal.stderrLayer)),
      endingWith(exitCodes.unreachable),
    ),
).pipe(
  Command.withDescription(
    "Run the controller: follow every provider's provisioner.failing / provisioner.recovered from a durable JetStream consumer " +
      "and keep the newest per provider, machine and consumer in PostgreSQL, for status. " +
      "Bus from $NATS_URL, store from $DATABASE_URL (schema $MESH_STORE_SCHEMA, default mesh); migrations are applied at start.",
  ),
)
