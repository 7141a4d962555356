// What `simulate` prints of a replayed day, pinned line by line (the timeline, the summary, their
// JSON), the `--set name=duration` rules, and the summary of a day against a model counted by hand.
import { describe, expect, it } from "vitest"
import type { Decision } from "@mesh-core/core/provisioner/replay"
import { decisionJson, summaryJson, summaryLines, timelineLine } from "@mesh-core/core/provisioner/render"
import { isSettingName, settingOverrides, settingProblem, withSettings } from "@mesh-core/core/provisioner/settings"
import { summaryGatherer } from "@mesh-core/core/provisioner/summary"
import { defaultSettings } from "@mesh-core/core/provisioner/model"

/** The summary of decisions gathered one at a time, as simulate gathers a day's. */
const summaryOf = (decisions: ReadonlyArray<Decision>) => {
  const g = summaryGatherer()
  for (const d of decisions) g.add(d)
  return g.result()
}

const provider = { resource: "postgres", receives: "/run/c.json", node: "hq-1" }
const t = (hms: string) => Date.parse(`2026-10-05T${hms}Z`)
const failingBody = {
  attempts: 61,
  class: "unreachable",
  consumer: "letta",
  error: "dial tcp: refused",
  node: "node-letta",
  provider: "postgres",
  "provider-node": "hq-1",
  since: "2026-10-05T06:00:00Z",
}
const day: ReadonlyArray<Decision> = [
  { at: t("06:00:00"), kind: "said", text: "letta: create failed, will retry: dial tcp: refused" },
  {
    at: t("06:00:00"),
    kind: "called",
    call: "create",
    as: "letta",
    outcome: "error",
    class: "unreachable",
    recorded: true,
  },
  {
    at: t("06:00:05"),
    kind: "called",
    call: "create",
    as: "letta",
    outcome: "timed-out",
    class: "unreachable",
    recorded: true,
  },
  {
    at: t("06:00:06"),
    kind: "called",
    call: "secret",
    as: "grafana",
    outcome: "unreadable",
    class: undefined,
    recorded: true,
  },
  {
    at: t("06:00:07"),
    kind: "called",
    call: "create",
    as: "grafana",
    outcome: "ok",
    class: undefined,
    recorded: false,
  },
  { at: t("06:05:00"), kind: "announced", event: "provisioner.failing", body: failingBody },
  {
    at: t("06:20:00"),
    kind: "announced",
    event: "provisioner.failing",
    body: { ...failingBody, attempts: 240, error: "later" },
  },
  {
    at: t("06:30:00"),
    kind: "announced",
    event: "provisioner.recovered",
    body: {
      attempts: 300,
      consumer: "letta",
      node: "node-letta",
      provider: "postgres",
      "provider-node": "hq-1",
      since: "2026-10-05T06:00:00Z",
    },
  },
  {
    at: t("06:31:00"),
    kind: "announced",
    event: "provisioner.recovered",
    body: { consumer: "grafana", provider: "postgres", "provider-node": "hq-1", why: "first-success" },
  },
  {
    at: t("06:40:00"),
    kind: "announced",
    event: "provisioner.failing",
    body: { ...failingBody, since: "2026-10-05T06:35:00Z", attempts: 5, error: "again" },
  },
]
const counts = { facts: 40, passes: 12, inferred: 1, unasked: 2, cut: 1, runs: 2 }

describe("the timeline", () => {
  it("one line per thing said or announced, none per call", () => {
    expect(day.map((d) => timelineLine(d, provider))).toEqual([
      "2026-10-05T06:00:00Z  said       [provisioner:postgres] letta: create failed, will retry: dial tcp: refused",
      undefined,
      undefined,
      undefined,
      undefined,
      "2026-10-05T06:05:00Z  ANNOUNCED  provisioner.failing letta on node-letta: unreachable since 2026-10-05T06:00:00Z, 61 attempts — dial tcp: refused",
      "2026-10-05T06:20:00Z  ANNOUNCED  provisioner.failing letta on node-letta: unreachable since 2026-10-05T06:00:00Z, 240 attempts — later",
      "2026-10-05T06:30:00Z  ANNOUNCED  provisioner.recovered letta on node-letta (failing since 2026-10-05T06:00:00Z, 300 attempts)",
      "2026-10-05T06:31:00Z  ANNOUNCED  provisioner.recovered grafana why=first-success",
      "2026-10-05T06:40:00Z  ANNOUNCED  provisioner.failing letta on node-letta: unreachable since 2026-10-05T06:35:00Z, 5 attempts — again",
    ])
    expect(JSON.parse(decisionJson(day[1]!))).toEqual({
      at: "2026-10-05T06:00:00.000Z",
      kind: "called",
      call: "create",
      as: "letta",
      outcome: "error",
      class: "unreachable",
      recorded: true,
    })
  })
})

