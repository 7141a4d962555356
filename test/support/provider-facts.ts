// A provider's day as the log gives it back: facts written by the real recorder and read by the
// log's reader, and the decisions a replay of them makes under some settings alone (what a sweep's
// point must equal).
import { freshReader, type LogFact, readLine, type ReaderState } from "@mesh-core/core/provisioner/log"
import { dayReplay, type Decision, replayEnd, replayFact } from "@mesh-core/core/provisioner/replay"
import { defaultSettings, type Fact, type Settings } from "@mesh-core/core/provisioner/model"
import { makeRecorder } from "../../shells/src/provisioner/recorder.ts"
import { provider } from "./days.ts"

const key = new Uint8Array(32).fill(7)

export const factsOf = (facts: ReadonlyArray<Fact>, s: Settings): ReadonlyArray<LogFact> => {
  const rec = makeRecorder(provider, s, new Date(0), key)
  let reader: ReaderState = freshReader
  const out: Array<LogFact> = []
  for (const text of [rec.header(), ...facts.map(rec.line)]) {
    const r = readLine(reader, text, defaultSettings)
    if (!r.ok) throw new Error(r.bad.problem)
    reader = r.state
    if (r.fact !== undefined) out.push(r.fact)
  }
  return out
}

export const decisionsAlone = (
  facts: ReadonlyArray<LogFact>,
  overrides: Partial<Settings>,
): ReadonlyArray<Decision> => {
  const d = dayReplay(overrides)
  return [...facts.flatMap((f) => replayFact(d, f)), ...replayEnd(d)]
}
