// What reaches the controller from outside, each refusal in the words serve or the journal says it
// (issue 8, issue 14): its settings, the machines' reports and statements, the store's rows; and an
// outage said once when it begins and once when it ends, never a line per retry.
import { Schema } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { messageLimits, readStatement, timeOf } from "@mesh-core/core/gate/messages/messages"
import { readReport } from "@mesh-core/core/delivery/messages"
import { noOutage, outageHeard, outageOver, storeFailed } from "@mesh-core/core/controller/outage"
import { runPure } from "@mesh-core/core/program"
import { buildOfRow, BuildRow, conditionOfRow, ConditionRow, statementOfRow } from "@mesh-core/core/gate/plan/rows"
import { reportOfRow, ReportRow } from "@mesh-core/core/delivery/rows"
import { readRows } from "@mesh-core/core/rows"
import {
  BusPrefixSetting,
  durationMs,
  gateSettingsLine,
  ErrorLimitSetting,
  PassesSetting,
  PositiveDuration,
  StoreSchemaSetting,
} from "@mesh-core/core/controller/settings"

const check = <S extends Schema.Top>(schema: S, s: string): string | undefined => {
  const exit = Schema.decodeUnknownExit(schema as unknown as Schema.Codec<string>)(s)
  if (exit._tag === "Success") return undefined
  return messageOf(exit)
}
const messageOf = (exit: unknown): string => {
  const m = /"message":\s*"([^"]*)"|message: ([^\n]*)/.exec(JSON.stringify(exit))
  return m?.[1] ?? m?.[2] ?? JSON.stringify(exit)
}

describe("serve's settings", () => {
  it("a duration longer than 0s, in Go's spelling", () => {
    expect(["3s", "250ms", "1h30m"].map((s) => check(PositiveDuration, s))).toEqual([undefined, undefined, undefined])
    // At most 596h (issue 27): a longer timer fires at once, and a lease that long never ends.
    expect(check(PositiveDuration, "596h")).toBeUndefined()
    for (const s of ["0", "0s", "three", "", "596h1ms", "9999999999999h"])
      expect(check(PositiveDuration, s), s).toBe(
        "give a duration longer than 0s and at most 596h, as in 3s (250ms, 2m, 1h30m)",
      )
    expect(durationMs("2m")).toBe(120_000)
    expect(durationMs("soon")).toBe(0)
  })

  it("passes: a whole number from 1, up to six digits", () => {
    for (const s of ["1", "3", "999999"]) expect(check(PassesSetting, s), s).toBeUndefined()
    for (const s of ["0", "03", "1000000", "3x", "x3", "-1", "", "2.5"])
      expect(check(PassesSetting, s), s).toBe("give a whole number of passes, at least 1, as in 3")
  })

  it("an error limit: a whole number of judgings from 1, up to six digits", () => {
    for (const s of ["1", "4", "999999"]) expect(check(ErrorLimitSetting, s), s).toBeUndefined()
    for (const s of ["0", "04", "1000000", "4x", "-1", "", "2.5"])
      expect(check(ErrorLimitSetting, s), s).toBe("give a whole number of judgings, at least 1, as in 4")
  })

  it("a bus prefix: dot-separated tokens, or nothing", () => {
    for (const s of ["", "P", "test_1.run-2", "a.b.c"]) expect(check(BusPrefixSetting, s), s).toBeUndefined()
    for (const s of ["a b", "a.", ".a", "a..b", "a.*", ">", "x>"])
      expect(check(BusPrefixSetting, s), s).toBe("letters, digits, _ and - in dot-separated tokens, or nothing")
  })

  it("a store schema: an unquoted PostgreSQL identifier of at most 63", () => {
    for (const s of ["mesh", "_x", "a".repeat(63), "T1_z"]) expect(check(StoreSchemaSetting, s), s).toBeUndefined()
    for (const s of ["", "1a", "a-b", "a".repeat(64), "a b", "é"])
      expect(check(StoreSchemaSetting, s), s).toBe(
        "a PostgreSQL schema name: a letter or _, then letters, digits or _, at most 63",
      )
  })

  it("the gate's settings as a log header writes them", () => {
    expect(gateSettingsLine({ settle: 30_000, bound: 600_000, every: 5_000, passes: 3 })).toEqual({
      settle: "30s",
      bound: "10m0s",
      every: "5s",
      passes: 3,
    })
    // The error limit, when serve was given one, so a replay pauses where serve did (issue 26).
    expect(gateSettingsLine({ settle: 30_000, bound: 600_000, every: 5_000, passes: 3, errorLimit: 9 })).toMatchObject({
      errorLimit: 9,
    })
  })
})