describe("the summary of a day", () => {
  it("counts by hand: calls and failures per consumer, each failing run from its first announcement to its recovery", () => {
    const s = summaryOf(day)
    expect({ firstAt: s.firstAt, lastAt: s.lastAt, said: s.said, failing: s.failing, recovered: s.recovered }).toEqual({
      firstAt: t("06:00:00"),
      lastAt: t("06:40:00"),
      said: 1,
      failing: 3,
      recovered: 2,
    })
    expect(s.consumers.get("grafana")).toEqual({ calls: 2, failures: 1, runs: [] })
    expect(s.consumers.get("letta")).toEqual({
      calls: 2,
      failures: 2,
      runs: [
        {
          since: "2026-10-05T06:00:00Z",
          firstAnnouncedAt: t("06:05:00"),
          class: "unreachable",
          attempts: 300,
          lastError: "later",
          announcements: 2,
          recoveredAt: t("06:30:00"),
          why: "succeeded",
        },
        {
          since: "2026-10-05T06:35:00Z",
          firstAnnouncedAt: t("06:40:00"),
          class: "unreachable",
          attempts: 5,
          lastError: "again",
          announcements: 1,
          recoveredAt: undefined,
          why: undefined,
        },
      ],
    })
  })

  it("prints the summary a person reads, and its JSON", () => {
    const s = summaryOf(day)
    expect(summaryLines(s, counts)).toEqual([
      "",
      "summary: 40 facts in 12 passes, 2026-10-05T06:00:00Z to 2026-10-05T06:40:00Z (40m0s)",
      "  runs: 2 (the provider was restarted 1 times; memory empty from each)",
      "  cut short: 1 passes ended with the recording (a restart or the end of the log), not guessed at",
      "  announcements: 3 provisioner.failing, 2 provisioner.recovered; 1 lines said",
      "  what-if: 1 answers were not in the recording and were inferred; 2 recorded answers were to questions not asked this time",
      "  consumers: 2",
      "  grafana: 2 calls, 1 failed",
      "    never announced failing",
      "  letta: 2 calls, 2 failed",
      "    failing since 2026-10-05T06:00:00Z as unreachable, announced 2 times, 300 attempts; recovered 2026-10-05T06:30:00Z (succeeded) after 30m0s",
      "      last error: later",
      "    failing since 2026-10-05T06:35:00Z as unreachable, announced 1 times, 5 attempts; still failing at the end of the log, 5m0s in",
      "      last error: again",
    ])
    expect(summaryLines(summaryOf([]), { facts: 0, passes: 0, inferred: 0, unasked: 0, cut: 0, runs: 1 })).toEqual([
      "",
      "summary: 0 facts in 0 passes, no facts",
      "  announcements: 0 provisioner.failing, 0 provisioner.recovered; 0 lines said",
      "  consumers: 0",
    ])
    expect(summaryLines(summaryOf([]), { facts: 0, passes: 0, inferred: 1, unasked: 0, cut: 0, runs: 1 })).toContain(
      "  what-if: 1 answers were not in the recording and were inferred; 0 recorded answers were to questions not asked this time",
    )
    expect(summaryLines(summaryOf([]), { facts: 0, passes: 0, inferred: 0, unasked: 1, cut: 0, runs: 1 })).toContain(
      "  what-if: 0 answers were not in the recording and were inferred; 1 recorded answers were to questions not asked this time",
    )
    expect(JSON.parse(summaryJson(s, counts))).toEqual({
      summary: {
        ...counts,
        failing: 3,
        recovered: 2,
        consumers: {
          grafana: { calls: 2, failures: 1, runs: [] },
          letta: {
            calls: 2,
            failures: 2,
            runs: [
              {
                since: "2026-10-05T06:00:00Z",
                class: "unreachable",
                attempts: 300,
                announcements: 2,
                lastError: "later",
                recoveredAt: "2026-10-05T06:30:00.000Z",
                why: "succeeded",
              },
              {
                since: "2026-10-05T06:35:00Z",
                class: "unreachable",
                attempts: 5,
                announcements: 1,
                lastError: "again",
                recoveredAt: null,
                why: null,
              },
            ],
          },
        },
      },
    })
    expect(Object.keys(JSON.parse(summaryJson(s, counts)).summary.consumers)).toEqual(["grafana", "letta"])
  })

  it("counts by hand: a consumer whose calls all succeed has no failures; one announced but never called keeps its run", () => {
    const quiet: ReadonlyArray<Decision> = [
      {
        at: t("07:00:00"),
        kind: "called",
        call: "secret",
        as: "outline",
        outcome: "ok",
        class: undefined,
        recorded: true,
      },
      {
        at: t("07:00:01"),
        kind: "called",
        call: "holds",
        as: "outline",
        outcome: "held",
        class: undefined,
        recorded: true,
      },
      {
        at: t("07:00:02"),
        kind: "called",
        call: "holds",
        as: "outline",
        outcome: "not-held",
        class: undefined,
        recorded: true,
      },
      {
        at: t("07:00:03"),
        kind: "called",
        call: "secret",
        as: "chat",
        outcome: "unreadable",
        class: "secret-unreadable",
        recorded: true,
      },
      // A recording that begins mid-run: the announcement is the first the day hears of its consumer.
      {
        at: t("07:05:00"),
        kind: "announced",
        event: "provisioner.failing",
        body: { ...failingBody, consumer: "letta", attempts: 7 },
      },
    ]
    const run = {
      since: "2026-10-05T06:00:00Z",
      firstAnnouncedAt: t("07:05:00"),
      class: "unreachable",
      attempts: 7,
      lastError: "dial tcp: refused",
      announcements: 1,
      recoveredAt: undefined,
      why: undefined,
    }
    const byHand = new Map([
      ["outline", { calls: 3, failures: 0, runs: [] }],
      ["chat", { calls: 1, failures: 1, runs: [] }],
      ["letta", { calls: 0, failures: 0, runs: [run] }],
    ])
    const g = summaryOf(quiet)
    expect(g.consumers).toEqual(byHand)
    expect(g).toMatchObject({
      firstAt: t("07:00:00"),
      lastAt: t("07:05:00"),
      said: 0,
      failing: 1,
      recovered: 0,
    })
  })
})

