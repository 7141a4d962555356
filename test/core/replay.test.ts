// A recorded day replayed through the core gives the same decisions it gave live; other settings
// give other decisions, and say how much of them was inferred.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { freshReader, readLine, type ReaderState } from "@mesh-core/core/provisioner/log"
import {
  dayReplay,
  type Decision,
  freshReplay,
  outcomeOf,
  replayEnd,
  replayFact,
} from "@mesh-core/core/provisioner/replay"
import { replayPass } from "../support/replay-pass.ts"
import {
  type Announcement,
  type AnswerFact,
  defaultSettings,
  type Fact,
  type Settings,
} from "@mesh-core/core/provisioner/model"
import { drivePass, initialState, type PassFact } from "@mesh-core/core/provisioner/pass"
import { summaryGatherer } from "@mesh-core/core/provisioner/summary"
import { makeRecorder } from "../../shells/src/provisioner/recorder.ts"
import {
  answerFor,
  day,
  documentText,
  live,
  type PassScript,
  passScript,
  passwords,
  provider,
  settings,
  start,
} from "../support/days.ts"

const key = new Uint8Array(32).fill(7)
const record = (facts: ReadonlyArray<Fact>, s: Settings): Array<string> => {
  const rec = makeRecorder(provider, s, new Date(0), key)
  return [rec.header(), ...facts.map(rec.line)]
}

const replay = (lines: ReadonlyArray<string>, overrides: Partial<Settings> = {}) => {
  let reader: ReaderState = freshReader
  const day = dayReplay(overrides)
  const decisions: Array<Decision> = []
  for (const text of lines) {
    const r = readLine(reader, text, defaultSettings)
    if (!r.ok) throw new Error(`${r.bad.line}: ${r.bad.field}: ${r.bad.problem}`)
    reader = r.state
    if (r.fact !== undefined) decisions.push(...replayFact(day, r.fact))
  }
  decisions.push(...replayEnd(day))
  return { state: day.replay, decisions }
}

/**
 * One run of a provider as a live shell runs it, from `t0`, killed `cutAfter` answers into its last
 * pass when given (the answer after is never recorded, as a kill leaves it).
 */
const liveRun = (
  scripts: ReadonlyArray<PassScript>,
  s: Settings,
  pw: Record<string, string>,
  t0: number,
  cutAfter: number | undefined,
) => {
  const facts: Array<Fact> = []
  const said: Array<string> = []
  const announced: Array<Announcement> = []
  let state = initialState
  let t = t0
  let cut = false
  scripts.forEach((script, i) => {
    t += script.gap
    const doc = documentText(script.document)
    const pass: PassFact = {
      fact: "pass",
      at: t,
      document: "text" in doc ? { read: "ok", text: doc.text } : { read: "failed", error: doc.error },
    }
    facts.push(pass)
    let answered = 0
    const last = i === scripts.length - 1 && cutAfter !== undefined
    state =
      drivePass(state, pass, s, provider, {
        said: (x) => void said.push(x.text),
        announced: (x) => void announced.push(x),
        answer: (request) => {
          if (last && answered === cutAfter) {
            cut = true
            return undefined
          }
          t += 10
          const answer = answerFor(request, script, pw, t)
          facts.push(answer)
          answered += 1
          return answer
        },
      }) ?? initialState
  })
  return { facts, said, announced, end: t, cut }
}

const run = fc.record({
  scripts: fc.array(passScript, { minLength: 1, maxLength: 25 }),
  settings,
  cutAfter: fc.option(fc.nat(6), { nil: undefined }),
})