describe("an outage", () => {
  it("is said when it begins and when it ends, and not between", () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { maxLength: 20 }), (heard) => {
        let o = noOutage
        let down = false
        for (const failed of heard) {
          const r = failed ? outageHeard(o, "follower", "store", "ECONNREFUSED") : outageOver(o, "follower")
          const want =
            failed && !down
              ? ["[follower] ECONNREFUSED; trying again until it answers"]
              : !failed && down
                ? ["[follower] the store answers again; going on"]
                : []
          expect(r.said).toEqual(want)
          down = failed
          o = r.outage
          expect(o.down).toBe(failed ? "store" : undefined)
        }
      }),
    )
  })

  it("the store failing a worker is said in the worker's words", () => {
    expect(runPure(storeFailed("tick", 0, "timeout"), () => undefined)).toMatchObject({
      result: "come-again",
      said: ["[gate] the store cannot be read: timeout; no plan is judged until it answers"],
    })
    expect(runPure(storeFailed("reports", 4, "timeout"), () => undefined)).toMatchObject({
      result: "come-again",
      said: ["[controller] the store cannot be read: timeout; 4 reports left to come again, trying until it answers"],
    })
  })
})

const report = { node: "hq-3", digest: "sha256:ab", sequence: 7, outcome: "applied", at: "2026-12-03T08:00:00Z" }
const statement = {
  machine: "hq-3",
  at: "2026-12-03T08:00:00.250Z",
  resources: [{ resource: "postgres", module: "letta", state: "healthy" }],
}

describe("a machine's report and statement", () => {
  it("read as records, the time as epoch ms", () => {
    expect(readReport(JSON.stringify(report))).toEqual({
      ok: true,
      value: {
        node: "hq-3",
        digest: "sha256:ab",
        sequence: 7,
        outcome: "applied",
        at: Date.UTC(2026, 11, 3, 8),
        failed: [],
      },
    })
    expect(readReport(JSON.stringify({ ...report, outcome: "refused", refused: "no", failed: ["x"] }))).toEqual({
      ok: true,
      value: {
        node: "hq-3",
        digest: "sha256:ab",
        sequence: 7,
        outcome: "refused",
        at: Date.UTC(2026, 11, 3, 8),
        failed: ["x"],
        refused: "no",
      },
    })
    expect(readReport(JSON.stringify({ ...report, refused: null }))).toEqual({
      ok: true,
      value: {
        node: "hq-3",
        digest: "sha256:ab",
        sequence: 7,
        outcome: "applied",
        at: Date.UTC(2026, 11, 3, 8),
        failed: [],
      },
    })
    expect(readReport(JSON.stringify({ ...report, sequence: -1 })).ok).toBe(true)
    // What it detects (seed 002's reportUnhostable): kept when said, even empty; a report without it still reads.
    expect(readReport(JSON.stringify({ ...report, detects: ["gpu", "disk"] }))).toMatchObject({
      ok: true,
      value: { detects: ["gpu", "disk"] },
    })
    expect(readReport(JSON.stringify({ ...report, detects: [] }))).toMatchObject({ ok: true, value: { detects: [] } })
    expect(readReport(JSON.stringify(report))).not.toHaveProperty("value.detects")
    expect(readReport(JSON.stringify({ ...report, detects: [""] }))).toEqual({ ok: false, why: "detects.0: empty" })
    expect(readStatement(JSON.stringify(statement))).toEqual({
      ok: true,
      value: { machine: "hq-3", at: Date.UTC(2026, 11, 3, 8, 0, 0, 250), resources: statement.resources },
    })
  })

  it("refused with the field and the problem, or why the body is none", () => {
    expect(readReport("{")).toEqual({ ok: false, why: "the body is not JSON" })
    const big = "x".repeat(messageLimits.bodyChars + 1)
    expect(readReport(big)).toEqual({
      ok: false,
      why: `the body is ${messageLimits.bodyChars + 1} characters, over the 262144 a message may be`,
    })
    expect(readStatement(big).ok).toBe(false)
    expect(readReport(JSON.stringify({ ...report, node: "" }))).toEqual({ ok: false, why: "node: empty" })
    expect(readReport(JSON.stringify({ ...report, node: "n".repeat(129) }))).toEqual({
      ok: false,
      why: "node: longer than 128 characters",
    })
    expect(readReport(JSON.stringify({ ...report, node: "n".repeat(128) })).ok).toBe(true)
    expect(readReport(JSON.stringify({ ...report, node: "a\u0000b" }))).toEqual({
      ok: false,
      why: "node: holds a NUL or a lone surrogate, which the store cannot keep",
    })
    expect(readReport(JSON.stringify({ ...report, digest: "d".repeat(257) }))).toEqual({
      ok: false,
      why: "digest: longer than 256 characters",
    })
    expect(readReport(JSON.stringify({ ...report, sequence: -2 }))).toEqual({
      ok: false,
      why: "sequence: a whole number",
    })
    expect(readReport(JSON.stringify({ ...report, sequence: 1.5 }))).toEqual({
      ok: false,
      why: "sequence: a whole number",
    })
    expect(readReport(JSON.stringify({ ...report, sequence: 2 ** 53 }))).toEqual({
      ok: false,
      why: "sequence: a whole number",
    })
    expect(readReport(JSON.stringify({ ...report, at: "1" }))).toEqual({
      ok: false,
      why: "at: an RFC 3339 time with a year from 1970 to 9999",
    })
    expect(readReport(JSON.stringify({ ...report, refused: "r".repeat(1_001) }))).toEqual({
      ok: false,
      why: "refused: longer than 1000 characters",
    })
    expect(readReport(JSON.stringify({ ...report, failed: Array(1_001).fill("x") }))).toEqual({
      ok: false,
      why: "failed: more than 1000 entries",
    })
    expect(readReport(JSON.stringify({ ...report, failed: Array(1_000).fill("x") })).ok).toBe(true)
    expect(
      readStatement(JSON.stringify({ ...statement, resources: [{ ...statement.resources[0], state: "fine" }] })).ok,
    ).toBe(false)
    expect(
      readStatement(
        JSON.stringify({ ...statement, resources: [{ ...statement.resources[0], reason: "r".repeat(1_001) }] }),
      ),
    ).toEqual({ ok: false, why: "resources.0.reason: longer than 1000 characters" })
    expect(readStatement(JSON.stringify({ ...statement, machine: "" }))).toEqual({ ok: false, why: "machine: empty" })
  })

  it("a time is RFC 3339 only", () => {
    expect(timeOf("2026-12-03T08:00:00Z")).toBe(Date.UTC(2026, 11, 3, 8))
    expect(timeOf("2026-12-03T09:00:00.5+01:00")).toBe(Date.UTC(2026, 11, 3, 8, 0, 0, 500))
    for (const t of ["1", "2026-12-03", "2026-12-03 08:00:00Z", "2026-13-03T08:00:00Z", " 2026-12-03T08:00:00Z"])
      expect(timeOf(t), t).toBeUndefined()
  })
})

