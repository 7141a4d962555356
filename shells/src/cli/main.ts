#!/usr/bin/env node
// mesh-controller: the controller's commands. Each is a thin shell over the core's decisions.
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Effect } from "effect"
import { Command } from "effect/cli"
import { declareCommand, engineCommand, identityCommand, meshCommand, pushCommand } from "./delivery-commands.ts"
import { conditionsCommand, plansCommand, releaseCommand } from "./gate-commands.ts"
import { provideCommand } from "./provide-command.ts"
import { serveCommand } from "./serve-command.ts"
import { simulateCommand } from "./simulate-command.ts"
import { standingsCommand } from "./standings-command.ts"
import { statusCommand } from "./status-command.ts"

const root = Command.make("mesh-controller").pipe(
  Command.withDescription("The mesh controller: replay recorded facts through its decisions, and run them live."),
  Command.withSubcommands([
    simulateCommand, serveCommand, statusCommand, provideCommand, meshCommand, pushCommand, declareCommand, identityCommand, engineCommand,
    releaseCommand, plansCommand, conditionsCommand, standingsCommand,
  ]),
)

root.pipe(
  Command.run({ version: "0.1.0" }),
  Effect.provide(NodeServices.layer),
  NodeRuntime.runMain,
)