describe("--set name=duration (issue 14)", () => {
  it("changes the settings named, and refuses what is not a setting or not a duration it may be", () => {
    expect(withSettings(defaultSettings, ["failingAfter=2m", "every=1s", "failingAfter=0"])).toEqual({
      settings: { ...defaultSettings, failingAfter: 0, every: 1_000 },
    })
    expect(withSettings(defaultSettings, [])).toEqual({ settings: defaultSettings })
    expect(settingOverrides(["often=2m"])).toEqual({
      problem:
        '--set often=2m: no setting "often"; the settings are every, verifyEvery, holdsTimeout, failingAfter, sayAgainEvery',
    })
    expect(settingOverrides(["=2m"])).toEqual({
      problem:
        '--set =2m: no setting ""; the settings are every, verifyEvery, holdsTimeout, failingAfter, sayAgainEvery',
    })
    expect(settingOverrides(["every"])).toEqual({
      problem: "--set every: give a duration of at most 596h, as in every=2m (5s, 90s, 1h30m, 250ms)",
    })
    expect(settingOverrides(["every=soon"])).toEqual({
      problem: "--set every=soon: give a duration of at most 596h, as in every=2m (5s, 90s, 1h30m, 250ms)",
    })
    expect(settingOverrides(["every=0"])).toEqual({ problem: "--set every=0: every must be longer than 0s" })
    expect(withSettings(defaultSettings, ["verifyEvery=1m", "holdsTimeout=0s"])).toEqual({
      problem: "--set holdsTimeout=0s: holdsTimeout must be longer than 0s",
    })
    expect([
      settingProblem("every", -1),
      settingProblem("every", Number.NaN),
      settingProblem("failingAfter", 0),
      settingProblem("every", 1),
    ]).toEqual([
      "every must be a duration of 0s or more",
      "every must be a duration of 0s or more",
      undefined,
      undefined,
    ])
    expect(["every", "sayAgainEvery", "Every", ""].map(isSettingName)).toEqual([true, true, false, false])
  })
})
