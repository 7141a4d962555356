// The controller's fact log refuses a line as `FILE:LINE: field: problem` (issue 14), the same
// contract as the provider's log: each refusal is pinned here word for word, with the settings a
// header, a `started` line and `--set` give, and the state the reader carries from line to line.
import { describe, expect, it } from "vitest"
import {
  answerLine,
  freshControllerReader,
  gateSettingOverrides,
  gateSettingsOf,
  type ControllerReader,
  readControllerLine,
  readControllerNext,
} from "@mesh-core/core/controller/log"
import { defaultGateSettings } from "@mesh-core/core/gate/judging/judge"

const header = `{"format":"mesh-core.facts","version":1,"area":"controller","settings":{"gate":{}}}`
const t = (s: number) => `2026-11-20T10:00:${String(s).padStart(2, "0")}.000Z`
const tick = (s: number) => `{"at":"${t(s)}","fact":"tick"}`
const words = (line: number, text: string, first = false, lastAt = 0): string => {
  const r = readControllerLine(line, text, first, lastAt)
  return r.ok ? "read" : `${r.bad.line}: ${r.bad.field}: ${r.bad.problem}`
}
const reading = (lines: ReadonlyArray<string>): { state: ControllerReader; said: string } => {
  let state = freshControllerReader
  for (const l of lines) {
    const next = readControllerNext(state, l)
    if (!next.ok) return { state, said: `${next.bad.line}: ${next.bad.field}: ${next.bad.problem}` }
    state = next.state
  }
  return { state, said: "read" }
}
const jsonError = (text: string): string => {
  try {
    JSON.parse(text)
    return ""
  } catch (e) {
    return (e as Error).message
  }
}