describe("replay", () => {
  it("replaying a recorded day under its own settings says and announces exactly what the live run did, every answer found in the recording", () => {
    fc.assert(
      fc.property(day, settings, passwords, (scripts, s, pw) => {
        const r = live(scripts, s, pw)
        const { state, decisions } = replay(record(r.facts, s))
        expect(state.inferred).toBe(0)
        expect(state.unasked).toBe(0)
        const said = decisions.filter((d) => d.kind === "said").map((d) => d.text)
        expect(said).toEqual(r.said.map((x) => x.text))
        const announced = decisions
          .filter((d) => d.kind === "announced")
          .map(({ at, event, body }) => ({ at, event, body }))
        expect(announced).toEqual(r.announced)
      }),
      { numRuns: 200 },
    )
  })

  it("a what-if with a shorter failingAfter announces sooner, and infers nothing when only announcements change", () => {
    const scripts = Array.from({ length: 100 }, () => ({
      gap: 5_000,
      document: { kind: "given" as const, consumers: ["letta"], version: 0 },
      secrets: {},
      outcomes: { letta: "fail" as const },
      errorStyle: 1,
    }))
    const r = live(scripts, defaultSettings, { letta: "s3cr3t-pw!" })
    const lines = record(r.facts, defaultSettings)
    const firstFailing = (ds: ReadonlyArray<Decision>) =>
      ds.find((d) => d.kind === "announced" && d.event === "provisioner.failing")?.at
    const asRecorded = replay(lines)
    const sooner = replay(lines, { failingAfter: 120_000 })
    expect(firstFailing(sooner.decisions)! - firstFailing(asRecorded.decisions)!).toBe(-180_000)
    expect(sooner.state.inferred).toBe(0)
  })

  it("a what-if that asks what the day never asked answers from what was last heard, and counts it", () => {
    const scripts = Array.from({ length: 30 }, () => ({
      gap: 5_000,
      document: { kind: "given" as const, consumers: ["letta"], version: 0 },
      secrets: {},
      outcomes: { letta: "ok" as const },
      errorStyle: 0,
    }))
    const r = live(scripts, defaultSettings, { letta: "s3cr3t-pw!" })
    const lines = record(r.facts, defaultSettings)
    const oftener = replay(lines, { verifyEvery: 10_000 })
    expect(oftener.state.inferred).toBeGreaterThan(0)
    expect(oftener.decisions.some((d) => d.kind === "called" && d.call === "holds" && !d.recorded)).toBe(true)
  })

  it("a day of restarts, kills mid-pass and secret files that gain or lose their newline replays under its own settings with nothing inferred and nothing unasked", () => {
    fc.assert(
      fc.property(fc.array(run, { minLength: 1, maxLength: 4 }), passwords, (runs, pw) => {
        const lines: Array<string> = []
        const said: Array<string> = []
        const announced: Array<Announcement> = []
        let cut = 0
        let t = start
        runs.forEach((r, i) => {
          const rec = makeRecorder(provider, r.settings, new Date(t + 1), key)
          lines.push(i === 0 ? rec.header() : rec.started())
          const lived = liveRun(
            r.scripts,
            r.settings,
            pw,
            t + 1,
            i === runs.length - 1 && r.cutAfter !== undefined ? r.cutAfter : r.cutAfter,
          )
          lines.push(...lived.facts.map(rec.line))
          said.push(...lived.said)
          announced.push(...lived.announced)
          if (lived.cut) cut += 1
          t = lived.end
        })
        const { state, decisions } = replay(lines)
        expect(state.inferred).toBe(0)
        expect(state.unasked).toBe(0)
        expect(state.runs).toBe(runs.length)
        // A pass a kill cut short is counted once, and every pass of every run is replayed.
        expect(state.cut).toBe(cut)
        expect(state.passes).toBe(runs.reduce((n, r) => n + r.scripts.length, 0))
        expect(decisions.filter((d) => d.kind === "said").map((d) => d.text)).toEqual(said)
        expect(
          decisions.filter((d) => d.kind === "announced").map(({ at, event, body }) => ({ at, event, body })),
        ).toEqual(announced)
      }),
      { numRuns: 200 },
    )
  })

  it("a secret file that gains or loses its trailing newline is the same password: the same fingerprint", () => {
    const rec = makeRecorder(provider, defaultSettings, new Date(0), key)
    const line = (text: string) =>
      JSON.parse(rec.line({ fact: "secret", at: 0, as: "letta", read: "ok", password: text }))
    expect(line("s3cr3t\n").fingerprint).toBe(line("s3cr3t").fingerprint)
    expect(line("s3cr3t\n").fingerprint).not.toBe(line("s3cr3t2").fingerprint)
    // Keyed, 128 bits shown: another key gives another fingerprint, so a log alone checks no guess.
    expect(line("s3cr3t").fingerprint).toMatch(/^hmac-sha256:[0-9a-f]{32}$/)
    const other = makeRecorder(provider, defaultSettings, new Date(0), new Uint8Array(32).fill(8))
    expect(
      JSON.parse(other.line({ fact: "secret", at: 0, as: "letta", read: "ok", password: "s3cr3t" })).fingerprint,
    ).not.toBe(line("s3cr3t").fingerprint)
  })

  it("a day's summary counts what its decisions hold: words, announcements, and per consumer its calls and runs", () => {
    fc.assert(
      fc.property(day, settings, passwords, (scripts, s, pw) => {
        const { decisions } = replay(record(live(scripts, s, pw).facts, s))
        const gatherer = summaryGatherer()
        for (const d of decisions) gatherer.add(d)
        const summary = gatherer.result()
        const count = (keep: (d: (typeof decisions)[number]) => boolean) => decisions.filter(keep).length
        const failingOf = (as: string | undefined) =>
          count(
            (d) =>
              d.kind === "announced" &&
              d.event === "provisioner.failing" &&
              (as === undefined || d.body.consumer === as),
          )
        expect(summary.firstAt).toBe(decisions[0]?.at)
        expect(summary.lastAt).toBe(decisions.at(-1)?.at)
        expect(summary.said).toBe(count((d) => d.kind === "said"))
        expect(summary.failing).toBe(failingOf(undefined))
        expect(summary.recovered).toBe(count((d) => d.kind === "announced" && d.event === "provisioner.recovered"))
        for (const [as, c] of summary.consumers) {
          const calls = decisions.filter((d) => d.kind === "called" && d.as === as)
          expect(c.calls).toBe(calls.length)
          expect(c.failures).toBe(
            calls.filter((d) => d.kind === "called" && ["error", "timed-out", "unreadable"].includes(d.outcome)).length,
          )
          // Every announcement of a consumer's failing belongs to one of its runs; only its last may be open.
          expect(c.runs.reduce((n, r) => n + r.announcements, 0)).toBe(failingOf(as))
          expect(c.runs.slice(0, -1).every((r) => r.recoveredAt !== undefined)).toBe(true)
        }
      }),
      { numRuns: 100 },
    )
  })

  it("no recorded line holds a consumer's password, raw or escaped", () => {
    fc.assert(
      fc.property(day, settings, passwords, (scripts, s, pw) => {
        const r = live(scripts, s, pw)
        const text = record(r.facts, s).join("\n")
        for (const p of Object.values(pw)) {
          expect(text).not.toContain(p)
          expect(text).not.toContain(JSON.stringify(p).slice(1, -1))
        }
      }),
      { numRuns: 200 },
    )
  })
})

