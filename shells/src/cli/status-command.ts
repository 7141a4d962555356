import { Effect } from "effect"
import { Command, Flag } from "effect/cli"
import { wholeStatus } from "@mesh-core/core/status/whole"
import { databaseUrl, redactUrl, storeSchema } from "../config.ts"
import { readWholeStatus, staleAfterMs } from "../controller/status.ts"
import { writeOut } from "../files/output.ts"
import * as Store from "../store/postgres.ts"
import { CommandFailed, endingWith, exitCodes } from "./errors.ts"

export const statusCommand = Command.make(
  "status",
  { json: Flag.Boolean("json").pipe(Flag.withDescription("Print the status as one JSON object"), Flag.withDefault(false)) },
  ({ json }) =>
    Effect.gen(function*() {
      const staleAfter = yield* staleAfterMs.pipe(
        Effect.mapError((e) => new CommandFailed({ code: exitCodes.badInput, said: `MESH_STALE_AFTER: ${e.message}` })),
      )
      const status = wholeStatus(yield* readWholeStatus(staleAfter))
      yield* writeOut(`${json ? JSON.stringify(status.json) : status.lines.join("\n")}\n`)
      if (status.code === 0) return
      // Nothing could be read: said on standard error too, as every command says what stopped it.
      return yield* Effect.fail(new CommandFailed({ code: status.code, said: status.stopped }))
    }).pipe(
      Effect.provide(Store.layer(databaseUrl(), storeSchema())),
      endingWith(exitCodes.unreachable),
    ),
).pipe(
  Command.withDescription(
    `Whether the mesh is well, the one place to look: every failing standing a provider announced, by provider, machine and consumer, until it recovers ` +
      `(one nobody has said for $MESH_STALE_AFTER, default 30m, is marked stale and still counted); words set aside; the open conditions (an urgent one — ` +
      `a failed rollback, an unhealthy module — is not well); the release plans in flight and the machines they hold back. ` +
      `Reads the store at $DATABASE_URL (now ${redactUrl(databaseUrl())}, schema ${storeSchema()}). ` +
      `Exit code 0 well, 1 not well (or something could not be read), 3 nothing could be read.`,
  ),
  Command.withExamples([
    { command: "mesh-controller status", description: "What is wrong, by name" },
    { command: "mesh-controller status --json", description: "The same as one JSON object, for scripts" },
  ]),
)
