// The JSON journal (issue 10): what programs say through `Journal`, written one JSON object a line,
// with the time from the clock the program runs under and the log annotations as fields; the format
// chosen by MESH_LOG_FORMAT, anything but text or json refused.
import { ConfigProvider, Effect, Layer, Schema } from "effect"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "vitest"
import { JournalEntry } from "@mesh-core/core/text/journal-line"
import { say } from "../../shells/src/journal.ts"
import { jsonMemoryLayer, logFormatConfig } from "../../shells/src/journal-json.ts"

describe("the JSON journal", () => {
  it("writes each line said as one entry: the clock's time, the area, the level, the annotations as fields", async () => {
    const lines: Array<string> = []
    await Effect.runPromise(
      Effect.gen(function* () {
        yield* TestClock.setTime(Date.UTC(2026, 11, 3, 8, 30))
        yield* say("[gate] letta-204: letta: gate on hq-3: judging (1 of 2 passes)").pipe(
          Effect.annotateLogs({ plan: "letta-204", module: "letta" }),
        )
        yield* say("[controller] ignored a report on mesh.report.hq-3 (stream sequence 4): not JSON")
        yield* say("serve stopped")
      }).pipe(Effect.provide(Layer.merge(jsonMemoryLayer(lines), TestClock.layer()))),
    )
    const entries = lines.map((l) => Schema.decodeUnknownSync(JournalEntry)(JSON.parse(l)))
    expect(entries).toEqual([
      {
        time: "2026-12-03T08:30:00.000Z",
        level: "info",
        area: "gate",
        message: "letta-204: letta: gate on hq-3: judging (1 of 2 passes)",
        fields: { plan: "letta-204", module: "letta" },
      },
      {
        time: "2026-12-03T08:30:00.000Z",
        level: "warn",
        area: "controller",
        message: "ignored a report on mesh.report.hq-3 (stream sequence 4): not JSON",
        fields: {},
      },
      { time: "2026-12-03T08:30:00.000Z", level: "info", area: "mesh", message: "serve stopped", fields: {} },
    ])
  })

  it("MESH_LOG_FORMAT is text by default, json when asked, and refused otherwise", async () => {
    const read = (env: Record<string, string>) =>
      Effect.runPromise(
        Effect.result(
          Effect.gen(function* () {
            return yield* logFormatConfig
          }).pipe(Effect.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(env)))),
        ),
      )
    expect(await read({})).toMatchObject({ _tag: "Success", success: "text" })
    expect(await read({ MESH_LOG_FORMAT: "json" })).toMatchObject({ _tag: "Success", success: "json" })
    expect((await read({ MESH_LOG_FORMAT: "yaml" }))._tag).toBe("Failure")
  })
})
