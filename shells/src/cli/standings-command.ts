// `standings forget`: a person clearing a standing nobody will clear (issue 14), recorded with who
// and when. Which standing, and whether it may be forgotten, is the core's (forget.ts); this reads,
// asks, and writes with the same newest-wins upsert the follower uses, so a word newer than the
// forget still counts.
import { Clock, Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { forget } from "@mesh-core/core/standings/forget"
import { userName } from "../config.ts"
import { writeOut } from "../files/output.ts"
import { StandingsStore } from "../store/standings.ts"
import { forCommand, StoreAsItIs, storesOver } from "./wiring.ts"
import { CommandFailed, endingWith, exitCodes } from "./errors.ts"
import { personProblem } from "@mesh-core/core/person"

const forgetCommand = Command.make(
  "forget",
  {
    provider: Argument.String("provider").pipe(Argument.withDescription("The provider's resource, as status names it")),
    consumer: Argument.String("consumer").pipe(Argument.withDescription("The consumer it is failing")),
    node: Flag.String("node").pipe(
      Flag.withDescription("The provider's machine, when it fails the consumer from more than one"),
      Flag.optional,
    ),
    by: Flag.String("by").pipe(
      Flag.withDescription("Who forgets it, recorded (default $USER)"),
      Flag.withDefault(userName()),
    ),
  },
  ({ provider, consumer, node, by }) => {
    // Checked before the store is opened (issue 27): an act with no one named is one line and exit 2.
    const nobody = personProblem("--by", by)
    if (nobody !== undefined)
      return Effect.fail(new CommandFailed({ code: exitCodes.badInput, said: nobody })).pipe(
        endingWith(exitCodes.badInput),
      )
    return Effect.gen(function* () {
      const standings = yield* StandingsStore
      const kept = yield* standings.standingsOf(provider, consumer)
      const at = yield* Clock.currentTimeMillis
      const f = forget(kept, { provider, consumer, providerNode: Option.getOrUndefined(node), by, at })
      if (!f.ok) return yield* Effect.fail(new CommandFailed({ code: exitCodes.badInput, said: f.why }))
      const changed = yield* standings.writeKept([f.forgotten])
      if (changed === 0) {
        return yield* Effect.fail(
          new CommandFailed({
            code: exitCodes.notWell,
            said: `a newer word for ${provider} on ${f.was.providerNode} for ${consumer} came first: nothing forgotten`,
          }),
        )
      }
      yield* writeOut(
        `forgot ${provider} on ${f.was.providerNode} failing ${consumer} (${f.was.class} since ${f.was.since}), by ${by}; a newer word from the provider still counts\n`,
      )
    }).pipe(Effect.provide(forCommand(storesOver(StoreAsItIs))), endingWith(exitCodes.unreachable))
  },
).pipe(
  Command.withDescription(
    "Clear a failing standing nobody will clear (a consumer withdrawn while its provider was down), recorded with who and when",
  ),
)

export const standingsCommand = Command.make("standings").pipe(
  Command.withDescription("The failing standings the controller keeps"),
  Command.withSubcommands([forgetCommand]),
)
