import * as Effect from "effect/Effect"
import { Argument, Command, Flag } from "effect/cli"
import { gateSettingNames } from "@mesh-core/core/controller/log"
import { settingNames } from "@mesh-core/core/provisioner/model"
import { writeErr } from "../files/output.ts"
import { type BadInput, simulate, terminalProgress } from "../simulate/simulate.ts"
import type { ReplayDiffers } from "../simulate/options.ts"

export const simulateCommand = Command.make(
  "simulate",
  {
    file: Argument.String("file").pipe(
      Argument.withDescription(
        "A fact log (JSON Lines; .gz is read through gunzip), as a provider's or serve's --record writes it",
      ),
    ),
    json: Flag.Boolean("json").pipe(
      Flag.withDescription(
        "Print every decision as JSON Lines (said, announced, called; a controller's: said, each act with its answer), then the summary",
      ),
      Flag.withDefault(false),
    ),
    set: Flag.String("set").pipe(
      Flag.withDescription(
        `Replay under another setting, as name=duration: ${settingNames.join(", ")}; a controller's log takes the gate's: ` +
          `${gateSettingNames.join(", ")} (passes=N) (repeatable)`,
      ),
      Flag.atLeast(0),
    ),
    sweep: Flag.String("sweep").pipe(
      Flag.withDescription(
        "Replay the day once per value in one reading, as name=v1,v2,… (any setting of --set); twice for a grid of two. " +
          "Prints a table of what each came to (--json for scripts)",
      ),
      Flag.atLeast(0),
    ),
    html: Flag.String("html").pipe(
      Flag.withDescription(
        "Also write the day as one self-contained page: per consumer its failing runs and announcements, a row per sweep value",
      ),
      Flag.optional,
    ),
    strict: Flag.Boolean("strict").pipe(
      Flag.withDescription(
        "End with exit code 1 when the replay does not reproduce the day: an act that differs from the one recorded, an answer inferred, or one recorded and never asked for",
      ),
      Flag.withDefault(false),
    ),
  },
  ({ file, json, set, sweep, html, strict }) =>
    simulate({
      file,
      json,
      set,
      sweep,
      strict,
      ...(html._tag === "Some" ? { html: html.value } : {}),
      ...withProgress(file),
    }).pipe(
      Effect.asVoid,
      Effect.tapError((e: BadInput | ReplayDiffers) => writeErr(`${e.said}\n`)),
    ),
).pipe(
  Command.withDescription(
    "Replay a recorded day through the core on a virtual clock: the timeline of what was said, announced and done, then a summary",
  ),
  Command.withExamples([
    {
      command: "mesh-controller simulate examples/identity-issue-179.facts.jsonl.gz",
      description: "The identity provider's day of hq issue 179",
    },
    {
      command: "mesh-controller simulate examples/small.facts.jsonl --set failingAfter=30s",
      description: "The same day, announcing sooner",
    },
    { command: "mesh-controller simulate examples/small.facts.jsonl --json", description: "Decisions as JSON Lines" },
    {
      command: "mesh-controller simulate examples/release-day.facts.jsonl",
      description: "A controller's day: a crash-looping build put back, a healthy one passing",
    },
    {
      command: "mesh-controller simulate examples/release-day.facts.jsonl --set passes=5",
      description: "The same day under a stricter gate",
    },
    {
      command: "mesh-controller simulate examples/identity-issue-179.facts.jsonl.gz --sweep failingAfter=1m,2m,5m,10m",
      description: "The same day under four values of failingAfter, read once",
    },
    {
      command: "mesh-controller simulate examples/small.facts.jsonl --html day.html",
      description: "The day as a page to look at",
    },
  ]),
)

const withProgress = (file: string) => {
  const progress = terminalProgress(file)
  return progress === undefined ? {} : { progress }
}
