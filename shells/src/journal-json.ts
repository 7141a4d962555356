// The journal as JSON Lines (`--log-format json` or MESH_LOG_FORMAT=json, issue 10): the same
// `Journal` every program says through, each line written as {time, level, area, message, fields}
// (core/src/text/journal-line.ts decides each), the fields being the log annotations the saying fiber runs
// under (`Effect.annotateLogs({ plan: id })`). Standard error, like the text journal.
import { journalEntry, journalJson, LogFormat } from "@mesh-core/core/text/journal-line"
import { Clock, Config, Effect, Layer, References } from "effect"
import { Journal, stderrLayer } from "./journal.ts"

/** A JSON journal writing each line through `write`. */
const jsonLayerTo = (write: (line: string) => void) =>
  Layer.succeed(Journal, {
    say: (line) =>
      Effect.gen(function* () {
        const at = yield* Clock.currentTimeMillis
        const fields = yield* References.CurrentLogAnnotations
        write(journalJson(journalEntry(line, at, fields)))
      }),
  })

const jsonStderrLayer = jsonLayerTo((line) => void process.stderr.write(`${line}\n`))

/** For tests: the JSON lines, kept in a list. */
export const jsonMemoryLayer = (lines: Array<string>) => jsonLayerTo((line) => void lines.push(line))

/** MESH_LOG_FORMAT, `text` (the default) or `json`, decoded by the core's Schema. `--log-format` overrides it. */
export const logFormatConfig = Config.schema(LogFormat, "MESH_LOG_FORMAT").pipe(Config.withDefault("text" as const))

export const journalLayerFor = (format: LogFormat) => (format === "json" ? jsonStderrLayer : stderrLayer)
