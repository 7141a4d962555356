// One reading of a provider's fact log, every line checked as it is read and each fact handed on:
// what `simulate` replays and what a sweep feeds every one of its replays.
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { type BadLine, freshReader, type LogFact, type ReaderState, readLine } from "@mesh-core/core/provisioner/log"
import { defaultSettings } from "@mesh-core/core/provisioner/model"
import { type FileUnreadable, type LineRefused, lineChunks } from "../files/lines.ts"
import { BadInput } from "./options.ts"

const badLine = (file: string, bad: BadLine): BadInput =>
  new BadInput({ said: `${file}:${bad.line}: ${bad.field}: ${bad.problem}` })

export const unreadable = (e: FileUnreadable | LineRefused): BadInput => new BadInput({ said: e.message, cause: e })

/**
 * One reading of a provider's log: every line checked and each fact handed to `feed` as it is read.
 * A bad line fails it, and whatever `feed` made of the lines before is the caller's to drop.
 */
export const readProviderLog = Effect.fn("Simulate.readProviderLog")(function* (
  file: string,
  feed: (fact: LogFact) => void,
  progress: ((lines: number) => void) | undefined,
) {
  let reader: ReaderState = freshReader
  let facts = 0
  yield* Stream.runForEach(lineChunks(file), (lines) => {
    for (const text of lines) {
      const r = readLine(reader, text, defaultSettings)
      if (!r.ok) return Effect.fail(badLine(file, r.bad))
      reader = r.state
      const fact = r.fact
      if (fact === undefined) continue
      if (fact.fact !== "started") facts += 1
      feed(fact)
    }
    progress?.(reader.line)
    return Effect.void
  }).pipe(Effect.mapError((e) => (e instanceof BadInput ? e : unreadable(e))))
  if (reader.provider === undefined || reader.settings === undefined) {
    return yield* Effect.fail(
      badLine(file, { line: 1, field: "format", problem: "the log is empty: its first line must name the format" }),
    )
  }
  return { provider: reader.provider, settings: reader.settings, facts }
})