describe("a controller log's line refused", () => {
  it("a header: the format, and each gate setting by name", () => {
    expect(words(1, header, true)).toBe("read")
    expect(reading([""]).said).toBe("1: format: the log is empty: its first line must name the format")
    expect(reading(["  \t"]).said).toBe("1: format: the log is empty: its first line must name the format")
    // A blank line after the header carries nothing, as in the provider's log.
    expect(words(2, "   ")).toBe("read")
    expect(words(1, `{"format":"x"`, true)).toBe(`1: (line): not JSON: ${jsonError(`{"format":"x"`)}`)
    const gate = (g: string) => words(1, header.replace(`"gate":{}`, `"gate":${g}`), true)
    for (const name of ["settle", "bound", "every"]) {
      expect(gate(`{"${name}":"fast"}`)).toBe(`1: settings.gate.${name}: "fast" is not a duration`)
      expect(gate(`{"${name}":"0s"}`)).toBe(`1: settings.gate.${name}: ${name} must be longer than 0s`)
      expect(gate(`{"${name}":"1s"}`)).toBe("read")
    }
    for (const passes of [0, -1, 1.5, 1_000_000, 1e12, 1e20])
      expect(gate(`{"passes":${passes}}`)).toBe("1: settings.gate.passes: passes is a whole number from 1 to 999999")
    for (const limit of [0, 2.5, 1e12])
      expect(gate(`{"errorLimit":${limit}}`)).toBe(
        "1: settings.gate.errorLimit: errorLimit is a whole number from 1 to 999999",
      )
    expect(gate(`{"passes":1,"errorLimit":1}`)).toBe("read")
    expect(gate(`{"passes":999999,"errorLimit":999999}`)).toBe("read")
  })

  it("a fact: its kind, its time, a started line's settings", () => {
    expect(words(2, `{"at":"${t(1)}","fact":"tock"}`)).toBe(
      `2: fact: must be one of "started", "tick", "words", "report", "statement", "witness", "verb", "store-failed", "answer", not "tock"`,
    )
    expect(words(2, `[1]`)).toBe(
      `2: fact: must be one of "started", "tick", "words", "report", "statement", "witness", "verb", "store-failed", "answer", not undefined`,
    )
    expect(words(2, `null`)).toMatch(/^2: fact: must be one of .*, not undefined$/)
    expect(words(2, `{"at":"${t(1)}","fact":"toString"}`)).toMatch(/^2: fact: must be one of .*, not "toString"$/)
    expect(words(2, `{"at":"soon","fact":"tick"}`)).toBe(`2: at: "soon" is not an RFC 3339 time`)
    expect(words(3, tick(1), false, Date.parse(t(2)))).toBe(`3: at: ${t(1)} is before the previous fact's time`)
    expect(words(3, tick(2), false, Date.parse(t(2)))).toBe("read")
    expect(words(2, `{"at":"${t(1)}","fact":"started","settings":{"gate":{"every":"0s"}}}`)).toBe(
      "2: settings.gate.every: every must be longer than 0s",
    )
    expect(words(2, `{"at":"${t(1)}","fact":"started","settings":{"gate":{"every":"1s"}}}`)).toBe("read")
  })

  it("an answer: read by the Schema of the question it answers, its fields named under q and a", () => {
    const answer = (q: string, a: string) => words(3, `{"at":"${t(1)}","fact":"answer","q":${q},"a":${a}}`)
    expect(answer(`{"q":"plans-in-flight"}`, `{"ok":true,"value":[]}`)).toBe("read")
    expect(answer(`{"q":"nope"}`, `{}`)).toBe(`3: q.q: no such question: "nope"`)
    expect(answer(`7`, `{}`)).toBe(`3: q.q: no such question: undefined`)
    expect(answer(`null`, `{}`)).toBe(`3: q.q: no such question: undefined`)
    expect(answer(`{"q":"builds"}`, `{"ok":true,"value":[]}`)).toBe(`3: q.builds: Missing key`)
    expect(answer(`{"q":"builds","builds":[1]}`, `{"ok":true,"value":[]}`)).toMatch(/^3: q\.builds\.0: /)
    expect(answer(`{"q":"plans-in-flight"}`, `7`)).toMatch(/^3: a: /)
    expect(answer(`{"q":"plans-in-flight"}`, `{"ok":true,"value":7}`)).toMatch(/^3: a\.value: /)
    expect(
      reading([header, `{"at":"${t(1)}","fact":"answer","q":{"q":"plans-in-flight"},"a":{"ok":true,"value":[]}}`]).said,
    ).toBe(
      "2: fact: an answer with no program before it: an input (tick, words, report, statement, witness, store-failed) comes first",
    )
  })
})

describe("the reader's state and the lines written", () => {
  it("carries the header, the line, the last time, and whether a program is open", () => {
    const after = reading([header, "", tick(1)]).state
    expect(after).toEqual({ line: 3, header: JSON.parse(header), lastAt: Date.parse(t(1)), inProgram: true })
    const restarted = reading([header, tick(1), `{"at":"${t(2)}","fact":"started","settings":{"gate":{}}}`]).state
    expect(restarted).toEqual({ line: 3, header: JSON.parse(header), lastAt: Date.parse(t(2)), inProgram: false })
    const answered = readControllerNext(
      after,
      `{"at":"${t(3)}","fact":"answer","q":{"q":"plans-in-flight"},"a":{"ok":true,"value":[]}}`,
    )
    expect(answered).toMatchObject({
      ok: true,
      state: { line: 4, lastAt: Date.parse(t(3)), inProgram: true },
      fact: { fact: "answer", atMs: Date.parse(t(3)) },
    })
    expect(JSON.parse(answerLine(t(3), { q: "plans-in-flight" }, { ok: true, value: [] }))).toEqual({
      at: t(3),
      fact: "answer",
      q: { q: "plans-in-flight" },
      a: { ok: true, value: [] },
    })
  })

  it("gate settings over the seed's: each named one changed, the rest kept", () => {
    expect(gateSettingsOf({})).toEqual(defaultGateSettings)
    expect(gateSettingsOf({ settle: "3m", bound: "1h", every: "10s", passes: 7 })).toEqual({
      ...defaultGateSettings,
      settle: 180_000,
      bound: 3_600_000,
      every: 10_000,
      passes: 7,
    })
    expect(gateSettingsOf({ settle: "1s" }, { ...defaultGateSettings, settle: 5 })).toEqual({
      ...defaultGateSettings,
      settle: 1_000,
    })
    const base = { ...defaultGateSettings, settle: 1, bound: 2, every: 3, passes: 4 }
    expect(gateSettingsOf({}, base)).toEqual(base)
    expect(gateSettingsOf({ bound: "1s" }, base)).toEqual({ ...base, bound: 1_000 })
  })

  it("--set: each refusal word for word", () => {
    expect(gateSettingOverrides(["failingAfter=2m"])).toEqual({
      problem: `--set failingAfter=2m: no gate setting "failingAfter"; the gate's settings are settle, bound, every, passes`,
    })
    expect(gateSettingOverrides(["settle"])).toEqual({
      problem: "--set settle: give a duration of at most 596h, as in settle=2m",
    })
    expect(gateSettingOverrides(["=2m"])).toEqual({
      problem: `--set =2m: no gate setting ""; the gate's settings are settle, bound, every, passes`,
    })
    expect(gateSettingOverrides(["bound=fast"])).toEqual({
      problem: "--set bound=fast: give a duration of at most 596h, as in bound=2m",
    })
    expect(gateSettingOverrides(["every=9999999999999h"])).toEqual({
      problem: "--set every=9999999999999h: give a duration of at most 596h, as in every=2m",
    })
    expect(gateSettingOverrides(["every=0s"])).toEqual({ problem: "--set every=0s: every must be longer than 0s" })
    expect(gateSettingOverrides(["passes=two"])).toEqual({
      problem: "--set passes=two: passes is a whole number from 1 to 999999",
    })
    expect(gateSettingOverrides(["passes=1.5"])).toEqual({
      problem: "--set passes=1.5: passes is a whole number from 1 to 999999",
    })
    expect(gateSettingOverrides(["passes=0"])).toEqual({
      problem: "--set passes=0: passes is a whole number from 1 to 999999",
    })
    // Digits only: what Number() would also read (a sign, hex, a space) is not a count.
    for (const v of ["+5", "0x10", "5 ", " 5", "1e2"])
      expect(gateSettingOverrides([`passes=${v}`])).toEqual({
        problem: `--set passes=${v}: passes is a whole number from 1 to 999999`,
      })
    expect(gateSettingOverrides(["passes=12"])).toEqual({ overrides: { passes: 12 } })
    expect(gateSettingOverrides(["settle=1m=2"])).toEqual({
      problem: "--set settle=1m=2: give a duration of at most 596h, as in settle=2m",
    })
    expect(gateSettingOverrides(["passes=3", "settle=1m", "passes=4"])).toEqual({
      overrides: { passes: 4, settle: "1m" },
    })
    expect(gateSettingOverrides([])).toEqual({ overrides: {} })
  })
})
