import { Effect } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { gateSettingNames } from "@mesh-core/core/facts/controller-log"
import { settingNames } from "@mesh-core/core/provisioner/model"
import { writeErr } from "../files/output.ts"
import { BadInput, simulate, terminalProgress } from "../simulate/simulate.ts"

export const simulateCommand = Command.make(
  "simulate",
  {
    file: Argument.String("file").pipe(
      Argument.withDescription("A fact log (JSON Lines; .gz is read through gunzip), as a provider's or serve's --record writes it"),
    ),
    json: Flag.Boolean("json").pipe(
      Flag.withDescription("Print every decision as JSON Lines (said, announced, called; a controller's: said, each act with its answer), then the summary"),
      Flag.withDefault(false),
    ),
    set: Flag.String("set").pipe(
      Flag.withDescription(
        `Replay under another setting, as name=duration: ${settingNames.join(", ")}; a controller's log takes the gate's: ` +
          `${gateSettingNames.join(", ")} (passes=N) (repeatable)`,
      ),
      Flag.atLeast(0),
    ),
  },
  ({ file, json, set }) =>
    simulate({ file, json, set, ...withProgress(file) }).pipe(
      Effect.asVoid,
      Effect.tapError((e: BadInput) => writeErr(`${e.said}\n`)),
    ),
).pipe(
  Command.withDescription(
    "Replay a recorded day through the core on a virtual clock: the timeline of what was said, announced and done, then a summary",
  ),
  Command.withExamples([
    { command: "mesh-controller simulate examples/identity-issue-179.facts.jsonl.gz", description: "The identity provider's day of hq issue 179" },
    { command: "mesh-controller simulate examples/small.facts.jsonl --set failingAfter=30s", description: "The same day, announcing sooner" },
    { command: "mesh-controller simulate examples/small.facts.jsonl --json", description: "Decisions as JSON Lines" },
    { command: "mesh-controller simulate examples/release-day.facts.jsonl", description: "A controller's day: a crash-looping build put back, a healthy one passing" },
    { command: "mesh-controller simulate examples/release-day.facts.jsonl --set passes=5", description: "The same day under a stricter gate" },
  ]),
)

const withProgress = (file: string) => {
  const progress = terminalProgress(file)
  return progress === undefined ? {} : { progress }
}
