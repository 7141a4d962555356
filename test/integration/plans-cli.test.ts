// The `plans` command tree (issue 10): the list is still what `plans` alone runs, and a verb parses
// its id and flags and reaches the bus, a controller not answering being exit 3 naming it.
import { NodeServices } from "@effect/platform-node"
import { Effect, Exit } from "effect"
import { Command } from "effect/cli"
import { describe, expect, it } from "vitest"
import { plansCommand } from "../../shells/src/cli/plans-commands.ts"

const run = (args: ReadonlyArray<string>) =>
  Effect.runPromiseExit(Command.runWith(plansCommand, { version: "0" })(args).pipe(Effect.provide(NodeServices.layer)))

describe("the plans command", () => {
  it("plans pause ID --controller NAME asks that controller, and none answering ends with exit 3 naming it", async () => {
    const exit = await run(["pause", "gw-b2", "--why", "looking", "--as", "ann", "--controller", "nobody-listens-here"])
    expect(Exit.isFailure(exit)).toBe(true)
    const failure = JSON.stringify(Exit.isFailure(exit) ? exit.cause : null)
    expect(failure).toContain("controller nobody-listens-here did not answer")
    expect(failure).toContain('"code":3')
  })
})
