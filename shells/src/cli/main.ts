#!/usr/bin/env node
// mesh-controller: the controller's commands. Each is a thin shell over the core's decisions.
// The modules by their own paths, not the package's index (which loads every platform module, ~30 MiB).
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Cause from "effect/Cause"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Runtime from "effect/Runtime"
import { CliError, CliOutput, Command } from "effect/cli"
import { CommandFailed, exitCodes } from "./errors.ts"
import { versionLine } from "../build-stamp.ts"

// Issue 11: `simulate` reads a file and nothing else, so it loads only its own command: not the
// store, bus and metrics modules every other command brings (~70 MiB and seconds before its first
// line). What it parses, prints and exits with is the same: the same command under the same root.
const everyCommand = async () => {
  const [delivery, gate, plans, provide, serve, simulate, standings, status, settings, doctor] = await Promise.all([
    import("./delivery-commands.ts"),
    import("./gate-commands.ts"),
    import("./plans-commands.ts"),
    import("./provide-command.ts"),
    import("./serve-command.ts"),
    import("./simulate-command.ts"),
    import("./standings-command.ts"),
    import("./status-command.ts"),
    import("./settings-command.ts"),
    import("./doctor-command.ts"),
  ])
  return [
    simulate.simulateCommand,
    serve.serveCommand,
    status.statusCommand,
    provide.provideCommand,
    delivery.meshCommand,
    delivery.pushCommand,
    delivery.declareCommand,
    delivery.identityCommand,
    delivery.engineCommand,
    gate.releaseCommand,
    plans.plansCommand,
    gate.conditionsCommand,
    standings.standingsCommand,
    settings.settingsCommand,
    doctor.doctorCommand,
  ] as const
}
// Chosen without a top-level await, so the one-file build (scripts/build-binary.ts) can bundle this
// entry as the CommonJS script Node's single executable applications run.
const subcommands = () =>
  process.argv[2] === "simulate"
    ? import("./simulate-command.ts").then((m) => [m.simulateCommand] as const)
    : everyCommand()

const rootOf = (commands: Awaited<ReturnType<typeof subcommands>>) =>
  Command.make("mesh-controller").pipe(
    Command.withDescription("The mesh controller: replay recorded facts through its decisions, and run them live."),
    Command.withSubcommands(commands),
  )

// Issue 14: a usage error (an unknown flag, a missing argument) is bad input like any other: one
// line on standard error and exit code 2, not the help on standard output. Help asked for is help.
const usageOnOneLine = CliOutput.layerPresenter({
  present: (event) =>
    event._tag === "InvalidInvocation"
      ? Effect.sync(() => {
          const command = event.commandPath.join(" ")
          process.stderr.write(
            `${command}: ${event.errors.map((e) => e.message.replace(/\s+/g, " ").trim()).join("; ")} (see ${command} --help)\n`,
          )
        })
      : CliOutput.defaultPresenter.present(event),
})

// Issue 14: SIGTERM and SIGINT stop every command within 2 s whatever the bus or the store is
// doing. The runtime interrupts the command on the signal and runs its finalizers (draining the
// bus, ending the store); a frozen bus or store can hold those for as long as their own timeouts
// (30 s was seen), so the process is ended 1.5 s after the signal whatever is still waiting. Nothing
// is lost by it: a word is acknowledged only after it is written, so one not written comes again.
const stopWithinMs = 1_500
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => void setTimeout(() => process.exit(process.exitCode ?? 0), stopWithinMs).unref())
}

// A stop asked for by a signal is a clean stop: exit 0, not 130.
const cleanStopIsZero = (exit: Exit.Exit<unknown, unknown>, onExit: (code: number) => void) =>
  Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause) ? onExit(0) : Runtime.defaultTeardown(exit, onExit)

const runRoot = (root: ReturnType<typeof rootOf>) =>
  root.pipe(
    Command.run({ version: versionLine() }),
    Effect.catchIf(
      (e): e is CliError.ShowHelp => CliError.isCliError(e) && e._tag === "ShowHelp" && e.errors.length > 0,
      () => Effect.fail(new CommandFailed({ code: exitCodes.badInput, said: "" })),
    ),
    Effect.provide(usageOnOneLine),
    // A setting set to nothing is read as set (issue 43: an empty NATS_URL or DATABASE_URL was read as
    // unset, and the default server used in silence): each Schema then refuses it or reads it.
    Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ preserveEmptyStrings: true }))),
    Effect.provide(NodeServices.layer),
    NodeRuntime.runMain({ teardown: cleanStopIsZero }),
  )

void subcommands().then((commands) => runRoot(rootOf(commands)))
