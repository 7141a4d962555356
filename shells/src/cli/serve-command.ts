import { Effect, Layer, Redacted } from "effect"
import { Command, Flag } from "effect/cli"
import { ControllerSettings, readSettings } from "../config.ts"
import { batchProblem } from "@mesh-core/core/controller/settings"
import { leaseSettingsConfig } from "../lease/settings.ts"
import { canAppend } from "../files/recording.ts"
import { printableUrl } from "@mesh-core/core/text/connection-url"
import { serveController } from "../controller/main.ts"
import { ControllerRecorder, controllerLogAccepts } from "../program/recorder.ts"
import * as Journal from "../journal.ts"
import { journalLayerFor } from "../journal-json.ts"
import { logFormatFlag, metricsAddrFlag } from "../metrics/flags.ts"
import { CommandFailed, endingWith, exitCodes } from "./errors.ts"
import { groundFindings } from "./doctor.ts"
import { TracesLive } from "../metrics/traces.ts"

const badInput = (e: { readonly message: string }) =>
  Effect.fail(new CommandFailed({ code: exitCodes.badInput, said: e.message, cause: e }))

export const serveCommand = Command.make(
  "serve",
  {
    batch: Flag.Int("batch").pipe(Flag.withDescription("Most words kept in one transaction"), Flag.withDefault(1_000)),
    record: Flag.String("record").pipe(
      Flag.withDescription(
        "Write every fact fed to the controller's core to FILE (the controller's fact log), appending after a restart",
      ),
      Flag.optional,
    ),
    metricsAddr: metricsAddrFlag,
    logFormat: logFormatFlag,
  },
  ({ batch, record, metricsAddr, logFormat }) =>
    Effect.gen(function* () {
      // Read and checked once, before anything starts or is opened: a bad setting is one line and exit 2.
      const batchRefused = batchProblem(batch)
      if (batchRefused !== undefined) return yield* badInput({ message: batchRefused })
      const settings = yield* readSettings.pipe(Effect.catchTag("SettingRefused", badInput))
      yield* leaseSettingsConfig.pipe(Effect.catchTag("LeaseSettingsRefused", badInput))
      // The recording's path and its first line checked before the store or the bus is opened (issue 43).
      const unwritable = record._tag === "Some" ? canAppend(record.value, controllerLogAccepts) : undefined
      if (unwritable !== undefined) return yield* badInput(unwritable)
      yield* Journal.say(
        `[controller] store ${printableUrl(Redacted.value(settings.databaseUrl))} schema ${settings.storeSchema}; bus ${printableUrl(Redacted.value(settings.natsUrl))}`,
      )
      // doctor's checks (issue 44), the bus's clock left unread (it writes to the bus): what fails said,
      // and what could only fail later (replicas beyond the cluster, no JetStream, a port taken) refused.
      const findings = yield* groundFindings(metricsAddr, false)
      for (const f of findings) if (!f.ok && !f.refuses) yield* Journal.say(`[doctor] ${f.line}`)
      const refusing = findings.filter((f) => f.refuses)
      if (refusing.length > 0) return yield* badInput({ message: refusing.map((f) => f.line).join("\n") })
      const recorder =
        record._tag === "Some"
          ? ControllerRecorder.layerFile(record.value, settings.gate)
          : ControllerRecorder.layerNone
      // Term after term under the lease (issue 13; docs/lease.md): a lost lease stands serve down as a
      // candidate, never ends it; a signal closes its scope: the workers, the lease given back, the store.
      return yield* serveController({ batch, recorder, metricsAddr }).pipe(
        Effect.provide(Layer.succeed(ControllerSettings, settings)),
        // Spans over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set (metrics/traces.ts), none otherwise.
        Effect.provide(TracesLive),
        Effect.catchTag("RecordingUnusable", badInput),
        Effect.catchTag("MetricsAddressRefused", badInput),
        Effect.catchTag("LeaseSettingsRefused", badInput),
        // Not the store unreachable (3): a key the store gave that cannot be used (seed 002).
        Effect.catchTag(["CannotSign", "FencingRefused"], (e) =>
          Effect.fail(new CommandFailed({ code: exitCodes.notWell, said: e.message, cause: e })),
        ),
      )
    }).pipe(Effect.provide(journalLayerFor(logFormat)), endingWith(exitCodes.unreachable)),
).pipe(
  Command.withDescription(
    "Run the controller: follow every provider's provisioner.failing / provisioner.recovered from a durable JetStream consumer " +
      "and keep the newest per provider, machine and consumer in PostgreSQL, for status; keep the machines' reports and health " +
      "statements; judge open release plans with the gate. Bus from $NATS_URL, store from $DATABASE_URL (schema $MESH_STORE_SCHEMA, " +
      "default mesh); migrations are applied at start. The store or the bus going away is waited out, said once. " +
      "One controller acts at a time: serve waits as a candidate for the controller lease (on the bus, $MESH_LEASE_DURATION 15s, " +
      "$MESH_LEASE_RENEW_DEADLINE 10s, $MESH_LEASE_RETRY 2s) before anything acts, gives it back on SIGTERM, and stands down as a candidate again once it has lost it.",
  ),
)
