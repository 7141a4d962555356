import { NodeServices } from "@effect/platform-node"
import { homedir } from "node:os"
import { resolve } from "node:path"
import { Config, Effect, Layer, Option, Redacted } from "effect"
import { Command, Flag } from "effect/cli"
import { defaultSettings, settingNames } from "@mesh-core/core/provisioner/model"
import { defaultOutboxFile } from "@mesh-core/core/provisioner/outbox"
import { withSettings } from "@mesh-core/core/provisioner/settings"
import { busNames } from "../bus/subjects.ts"
import { ConnectionSettings, providerAdminUrl } from "../config.ts"
import { postgresSchemes, printableUrl, readConnectionUrl } from "@mesh-core/core/text/connection-url"
import * as Journal from "../journal.ts"
import * as Announcer from "../provisioner/announcer.ts"
import { postgresAdapter } from "../provisioner/postgres-adapter.ts"
import { runProvisioner } from "../provisioner/run.ts"
import { CommandFailed, endingWith, exitCodes } from "./errors.ts"
import { canAppend } from "../files/recording.ts"
import { notAFile } from "../files/lines.ts"
import { busTokenProblem } from "@mesh-core/core/mesh/records"

const adminUrlVariable = "PROVIDER_ADMIN_URL"

const postgresProvider = Command.make(
  "postgres",
  {
    receives: Flag.String("receives").pipe(Flag.withDescription("The contributions file the mesh delivers")),
    node: Flag.String("node").pipe(
      Flag.withDescription("The machine this provider runs on, said in each announcement"),
    ),
    resource: Flag.String("resource").pipe(
      Flag.withDescription("The requirement this provider serves"),
      Flag.withDefault("postgres"),
    ),
    record: Flag.String("record").pipe(
      Flag.withDescription("Record every fact fed to the core here, for simulate"),
      Flag.optional,
    ),
    outbox: Flag.String("outbox").pipe(
      Flag.withDescription(
        "Keep words not yet acknowledged by the bus in this file, sent first when the provider starts again " +
          "(default: RECORD.outbox with --record, else in $STATE_DIRECTORY, $XDG_STATE_HOME/mesh-core or ~/.local/state/mesh-core)",
      ),
      Flag.optional,
    ),
    allowMassWithdrawal: Flag.Boolean("allow-mass-withdrawal").pipe(
      Flag.withDescription(
        "Let a contributions file withdraw every consumer, or more than half at once; without it such a file is held and said (issue 14)",
      ),
      Flag.withDefault(false),
    ),
    set: Flag.String("set").pipe(
      Flag.withDescription(`A setting as name=duration: ${settingNames.join(", ")} (repeatable)`),
      Flag.atLeast(0),
    ),
  },
  ({ receives, node, resource, record, outbox, set, allowMassWithdrawal }) =>
    Effect.gen(function* () {
      const refuse = (said: string) => Effect.fail(new CommandFailed({ code: exitCodes.badInput, said }))
      // issue 43: a machine's name is a subject token (an empty or 200-character one had every word
      // set aside), and a device or a fifo given as a file was read without end, ignoring SIGTERM.
      const badName = busTokenProblem(node) ?? busTokenProblem(resource)
      if (badName !== undefined)
        return yield* refuse(`${busTokenProblem(node) === undefined ? "--resource" : "--node"}: ${badName}`)
      const receivesIs = notAFile(receives)
      if (receivesIs !== undefined) return yield* refuse(`--receives ${receives}: ${receivesIs}; give a file`)
      const admin = yield* providerAdminUrl
      const adminUrl = Option.isSome(admin) ? Redacted.value(admin.value) : ""
      if (adminUrl === "") {
        return yield* Effect.fail(
          new CommandFailed({
            code: exitCodes.badInput,
            said: `give the admin's connection URL in $${adminUrlVariable} (never on the command line, where ps would show its password)`,
          }),
        )
      }
      const read = readConnectionUrl(adminUrlVariable, adminUrl, postgresSchemes)
      if (!read.ok) return yield* Effect.fail(new CommandFailed({ code: exitCodes.badInput, said: read.problem }))
      const unwritable = Option.isSome(record) ? canAppend(record.value) : undefined
      if (unwritable !== undefined)
        return yield* Effect.fail(new CommandFailed({ code: exitCodes.badInput, said: unwritable.message }))
      const chosen = withSettings(defaultSettings, set)
      if ("problem" in chosen)
        return yield* Effect.fail(new CommandFailed({ code: exitCodes.badInput, said: chosen.problem }))
      const { natsUrl, busPrefix } = yield* ConnectionSettings
      const outboxFile = Option.isSome(outbox)
        ? outbox.value
        : defaultOutboxFile(
            {
              record: Option.getOrUndefined(record),
              stateDirectory: Option.getOrUndefined(yield* setTo("STATE_DIRECTORY")),
              xdgStateHome: Option.getOrUndefined(yield* setTo("XDG_STATE_HOME")),
              home: Option.getOrElse(yield* setTo("HOME"), () => homedir()),
            },
            { resource, node, receives: resolve(receives) },
          )
      const outboxIs = notAFile(outboxFile)
      if (outboxIs !== undefined) return yield* refuse(`--outbox ${outboxFile}: ${outboxIs}; give a file`)
      yield* Journal.say(
        `[provider] ${resource} on ${node}: backend ${printableUrl(adminUrl)}; announcing on ${printableUrl(Redacted.value(natsUrl))}`,
      )
      const adapter = yield* postgresAdapter({ adminUrl })
      return yield* runProvisioner({
        provider: { resource, receives, node, holdMassWithdrawal: !allowMassWithdrawal },
        adapter,
        settings: chosen.settings,
        ...(record._tag === "Some" ? { record: record.value } : {}),
      }).pipe(
        Effect.provide(
          Announcer.natsLayer(Redacted.value(natsUrl), busNames(busPrefix), {
            file: outboxFile,
            owner: { resource, node },
          }).pipe(Layer.provide(Journal.stderrLayer)),
        ),
      )
    }).pipe(
      Effect.catchTags({
        RecordingUnusable: (e) =>
          Effect.fail(new CommandFailed({ code: exitCodes.badInput, said: e.message, cause: e })),
        OutboxUnusable: (e) => Effect.fail(new CommandFailed({ code: exitCodes.badInput, said: e.message, cause: e })),
      }),
      Effect.scoped,
      Effect.provide(Layer.mergeAll(Journal.stderrLayer, NodeServices.layer, ConnectionSettings.layer)),
      endingWith(exitCodes.unreachable),
    ),
).pipe(
  Command.withDescription(
    "Provide PostgreSQL databases: for each consumer a login role with the minted password and a database it owns. " +
      `The admin URL comes from $${adminUrlVariable}; words go on the bus at $NATS_URL.`,
  ),
)

export const provideCommand = Command.make("provide").pipe(
  Command.withDescription(
    "Run a provider: the provisioner loop over one backend, announcing its failure standing on the bus",
  ),
  Command.withSubcommands([postgresProvider]),
)

/** A directory the environment names; set but empty is none, as the XDG rules read it. */
const setTo = (name: string) => Config.option(Config.String(name)).pipe(Config.map(Option.filter((s) => s !== "")))
