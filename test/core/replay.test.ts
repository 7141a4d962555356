// A recorded day replayed through the core gives the same decisions it gave live; other settings
// give other decisions, and say how much of them was inferred.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { freshReader, readLine, type ReaderState } from "@mesh-core/core/facts/log"
import { type Decision, freshReplay, type PassGroup, replayPass } from "@mesh-core/core/facts/replay"
import { type AnswerFact, defaultSettings, type Fact, type Settings } from "@mesh-core/core/provisioner/model"
import { makeRecorder } from "../../shells/src/provisioner/recorder.ts"
import { day, live, passwords, provider, settings } from "../support/days.ts"

const record = (facts: ReadonlyArray<Fact>, s: Settings): Array<string> => {
  const rec = makeRecorder(provider, s, new Date(0))
  return [rec.header(), ...facts.map(rec.line)]
}

const replay = (lines: ReadonlyArray<string>, s?: Settings) => {
  let reader: ReaderState = freshReader
  const groups: Array<{ pass: PassGroup["pass"]; answers: Array<AnswerFact> }> = []
  for (const text of lines) {
    const r = readLine(reader, text, defaultSettings)
    if (!r.ok) throw new Error(`${r.bad.line}: ${r.bad.field}: ${r.bad.problem}`)
    reader = r.state
    if (r.fact === undefined) continue
    if (r.fact.fact === "pass") groups.push({ pass: r.fact, answers: [] })
    else groups[groups.length - 1]!.answers.push(r.fact)
  }
  let state = freshReplay
  const decisions: Array<Decision> = []
  for (const g of groups) {
    const r = replayPass(state, g, s ?? reader.settings!, reader.provider!)
    state = r.state
    decisions.push(...r.decisions)
  }
  return { state, decisions }
}

describe("replay", () => {
  it("replaying a recorded day under its own settings says and announces exactly what the live run did, every answer found in the recording", () => {
    fc.assert(fc.property(day, settings, passwords, (scripts, s, pw) => {
      const r = live(scripts, s, pw)
      const { state, decisions } = replay(record(r.facts, s))
      expect(state.inferred).toBe(0)
      expect(state.unasked).toBe(0)
      const said = decisions.filter((d) => d.kind === "said").map((d) => d.text)
      expect(said).toEqual(r.said.map((x) => x.text))
      const announced = decisions.filter((d) => d.kind === "announced").map(({ at, event, body }) => ({ at, event, body }))
      expect(announced).toEqual(r.announced)
    }), { numRuns: 200 })
  })

  it("a what-if with a shorter failingAfter announces sooner, and infers nothing when only announcements change", () => {
    const scripts = Array.from({ length: 100 }, () => ({
      gap: 5_000, document: { kind: "given" as const, consumers: ["letta"], version: 0 }, secrets: {}, outcomes: { letta: "fail" as const }, errorStyle: 1,
    }))
    const r = live(scripts, defaultSettings, { letta: "s3cr3t-pw!" })
    const lines = record(r.facts, defaultSettings)
    const firstFailing = (ds: ReadonlyArray<Decision>) => ds.find((d) => d.kind === "announced" && d.event === "provisioner.failing")?.at
    const asRecorded = replay(lines)
    const sooner = replay(lines, { ...defaultSettings, failingAfter: 120_000 })
    expect(firstFailing(sooner.decisions)! - firstFailing(asRecorded.decisions)!).toBe(-180_000)
    expect(sooner.state.inferred).toBe(0)
  })

  it("a what-if that asks what the day never asked answers from what was last heard, and counts it", () => {
    const scripts = Array.from({ length: 30 }, () => ({
      gap: 5_000, document: { kind: "given" as const, consumers: ["letta"], version: 0 }, secrets: {}, outcomes: { letta: "ok" as const }, errorStyle: 0,
    }))
    const r = live(scripts, defaultSettings, { letta: "s3cr3t-pw!" })
    const lines = record(r.facts, defaultSettings)
    const oftener = replay(lines, { ...defaultSettings, verifyEvery: 10_000 })
    expect(oftener.state.inferred).toBeGreaterThan(0)
    expect(oftener.decisions.some((d) => d.kind === "called" && d.call === "holds" && !d.recorded)).toBe(true)
  })

  it("no recorded line holds a consumer's password, raw or escaped", () => {
    fc.assert(fc.property(day, settings, passwords, (scripts, s, pw) => {
      const r = live(scripts, s, pw)
      const text = record(r.facts, s).join("\n")
      for (const p of Object.values(pw)) {
        expect(text).not.toContain(p)
        expect(text).not.toContain(JSON.stringify(p).slice(1, -1))
      }
    }), { numRuns: 200 })
  })
})