/** An answer in the replay's one word, from the rule: a secret is read or not, a call that erred timed out or erred, else its outcome. */
const wordOf = (a: AnswerFact): string => {
  switch (a.fact) {
    case "secret":
      return a.read === "ok" ? "read" : "unreadable"
    case "holds":
      return a.outcome !== "error" ? a.outcome : a.timedOut ? "timed-out" : "error"
    default:
      return a.outcome
  }
}
const classOf = (a: AnswerFact): string | undefined =>
  (a.fact === "holds" || a.fact === "create") && a.outcome === "error" ? a.class : undefined
const calls = (ds: ReadonlyArray<Decision>) => ds.flatMap((d) => (d.kind === "called" ? [d] : []))

const passAt = (at: number, ...consumers: ReadonlyArray<string>): PassFact => {
  const text = documentText({ kind: "given", consumers, version: 0 })
  return {
    fact: "pass",
    at,
    document: "text" in text ? { read: "ok", text: text.text } : { read: "failed", error: text.error },
  }
}
const secretOk = (as: string, at: number): AnswerFact => ({ fact: "secret", at, as, read: "ok", password: `pw-${as}` })
const holds = (as: string, at: number, outcome: "held" | "not-held"): AnswerFact => ({ fact: "holds", at, as, outcome })
const brief = (ds: ReadonlyArray<Decision>) =>
  calls(ds).map((d) => `${d.call} ${d.as} ${d.outcome}${d.recorded ? "" : " (inferred)"} @${d.at}`)