describe("the store's rows", () => {
  it("each read as the record a program asks for, absent columns left out", () => {
    const condition = {
      key: "k",
      source: "s",
      raised_ms: 1,
      scope: "machine",
      subject_id: "hq-3",
      machine: null,
      also: [],
      kind: "down",
      summary: "x",
      severity: "error",
      resolver: null,
    }
    expect(readRows("conditions", ConditionRow, [condition], conditionOfRow)).toEqual({
      ok: true,
      value: [
        {
          key: "k",
          source: "s",
          raised: 1,
          scope: "machine",
          id: "hq-3",
          also: [],
          kind: "down",
          summary: "x",
          severity: "error",
        },
      ],
    })
    expect(conditionOfRow({ ...condition, machine: "hq-3", resolver: "r" })).toMatchObject({
      machine: "hq-3",
      resolver: "r",
    })
    const noFacts = { source: null, manifest: null, artifacts: null }
    expect(readRows("builds", BuildRow, [{ build: "b", module: "m", commit: "c", ...noFacts }], buildOfRow)).toEqual({
      ok: true,
      value: [{ build: "b", module: "m", commit: "c" }],
    })
    expect(buildOfRow({ build: "b", module: "m", commit: "c", ...noFacts, source: "git" })).toEqual({
      build: "b",
      module: "m",
      commit: "c",
      source: "git",
    })
    // Artifacts are known only with the manifest that made them: one without the other is not known.
    expect(buildOfRow({ build: "b", module: "m", commit: "c", ...noFacts, manifest: "m1", artifacts: "a1" })).toEqual({
      build: "b",
      module: "m",
      commit: "c",
      manifest: "m1",
      artifacts: "a1",
    })
    expect(buildOfRow({ build: "b", module: "m", commit: "c", ...noFacts, artifacts: "a1" })).toEqual({
      build: "b",
      module: "m",
      commit: "c",
    })
    expect(buildOfRow({ build: "b", module: "m", commit: "c", ...noFacts, manifest: "m1" })).toEqual({
      build: "b",
      module: "m",
      commit: "c",
    })
    expect(statementOfRow({ machine: "hq-3", stated_ms: 9, resources: [], streaks: { a: 2 } })).toEqual({
      statement: { machine: "hq-3", at: 9, resources: [] },
      streaks: { a: 2 },
    })
    const r = {
      node: "hq-3",
      digest: "d",
      sequence: 3,
      outcome: "applied" as const,
      reported_ms: 4,
      refused: null,
      failed: [],
    }
    expect(readRows("reports", ReportRow, [r], reportOfRow)).toEqual({
      ok: true,
      value: [{ node: "hq-3", digest: "d", sequence: 3, outcome: "applied", at: 4, failed: [] }],
    })
    expect(reportOfRow({ ...r, refused: "no" })).toMatchObject({ refused: "no" })
    // the 0009 column: null is a machine that never said, and so is a row read without it
    expect(readRows("reports", ReportRow, [{ ...r, detects: ["disk"] }], reportOfRow)).toMatchObject({
      ok: true,
      value: [{ detects: ["disk"] }],
    })
    expect(readRows("reports", ReportRow, [{ ...r, detects: null }], reportOfRow)).not.toHaveProperty("value.0.detects")
    expect(readRows("reports", ReportRow, [{ ...r, detects: "disk" }], reportOfRow).ok).toBe(false)
    expect(readRows("reports", ReportRow, [], reportOfRow)).toEqual({ ok: true, value: [] })
  })
})
