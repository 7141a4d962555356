import { doctorLines } from "@mesh-core/core/doctor"
import { Effect } from "effect"
import { Command, Flag } from "effect/cli"
import { writeOut } from "../files/output.ts"
import { metricsAddrFlag } from "../metrics/flags.ts"
import { CommandFailed, exitCodes } from "./errors.ts"
import { groundFindings } from "./doctor.ts"

export const doctorCommand = Command.make(
  "doctor",
  {
    json: Flag.Boolean("json").pipe(
      Flag.withDescription("Print the findings as one JSON array"),
      Flag.withDefault(false),
    ),
    metricsAddr: metricsAddrFlag,
  },
  ({ json, metricsAddr }) =>
    Effect.gen(function* () {
      const findings = yield* groundFindings(metricsAddr)
      yield* writeOut(
        json
          ? `${JSON.stringify(findings.map(({ check, ok, line }) => ({ check, ok, line })))}\n`
          : `${doctorLines(findings).join("\n")}\n`,
      )
      if (findings.some((f) => !f.ok))
        return yield* Effect.fail(new CommandFailed({ code: exitCodes.notWell, said: "" }))
    }),
).pipe(
  Command.withDescription(
    "Check the ground serve stands on, one line each with what to do: the settings; the bus (JetStream, replicas against its " +
      "cluster, its message limit, its clock); the store (migrations, the role's rights to fence and to create its schema, " +
      "the signing key, its clock); the metrics port. Exit code 0 all well, 1 something to fix",
  ),
)