describe("replay: each call and what it counts", () => {
  it("under its own settings each call is the answer recorded for it, in order, in one word, and every pass is counted", () => {
    fc.assert(
      fc.property(day, settings, passwords, (scripts, s, pw) => {
        const r = live(scripts, s, pw)
        const { state, decisions } = replay(record(r.facts, s))
        const recorded = r.facts.flatMap((f) => (f.fact === "pass" ? [] : [f]))
        expect(calls(decisions)).toEqual(
          recorded.map((a) => ({
            at: a.at,
            kind: "called",
            call: a.fact,
            as: a.as,
            outcome: wordOf(a),
            class: classOf(a),
            recorded: true,
          })),
        )
        expect(state.passes).toBe(scripts.length)
        expect(state.cut).toBe(0)
        expect(state.runs).toBe(1)
      }),
      { numRuns: 100 },
    )
  })

  it("a question never heard is answered as a success, at the time of the last answer before it, and counted", () => {
    const pass = passAt(1_000, "letta")
    const fresh = replayPass(freshReplay, { pass, answers: [] }, defaultSettings, provider)
    expect(brief(fresh.decisions)).toEqual(["secret letta read (inferred) @1000", "create letta ok (inferred) @1000"])
    expect(fresh.state.inferred).toBe(2)
    expect(fresh.state.passes).toBe(1)
    expect(fresh.state.unasked).toBe(0)
    expect(fresh.decisions.filter((d) => !["said", "announced", "called"].includes(d.kind))).toEqual([])
    const created = replayPass(freshReplay, { pass, answers: [secretOk("letta", 1_010)] }, defaultSettings, provider)
    expect(brief(created.decisions)).toEqual(["secret letta read @1010", "create letta ok (inferred) @1010"])
    expect(created.state.inferred).toBe(1)
    // Long after, the created consumer is verified (holds never heard: held), or removed once no longer given.
    expect(
      brief(
        replayPass(created.state, { pass: passAt(10_000_000, "letta"), answers: [] }, defaultSettings, provider)
          .decisions,
      ),
    ).toEqual(["secret letta read (inferred) @10000000", "holds letta held (inferred) @10000000"])
    expect(
      brief(replayPass(created.state, { pass: passAt(10_000_000), answers: [] }, defaultSettings, provider).decisions),
    ).toEqual(["remove letta ok (inferred) @10000000"])
  })

  it("a question heard before is answered as it last was, for that consumer, and the state replayed from is left as it was", () => {
    const refused = (as: string, at: number): AnswerFact => ({
      fact: "create",
      at,
      as,
      outcome: "error",
      error: "no",
      class: "refused",
    })
    const unreadable: AnswerFact = { fact: "secret", at: 1_030, as: "grafana", read: "failed", error: "EACCES" }
    const first = replayPass(
      freshReplay,
      {
        pass: passAt(1_000, "letta", "grafana"),
        answers: [
          secretOk("letta", 1_010),
          refused("letta", 1_020),
          unreadable,
          secretOk("grafana", 1_035),
          refused("grafana", 1_040),
        ],
      },
      defaultSettings,
      provider,
    )
    const heardOf = (state: typeof freshReplay) =>
      JSON.stringify([...state.heard].map(([call, byAs]) => [call, [...byAs]]))
    const heardBefore = heardOf(first.state)
    const later = replayPass(
      first.state,
      { pass: passAt(10_000_000, "letta", "grafana"), answers: [] },
      defaultSettings,
      provider,
    )
    expect(calls(later.decisions).map((d) => `${d.call} ${d.as} ${d.outcome} ${d.class} ${d.recorded}`)).toEqual([
      "secret letta read undefined false",
      "create letta error refused false",
      "secret grafana read undefined false",
      "create grafana error refused false",
    ])
    expect(heardOf(first.state)).toBe(heardBefore)
    expect(later.state.passes).toBe(2)
    expect(later.state.inferred).toBe(4)
  })

  it("answers recorded in another order are each found, and answers to questions not asked are counted as unasked", () => {
    const create = (as: string, at: number): AnswerFact => ({ fact: "create", at, as, outcome: "ok" })
    const answers = [
      create("grafana", 1_040),
      secretOk("grafana", 1_030),
      create("letta", 1_020),
      secretOk("letta", 1_010),
      holds("chat", 1_050, "held"),
    ]
    const { state, decisions } = replayPass(
      freshReplay,
      { pass: passAt(1_000, "letta", "grafana"), answers },
      defaultSettings,
      provider,
    )
    expect(brief(decisions)).toEqual([
      "secret letta read @1010",
      "create letta ok @1020",
      "secret grafana read @1030",
      "create grafana ok @1040",
    ])
    expect(state.inferred).toBe(0)
    expect(state.unasked).toBe(1)
    // A question with no answer while an unasked one is still there: inferred, the unasked one counted.
    const leftover = replayPass(
      freshReplay,
      { pass: passAt(1_000, "letta"), answers: [secretOk("letta", 1_010), holds("chat", 1_020, "held")] },
      defaultSettings,
      provider,
    )
    expect(brief(leftover.decisions)).toEqual(["secret letta read @1010", "create letta ok (inferred) @1010"])
    expect(leftover.state).toMatchObject({ inferred: 1, unasked: 1 })
  })

  it("of two answers recorded to the same question, the first is the answer and the other is unasked", () => {
    // The rule (provisioner/replay.ts): each question is answered by the first recorded answer to it.
    const answers = [secretOk("letta", 1_010), { ...secretOk("letta", 1_015), password: "other" }]
    const { state, decisions } = replayPass(
      freshReplay,
      { pass: passAt(1_000, "letta"), answers },
      defaultSettings,
      provider,
    )
    expect(brief(decisions)).toEqual(["secret letta read @1010", "create letta ok (inferred) @1010"])
    expect(state).toMatchObject({ inferred: 1, unasked: 1 })
  })

  it("an error is a timeout only where Holds said it timed out", () => {
    expect(outcomeOf({ fact: "create", at: 1, as: "letta", outcome: "error", error: "x", class: "refused" })).toEqual({
      outcome: "error",
      class: "refused",
    })
    expect(outcomeOf({ fact: "remove", at: 1, as: "letta", outcome: "error", error: "x" })).toEqual({
      outcome: "error",
      class: undefined,
    })
    expect(
      outcomeOf({ fact: "holds", at: 1, as: "letta", outcome: "error", error: "x", class: undefined, timedOut: false }),
    ).toEqual({ outcome: "error", class: undefined })
    expect(
      outcomeOf({
        fact: "holds",
        at: 1,
        as: "letta",
        outcome: "error",
        error: "x",
        class: "unreachable",
        timedOut: true,
      }),
    ).toEqual({ outcome: "timed-out", class: "unreachable" })
  })

  it("a pass the recording cut short ends at the first question it has no answer to, and is counted cut", () => {
    const { state, decisions } = replayPass(
      freshReplay,
      { pass: passAt(1_000, "letta"), answers: [secretOk("letta", 1_010)] },
      defaultSettings,
      provider,
      true,
    )
    expect(brief(decisions)).toEqual(["secret letta read @1010"])
    expect(state.cut).toBe(1)
    expect(state.inferred).toBe(0)
    expect(state.core).toBe(initialState)
  })

  it("an answer before any pass of a run belongs to no pass and is dropped", () => {
    const d = dayReplay()
    expect(replayFact(d, { fact: "started", at: 0, provider, settings: defaultSettings })).toEqual([])
    expect(replayFact(d, holds("letta", 5, "held"))).toEqual([])
    expect(replayEnd(d)).toEqual([])
    expect(d.replay.passes).toBe(0)
  })

  it("a pass before any run began (no header read: no settings, no provider) is not driven", () => {
    const d = dayReplay()
    expect(replayFact(d, passAt(1_000, "letta"))).toEqual([])
    expect(replayFact(d, passAt(2_000, "letta"))).toEqual([])
    expect(replayEnd(d)).toEqual([])
    expect(d.replay.passes).toBe(0)
  })
})
