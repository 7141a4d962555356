import { Clock, Effect, Redacted } from "effect"
import { Command, Flag } from "effect/cli"
import { wholeStatus } from "@mesh-core/core/status/whole"
import { leaseState, leaseStatusJson, leaseStatusLine, statusClockAllowanceMs } from "@mesh-core/core/lease/view"
import { ConnectionSettings, shownDatabaseUrl, shownStoreSchema } from "../config.ts"
import { printableUrl } from "@mesh-core/core/text/connection-url"
import { leaseBucketName } from "../lease/bucket.ts"
import { leaseSeenAt } from "../lease/read.ts"
import { readWholeStatus, staleAfterMs } from "../controller/status.ts"
import { writeLines, writeOut } from "../files/output.ts"
import { forCommand, StoreAsItIs, storesOver } from "./wiring.ts"
import { CommandFailed, endingWith, exitCodes } from "./errors.ts"

// statusJson's own object, read back to add the lease beside it.

export const statusCommand = Command.make(
  "status",
  {
    json: Flag.Boolean("json").pipe(
      Flag.withDescription("Print the status as one JSON object"),
      Flag.withDefault(false),
    ),
  },
  ({ json }) =>
    Effect.gen(function* () {
      const staleAfter = yield* staleAfterMs.pipe(
        Effect.mapError(
          (e) => new CommandFailed({ code: exitCodes.badInput, said: `MESH_STALE_AFTER: ${e.message}`, cause: e }),
        ),
      )
      const status = wholeStatus(yield* readWholeStatus(staleAfter))
      // Who holds the controller lease (issue 13), read without taking it; a bus that does not answer
      // is said on the lease's line and changes no exit code.
      const { natsUrl, busPrefix } = yield* ConnectionSettings
      const seen = yield* leaseSeenAt(Redacted.value(natsUrl), leaseBucketName(busPrefix))
      const lease = leaseState(seen, yield* Clock.currentTimeMillis, statusClockAllowanceMs)
      yield* json
        ? writeOut(`${JSON.stringify({ ...status.json, lease: leaseStatusJson(lease) })}\n`)
        : writeLines([...status.lines, leaseStatusLine(lease)])
      if (status.code === 0) return
      // Nothing could be read: said on standard error too, as every command says what stopped it.
      return yield* Effect.fail(new CommandFailed({ code: status.code, said: status.stopped }))
    }).pipe(Effect.provide(forCommand(storesOver(StoreAsItIs))), endingWith(exitCodes.unreachable)),
).pipe(
  Command.withDescription(
    `Whether the mesh is well, the one place to look: every failing standing a provider announced, by provider, machine and consumer, until it recovers ` +
      `(one nobody has said for $MESH_STALE_AFTER, default 30m, is marked stale and still counted); words set aside; the open conditions (an urgent one — ` +
      `a failed rollback, an unhealthy module — is not well); the release plans in flight and the machines they hold back. ` +
      `Reads the store at $DATABASE_URL (now ${printableUrl(shownDatabaseUrl())}, schema ${shownStoreSchema()}). ` +
      `Also who holds the controller lease, its epoch and since when, read from the bus at $NATS_URL (a bus not answering is said, ` +
      `and changes no exit code). Exit code 0 well, 1 not well (or something could not be read), 3 nothing could be read.`,
  ),
  Command.withExamples([
    { command: "mesh-controller status", description: "What is wrong, by name" },
    { command: "mesh-controller status --json", description: "The same as one JSON object, for scripts" },
  ]),
)
