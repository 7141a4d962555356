import { printableUrl, splitServers } from "@mesh-core/core/text/connection-url"
import { settingsLines } from "@mesh-core/core/controller/setting-table"
import { Effect } from "effect"
import { Command } from "effect/cli"
import { writeErr, writeOut } from "../files/output.ts"
import { readEverySetting, settingProblems } from "./settings-read.ts"
import { CommandFailed, exitCodes } from "./errors.ts"

const masked = (url: string) => splitServers(url).map(printableUrl).join(",")

export const settingsCommand = Command.make("settings", {}, () =>
  Effect.gen(function* () {
    yield* writeOut(`${settingsLines(yield* readEverySetting, masked).join("\n")}\n`)
    const problems = yield* settingProblems
    if (problems.length === 0) return
    yield* writeErr(`${problems.join("\n")}\n`)
    return yield* Effect.fail(new CommandFailed({ code: exitCodes.badInput, said: "" }))
  }),
).pipe(
  Command.withDescription(
    "Print every setting this process would run with: name, value (passwords masked), default and where it came from " +
      "(docs/configuration.md); each one refused said below, exit code 2",
  ),
)
