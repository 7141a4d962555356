// What `mesh-controller simulate` prints of a replayed controller's day (controller/render.ts): the
// timeline, one line per word said and per act not already named by one ("rfc3339  label text",
// the label padded to 10), and what the day comes to. The said lines are the live journal's own, so
// a live run and its replay are set side by side: the release day's timeline is pinned word for
// word, each act kind's line on programs made by hand, what each said line is from the acts of its
// own program, and the counts against the acts counted here apart from the code.
import { readFileSync } from "node:fs"
import { join } from "node:path"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { Question } from "@mesh-core/core/controller/catalogue"
import type { GateRecord, PlanRecord, VerdictRecord } from "@mesh-core/core/gate/plan/records"
import type { ObservationRecord } from "@mesh-core/core/gate/judging/facts"
import {
  type ControllerTally,
  freshTally,
  type SaidKind,
  saidKinds,
  summaryJson,
  summaryLines,
  tallyProgram,
  timelineLines,
} from "@mesh-core/core/controller/render"
import {
  type ControllerDecision,
  type ControllerReplay,
  type ProgramInput,
  startControllerReplay,
} from "@mesh-core/core/controller/replay"
import { replayControllerLog } from "../support/replay-controller.ts"
import { gateSettingsOf, type GateSettingsLine } from "@mesh-core/core/controller/log"
import { recordDay } from "../../examples/controller-world.ts"
import { controllerDay } from "../support/controller-days.ts"

const releaseDay = readFileSync(join(import.meta.dirname, "../../examples/release-day.facts.jsonl"), "utf8").split("\n")
const crashLoop = readFileSync(join(import.meta.dirname, "../../examples/gate-crash-loop.facts.jsonl"), "utf8").split(
  "\n",
)

const replayed = (lines: ReadonlyArray<string>, set: GateSettingsLine = {}) => {
  const r = replayControllerLog(lines, set)
  if (!r.ok) throw new Error(`line ${r.bad.line}: ${r.bad.field}: ${r.bad.problem}`)
  return r.day
}
const timelineOf = (programs: ReadonlyArray<ReadonlyArray<ControllerDecision>>) =>
  programs.flatMap((p) => timelineLines(p))

// ---- programs made by hand ----

const t0 = Date.parse("2026-11-20T10:00:00Z")
const at0 = "2026-11-20T10:00:00Z"

const said = (line: string, input: ProgramInput = "tick", at = t0): ControllerDecision => ({
  at,
  input,
  kind: "said",
  line,
})
const act = (
  q: Question,
  answer: unknown = { ok: true },
  o: { readonly input?: ProgramInput; readonly recorded?: boolean; readonly at?: number } = {},
): ControllerDecision => ({
  at: o.at ?? t0,
  input: o.input ?? "tick",
  kind: "act",
  act: q,
  answer,
  recorded: o.recorded ?? true,
})

const verdict = (over: Partial<VerdictRecord> = {}): VerdictRecord => ({
  build: "letta-204",
  module: "letta",
  commit: "5e1f0c2a9b",
  previous: "a71c3d09e4",
  plan: "letta-letta-204",
  machines: ["hq-3"],
  verdict: "failed",
  rollback: "",
  why: "not healthy within 10m0s of its apply",
  component: "",
  judgingFrom: t0,
  ...over,
})
const gate = (over: Partial<GateRecord> = {}): GateRecord => ({
  component: "",
  machines: ["hq-3"],
  from: "a71c3d09e4",
  to: "9c4e1b7f20",
  since: t0,
  passes: 3,
  last: "",
  failing: [],
  verdict: "passed",
  why: "healthy 3 times over 2m40s",
  took: "2m40s",
  carried: [],
  rollback: "",
  ...over,
})
const plan = (over: Partial<PlanRecord> = {}): PlanRecord => ({
  id: "letta-letta-205",
  module: "letta",
  build: "letta-205",
  commit: "9c4e1b7f20",
  previous: "a71c3d09e4",
  previousBuild: "letta-203",
  machines: ["hq-3"],
  rest: ["hq-4"],
  sentAt: t0,
  state: "open",
  note: "",
  ...over,
})
const observation = (over: Partial<ObservationRecord> = {}): ObservationRecord => ({
  key: "module.letta.hq-3.unhealthy",
  scope: "module",
  id: "letta.hq-3",
  kind: "unhealthy",
  machine: "hq-3",
  also: [],
  severity: "warning",
  source: "DH",
  summary: "letta on hq-3 is stated unhealthy twice in a row: letta-app: exited with code 137",
  ...over,
})
const rollbackSet: Question = { q: "set-rollback", build: "letta-204", rollback: "rolled-back" }

// ---- the release day, word for word ----

const loop = "exited with code 137, restarting (crash loop)"
const unhealthy = `module.letta.hq-3.unhealthy — letta on hq-3 is stated unhealthy twice in a row: letta-app: ${loop}`

/** `simulate examples/release-day.facts.jsonl`'s timeline: what a live journal of that day is set beside. */
const releaseTimeline: ReadonlyArray<string> = [
  "2026-11-20T10:02:05Z  standings  identity on hq-2: letta on hq-3 failing (credentials-rejected since 2026-11-20T10:01:35Z)",
  "2026-11-20T10:03:05Z  report     hq-3 applied declaration 5dd016454c3e (sequence 2)",
  "2026-11-20T10:03:10Z  statement  hq-3: letta-app of letta starting",
  "2026-11-20T10:03:20Z  judging    [gate] letta-letta-204: letta: gate on hq-3: judging, a71c3d0 → 5e1f0c2 (0 of 3 passes; wanting: letta-app of letta on hq-3 is still starting)",
  "2026-11-20T10:04:00Z  judging    [gate] letta-letta-204: letta: gate on hq-3: judging, a71c3d0 → 5e1f0c2 (0 of 3 passes; wanting: letta-app of letta on hq-3 is still starting)",
  `2026-11-20T10:04:10Z  statement  hq-3: letta-app of letta unhealthy: ${loop}`,
  `2026-11-20T10:04:40Z  judging    [gate] letta-letta-204: letta: gate on hq-3: judging, a71c3d0 → 5e1f0c2 (0 of 3 passes; wanting: letta-app of letta on hq-3 is stated unhealthy: ${loop})`,
  `2026-11-20T10:05:10Z  statement  hq-3: letta-app of letta unhealthy: ${loop}`,
  `2026-11-20T10:05:10Z  CONDITION  [controller] raised module.letta.hq-3.unhealthy: letta on hq-3 is stated unhealthy twice in a row: letta-app: ${loop}`,
  `2026-11-20T10:05:20Z  judging    [gate] letta-letta-204: letta: gate on hq-3: judging, a71c3d0 → 5e1f0c2 (0 of 3 passes; wanting: raised since it was sent: ${unhealthy})`,
  `2026-11-20T10:06:00Z  judging    [gate] letta-letta-204: letta: gate on hq-3: judging, a71c3d0 → 5e1f0c2 (0 of 3 passes; wanting: raised since it was sent: ${unhealthy})`,
  `2026-11-20T10:06:10Z  statement  hq-3: letta-app of letta unhealthy: ${loop}`,
  `2026-11-20T10:06:40Z  judging    [gate] letta-letta-204: letta: gate on hq-3: judging, a71c3d0 → 5e1f0c2 (0 of 3 passes; wanting: raised since it was sent: ${unhealthy})`,
  `2026-11-20T10:07:10Z  statement  hq-3: letta-app of letta unhealthy: ${loop}`,
  `2026-11-20T10:07:20Z  judging    [gate] letta-letta-204: letta: gate on hq-3: judging, a71c3d0 → 5e1f0c2 (0 of 3 passes; wanting: raised since it was sent: ${unhealthy})`,
  "2026-11-20T10:08:00Z  started    serve started again on this recording, its memory empty; the gate: settle 2m0s, bound 10m0s, 3 passes 40s apart",
  `2026-11-20T10:08:00Z  judging    [gate] letta-letta-204: letta: gate on hq-3: judging, a71c3d0 → 5e1f0c2 (0 of 3 passes; wanting: raised since it was sent: ${unhealthy})`,
  `2026-11-20T10:08:10Z  statement  hq-3: letta-app of letta unhealthy: ${loop}`,
  `2026-11-20T10:08:40Z  judging    [gate] letta-letta-204: letta: gate on hq-3: judging, a71c3d0 → 5e1f0c2 (0 of 3 passes; wanting: raised since it was sent: ${unhealthy})`,
  `2026-11-20T10:09:10Z  statement  hq-3: letta-app of letta unhealthy: ${loop}`,
  "2026-11-20T10:09:20Z  said       [controller] the store cannot be read: connect ECONNREFUSED 127.0.0.1:5432; 1 statement left to come again, trying until it answers",
  `2026-11-20T10:10:00Z  judging    [gate] letta-letta-204: letta: gate on hq-3: judging, a71c3d0 → 5e1f0c2 (0 of 3 passes; wanting: raised since it was sent: ${unhealthy})`,
  "2026-11-20T10:10:05Z  standings  identity on hq-2: letta on hq-3 recovered (credentials-accepted)",
  `2026-11-20T10:10:10Z  statement  hq-3: letta-app of letta unhealthy: ${loop}`,
  `2026-11-20T10:10:40Z  judging    [gate] letta-letta-204: letta: gate on hq-3: judging, a71c3d0 → 5e1f0c2 (0 of 3 passes; wanting: raised since it was sent: ${unhealthy})`,
  `2026-11-20T10:11:10Z  statement  hq-3: letta-app of letta unhealthy: ${loop}`,
  `2026-11-20T10:11:20Z  judging    [gate] letta-letta-204: letta: gate on hq-3: judging, a71c3d0 → 5e1f0c2 (0 of 3 passes; wanting: raised since it was sent: ${unhealthy})`,
  `2026-11-20T10:12:00Z  judging    [gate] letta-letta-204: letta: gate on hq-3: judging, a71c3d0 → 5e1f0c2 (0 of 3 passes; wanting: raised since it was sent: ${unhealthy})`,
  `2026-11-20T10:12:10Z  statement  hq-3: letta-app of letta unhealthy: ${loop}`,
  `2026-11-20T10:12:40Z  judging    [gate] letta-letta-204: letta: gate on hq-3: judging, a71c3d0 → 5e1f0c2 (0 of 3 passes; wanting: raised since it was sent: ${unhealthy})`,
  `2026-11-20T10:13:10Z  statement  hq-3: letta-app of letta unhealthy: ${loop}`,
  `2026-11-20T10:13:20Z  VERDICT    [gate] letta-letta-204: letta: gate on hq-3: FAILED, a71c3d0 → 5e1f0c2, after 10m20s: not healthy within 10m0s of its apply: raised since it was sent: ${unhealthy}`,
  "2026-11-20T10:13:20Z  verdict    letta-204 failed kept",
  `2026-11-20T10:13:20Z  event      verdict {"event":"verdict","at":"2026-11-20T10:13:20.000Z","plan":"letta-letta-204","module":"letta","build":"letta-204","commit":"5e1f0c2a9b","previous":"a71c3d09e4","verdict":"failed","decided":"gate","machines":["hq-3"],"why":"not healthy within 10m0s of its apply: raised since it was sent: ${unhealthy}","took":"10m20s","show":"mesh-controller plans show letta-letta-204"}`,
  "2026-11-20T10:13:20Z  plan       letta-letta-204 kept rolling-back",
  "2026-11-20T10:13:20Z  CONDITION  raised build.letta.hq-3.rolled-back (warning)",
  `2026-11-20T10:13:20Z  said       [gate] letta-letta-204: letta failed its gate on hq-3: not healthy within 10m0s of its apply: raised since it was sent: ${unhealthy}; putting back a71c3d0 (letta-203) on hq-3`,
  "2026-11-20T10:13:20Z  build      letta's registered build set to letta-203 (a71c3d0)",
  "2026-11-20T10:13:20Z  SEND       the rollback of letta to hq-3",
  "2026-11-20T10:13:20Z  rollback   letta-204 marked rolled-back",
  "2026-11-20T10:13:20Z  CONDITION  raised build.letta.hq-3.rolled-back (warning)",
  `2026-11-20T10:13:20Z  ROLLBACK   [gate] letta's build 5e1f0c2 failed its gate on hq-3 and was put back to a71c3d0: not healthy within 10m0s of its apply: raised since it was sent: ${unhealthy}`,
  `2026-11-20T10:13:20Z  event      rolled-back {"event":"rolled-back","at":"2026-11-20T10:13:20.000Z","module":"letta","machines":["hq-3"],"from":"5e1f0c2a9b","to":"a71c3d09e4","why":"not healthy within 10m0s of its apply: raised since it was sent: ${unhealthy}","rollback":"rolled-back","show":"mesh-controller conditions build.letta.hq-3.rolled-back"}`,
  `2026-11-20T10:13:20Z  said       [gate] letta-letta-204: letta failed its gate on hq-3: not healthy within 10m0s of its apply: raised since it was sent: ${unhealthy}; put back to a71c3d0 (letta-203) on hq-3, in one send per machine`,
  "2026-11-20T10:13:20Z  plan       letta-letta-204 kept failed",
  "2026-11-20T10:13:25Z  report     hq-3 applied declaration d706953f121b (sequence 3)",
  "2026-11-20T10:14:10Z  condition  [controller] cleared module.letta.hq-3.unhealthy",
  "2026-11-20T10:16:00Z  judging    [gate] letta-letta-205: letta: gate on hq-3: judging, a71c3d0 → 9c4e1b7 (0 of 3 passes; wanting: hq-3 has not reported on what it was sent)",
  "2026-11-20T10:16:05Z  report     hq-3 applied declaration 5346ae48f133 (sequence 4)",
  "2026-11-20T10:16:10Z  statement  hq-3: letta-app of letta starting",
  "2026-11-20T10:16:40Z  judging    [gate] letta-letta-205: letta: gate on hq-3: judging, a71c3d0 → 9c4e1b7 (0 of 3 passes; wanting: letta-app of letta on hq-3 is still starting)",
  "2026-11-20T10:17:20Z  judging    [gate] letta-letta-205: letta: gate on hq-3: judging, a71c3d0 → 9c4e1b7 (1 of 3 passes)",
  "2026-11-20T10:18:00Z  judging    [gate] letta-letta-205: letta: gate on hq-3: judging, a71c3d0 → 9c4e1b7 (2 of 3 passes)",
  "2026-11-20T10:18:40Z  VERDICT    [gate] letta-letta-205: letta: gate on hq-3: passed, a71c3d0 → 9c4e1b7, after 2m40s: healthy 3 times over 2m40s",
  "2026-11-20T10:18:40Z  verdict    letta-205 passed kept",
  `2026-11-20T10:18:40Z  event      verdict {"event":"verdict","at":"2026-11-20T10:18:40.000Z","plan":"letta-letta-205","module":"letta","build":"letta-205","commit":"9c4e1b7f20","previous":"a71c3d09e4","verdict":"passed","decided":"gate","machines":["hq-3"],"why":"healthy 3 times over 2m40s","took":"2m40s","show":"mesh-controller plans show letta-letta-205"}`,
  "2026-11-20T10:18:40Z  condition  cleared build.letta.hq-3.rolled-back",
  "2026-11-20T10:18:40Z  condition  cleared build.letta.hq-3.rollback-failed",
  "2026-11-20T10:18:40Z  plan       letta-letta-205 kept sending",
  "2026-11-20T10:18:40Z  SEND       the rest of letta to hq-4",
  "2026-11-20T10:18:40Z  said       [gate] letta-letta-205: letta letta-205 passed its gate and every machine of the plan has it (hq-3, hq-4)",
  "2026-11-20T10:18:40Z  plan       letta-letta-205 kept passed",
  "2026-11-20T10:18:45Z  report     hq-4 applied declaration c344d9c38015 (sequence 2)",
]

describe("the release day's timeline", () => {
  it("is, as recorded, every word said as it was said and labelled by what it is, and every act beside them, line for line", () => {
    const day = replayed(releaseDay)
    expect(timelineOf(day.programs)).toEqual(releaseTimeline)
  })

  it("under passes=5: letta-205 judged twice more, then its verdict, clears, sends and saves marked inferred, and the plan saved open not printed", () => {
    const day = replayed(releaseDay, { passes: 5 })
    const from1840 = timelineOf(day.programs).filter((l) => l >= "2026-11-20T10:18:40Z")
    expect(from1840).toEqual([
      "2026-11-20T10:18:40Z  judging    [gate] letta-letta-205: letta: gate on hq-3: judging, a71c3d0 → 9c4e1b7 (3 of 5 passes)",
      "2026-11-20T10:18:45Z  report     hq-4 applied declaration c344d9c38015 (sequence 2)",
      "2026-11-20T10:19:20Z  judging    [gate] letta-letta-205: letta: gate on hq-3: judging, a71c3d0 → 9c4e1b7 (4 of 5 passes)",
      "2026-11-20T10:20:00Z  VERDICT    [gate] letta-letta-205: letta: gate on hq-3: passed, a71c3d0 → 9c4e1b7, after 4m0s: healthy 5 times over 4m0s",
      "2026-11-20T10:20:00Z  verdict    letta-205 passed kept (inferred)",
      `2026-11-20T10:20:00Z  event      verdict {"event":"verdict","at":"2026-11-20T10:20:00.000Z","plan":"letta-letta-205","module":"letta","build":"letta-205","commit":"9c4e1b7f20","previous":"a71c3d09e4","verdict":"passed","decided":"gate","machines":["hq-3"],"why":"healthy 5 times over 4m0s","took":"4m0s","show":"mesh-controller plans show letta-letta-205"} (inferred)`,
      "2026-11-20T10:20:00Z  condition  cleared build.letta.hq-3.rolled-back (inferred)",
      "2026-11-20T10:20:00Z  condition  cleared build.letta.hq-3.rollback-failed (inferred)",
      "2026-11-20T10:20:00Z  plan       letta-letta-205 kept sending (inferred)",
      "2026-11-20T10:20:00Z  SEND       the rest of letta to hq-4 (inferred)",
      "2026-11-20T10:20:00Z  said       [gate] letta-letta-205: letta letta-205 passed its gate and every machine of the plan has it (hq-3, hq-4)",
      "2026-11-20T10:20:00Z  plan       letta-letta-205 kept passed (inferred)",
    ])
    // The plan saved open at 10:19:20 (inferred, answered as done) is worth no line.
    expect(
      day.decisions.some(
        (d) => d.kind === "act" && d.act.q === "save-plan" && d.act.plan.state === "open" && !d.recorded,
      ),
    ).toBe(true)
  })

  it("the crash loop alone: the condition said once by the follower, the gate's rollback sent once, its event with its body", () => {
    const lines = timelineOf(replayed(crashLoop).programs)
    expect(lines.filter((l) => /^\S+ {2}(CONDITION|SEND|rollback|build) /.test(l))).toEqual([
      `2026-11-20T10:01:10Z  CONDITION  [controller] raised module.letta.hq-3.unhealthy: letta on hq-3 is stated unhealthy twice in a row: letta-app: ${loop}`,
      "2026-11-20T10:10:40Z  CONDITION  raised build.letta.hq-3.rolled-back (warning)",
      "2026-11-20T10:10:40Z  build      letta's registered build set to letta-203 (a71c3d0)",
      "2026-11-20T10:10:40Z  SEND       the rollback of letta to hq-3",
      "2026-11-20T10:10:40Z  rollback   letta-204 marked rolled-back",
      "2026-11-20T10:10:40Z  CONDITION  raised build.letta.hq-3.rolled-back (warning)",
    ])
  })
})

describe("each act's line", () => {
  it("a line is the act's time to the second in RFC 3339, its label padded to 10, then its text", () => {
    expect(timelineLines([act(rollbackSet, { ok: true }, { at: t0 + 65_999 })])).toEqual([
      "2026-11-20T10:01:05Z  rollback   letta-204 marked rolled-back",
    ])
    expect(timelineLines([])).toEqual([])
  })

  it("standings: one line per write, with the consumer's machine, its class and since, and why, each only when there is one", () => {
    const q: Question = {
      q: "write-standings",
      writes: [
        {
          provider: "identity",
          providerNode: "hq-2",
          consumer: "letta",
          consumerNode: "hq-3",
          state: "failing",
          at: t0,
          class: "credentials-rejected",
          since: "2026-11-20T09:58:00Z",
          attempts: 7,
          error: "password authentication failed",
        },
        { provider: "identity", providerNode: "hq-2", consumer: "grafana", state: "failing", at: t0, class: "timeout" },
        {
          provider: "identity",
          providerNode: "hq-2",
          consumer: "letta",
          consumerNode: "hq-3",
          state: "recovered",
          at: t0,
          why: "credentials-accepted",
        },
        { provider: "vault", providerNode: "hq-1", consumer: "grafana", state: "forgotten", at: t0, by: "ana" },
        {
          provider: "vault",
          providerNode: "hq-1",
          consumer: "grafana",
          state: "failing",
          at: t0,
          class: "timeout",
          since: "2026-11-20T09:00:00Z",
          why: "said again",
        },
      ],
    }
    expect(timelineLines([act(q, { ok: true }, { input: "words" })])).toEqual([
      `${at0}  standings  identity on hq-2: letta on hq-3 failing (credentials-rejected since 2026-11-20T09:58:00Z)`,
      `${at0}  standings  identity on hq-2: grafana failing (timeout)`,
      `${at0}  standings  identity on hq-2: letta on hq-3 recovered (credentials-accepted)`,
      `${at0}  standings  vault on hq-1: grafana forgotten`,
      `${at0}  standings  vault on hq-1: grafana failing (timeout since 2026-11-20T09:00:00Z) (said again)`,
    ])
    // Not done, or inferred: every write's line says so.
    expect(
      timelineLines([act(q, { ok: false, why: "the store is down" }, { input: "words", recorded: false })]).map((l) =>
        l.slice(l.indexOf(" — ")),
      ),
    ).toEqual(Array(5).fill(" — not done: the store is down (inferred)"))
  })

  it("a report: its machine, outcome, the first 12 of its digest and its sequence", () => {
    expect(
      timelineLines([
        act(
          {
            q: "write-report",
            report: {
              node: "hq-3",
              digest: "5dd016454c3e9f0a1b2c",
              sequence: 2,
              outcome: "applied",
              at: t0,
              failed: [],
            },
          },
          { ok: true },
          { input: "report" },
        ),
        act(
          {
            q: "write-report",
            report: {
              node: "hq-4",
              digest: "d706953f121b77",
              sequence: 9,
              outcome: "refused",
              refused: "replayed",
              at: t0,
              failed: [],
            },
          },
          { ok: true },
          { input: "report" },
        ),
      ]),
    ).toEqual([
      `${at0}  report     hq-3 applied declaration 5dd016454c3e (sequence 2)`,
      `${at0}  report     hq-4 refused declaration d706953f121b (sequence 9)`,
    ])
  })

  it("a statement: a line per resource not healthy, with its reason when it has one; a healthy statement none", () => {
    const statement = (resources: Extract<Question, { q: "write-statement" }>["statement"]["resources"]): Question => ({
      q: "write-statement",
      statement: { machine: "hq-3", at: t0, resources },
      streaks: {},
    })
    expect(
      timelineLines([
        act(
          statement([
            { resource: "letta-app", module: "letta", state: "healthy" },
            { resource: "letta-db", module: "letta", state: "starting" },
            { resource: "letta-web", module: "letta", state: "unhealthy", reason: "exited with code 137" },
            { resource: "grafana-app", module: "grafana", state: "unhealthy" },
          ]),
          { ok: true },
          { input: "statement" },
        ),
        act(
          statement([{ resource: "letta-app", module: "letta", state: "healthy", reason: "fine" }]),
          { ok: true },
          { input: "statement" },
        ),
        act(
          statement([{ resource: "letta-app", module: "letta", state: "starting" }]),
          { ok: false, why: "store down" },
          { input: "statement", recorded: false },
        ),
      ]),
    ).toEqual([
      `${at0}  statement  hq-3: letta-db of letta starting`,
      `${at0}  statement  hq-3: letta-web of letta unhealthy: exited with code 137`,
      `${at0}  statement  hq-3: grafana-app of grafana unhealthy`,
      `${at0}  statement  hq-3: letta-app of letta starting — not done: store down (inferred)`,
    ])
  })

  it("conditions: raised with its key and severity, and its summary unless a said line of the program already has it; cleared with its key", () => {
    const probe = observation({
      key: "build.letta.hq-3.rolled-back",
      source: "DG",
      summary: "letta's build 5e1f0c2 failed its gate on hq-3",
      kind: "rolled-back",
    })
    expect(
      timelineLines([
        act({ q: "raise-condition", observation: probe, at: t0 }),
        act({
          q: "raise-condition",
          observation: observation({ key: "module.letta.hq-4.unhealthy", severity: "urgent" }),
          at: t0,
        }),
        act({ q: "clear-condition", key: "build.letta.hq-3.rollback-failed", by: "DG" }),
      ]),
    ).toEqual([
      `${at0}  CONDITION  raised build.letta.hq-3.rolled-back (warning): letta's build 5e1f0c2 failed its gate on hq-3`,
      `${at0}  CONDITION  raised module.letta.hq-4.unhealthy (urgent): letta on hq-3 is stated unhealthy twice in a row: letta-app: exited with code 137`,
      `${at0}  condition  cleared build.letta.hq-3.rollback-failed`,
    ])
    expect(
      timelineLines([
        act({ q: "raise-condition", observation: probe, at: t0 }),
        said("[gate] letta's build 5e1f0c2 failed its gate on hq-3"),
      ]),
    ).toEqual([
      `${at0}  CONDITION  raised build.letta.hq-3.rolled-back (warning)`,
      `${at0}  ROLLBACK   [gate] letta's build 5e1f0c2 failed its gate on hq-3`,
    ])
  })

  it("a verdict kept: its build and verdict, and when another controller kept it first, that it acts on it", () => {
    const v = act({ q: "record-verdict", verdict: verdict() }, { ok: true, mine: true })
    expect(timelineLines([v])).toEqual([`${at0}  verdict    letta-204 failed kept`])
    expect(
      timelineLines([
        act(
          { q: "record-verdict", verdict: verdict({ build: "letta-205", verdict: "passed" }) },
          { ok: true, mine: false },
        ),
      ]),
    ).toEqual([`${at0}  verdict    letta-205 passed kept already, by another controller: it acts on it`])
    // An answer that says nothing of whose it is names no other controller.
    for (const answer of [{ ok: true }, null, undefined, "kept", 1, true, { ok: true, mine: "no" }]) {
      expect(timelineLines([act({ q: "record-verdict", verdict: verdict() }, answer)]), JSON.stringify(answer)).toEqual(
        [`${at0}  verdict    letta-204 failed kept`],
      )
    }
    expect(
      timelineLines([act({ q: "record-verdict", verdict: verdict() }, { ok: false, why: "the store is down" })]),
    ).toEqual([`${at0}  verdict    letta-204 failed kept — not done: the store is down`])
  })

  it("a build set: the module, the build and its commit's first 7", () => {
    expect(timelineLines([act({ q: "set-build", module: "letta", build: "letta-203", commit: "a71c3d09e4" })])).toEqual(
      [`${at0}  build      letta's registered build set to letta-203 (a71c3d0)`],
    )
  })

  it("a plan's send: a tier, the rest, the rollback or the user list, a dry run's naming its build; not reached said so", () => {
    const sendPlan = (
      why: "tier" | "rest" | "rollback" | "user-list",
      machines: ReadonlyArray<string>,
      build?: string,
    ): Question => ({
      q: "send-plan",
      plan: "letta-letta-205",
      module: "letta",
      why,
      machines,
      ...(build === undefined ? {} : { build }),
    })
    expect(
      timelineLines([
        act(sendPlan("rest", ["hq-4", "hq-5"]), { told: ["hq-4", "hq-5"] }),
        act(sendPlan("rollback", ["hq-3"]), { told: ["hq-3"] }),
        act(sendPlan("rest", ["hq-4"]), { told: [], error: "nats: timeout" }),
        act(sendPlan("tier", ["hq-3"]), { told: ["hq-3"] }),
        act(sendPlan("rest", ["hq-4"]), { told: ["hq-4"] }),
        act(sendPlan("rollback", ["hq-3", "hq-4"]), { told: ["hq-3"] }),
        act(sendPlan("user-list", ["hq-1"]), { told: ["hq-1"] }),
        act(sendPlan("tier", ["hq-3"], "letta-206"), { told: ["hq-3"] }, { recorded: false }),
      ]),
    ).toEqual([
      `${at0}  SEND       the rest of letta to hq-4, hq-5`,
      `${at0}  SEND       the rollback of letta to hq-3`,
      `${at0}  SEND       the rest of letta to hq-4 — not done: nats: timeout`,
      `${at0}  SEND       a tier of letta to hq-3`,
      `${at0}  SEND       the rest of letta to hq-4`,
      `${at0}  SEND       the rollback of letta to hq-3, hq-4`,
      `${at0}  SEND       the user list of letta to hq-1`,
      `${at0}  SEND       a tier of letta to hq-3 (a dry run's letta-206) (inferred)`,
    ])
  })

  it("a rollback marked, an event said with its body as JSON", () => {
    expect(
      timelineLines([
        act(rollbackSet),
        act({ q: "publish", event: "rolled-back", body: { module: "letta", machines: ["hq-3"], from: "5e1f0c2a9b" } }),
      ]),
    ).toEqual([
      `${at0}  rollback   letta-204 marked rolled-back`,
      `${at0}  event      rolled-back {"module":"letta","machines":["hq-3"],"from":"5e1f0c2a9b"}`,
    ])
  })

  it("a plan saved: its state, except an open plan saved as asked, which is worth no line", () => {
    expect(
      timelineLines([
        act({ q: "save-plan", plan: plan() }),
        act({ q: "save-plan", plan: plan() }, { ok: true }, { recorded: false }),
        act({ q: "save-plan", plan: plan({ state: "sending" }) }),
        act({ q: "save-plan", plan: plan({ id: "letta-letta-204", state: "failed" }) }),
        act({ q: "save-plan", plan: plan({ state: "rolling-back" }) }),
        act({ q: "save-plan", plan: plan() }, { ok: false, why: "another controller saved it since" }),
      ]),
    ).toEqual([
      `${at0}  plan       letta-letta-205 kept sending`,
      `${at0}  plan       letta-letta-204 kept failed`,
      `${at0}  plan       letta-letta-205 kept rolling-back`,
      `${at0}  plan       letta-letta-205 kept open — not done: another controller saved it since`,
    ])
  })

  it("the acts the timeline has no line for: a build recorded, a plan opened again", () => {
    expect(
      timelineLines([
        act({ q: "record-build", build: { build: "letta-206", module: "letta", commit: "0badc0ffee" } }),
        act({ q: "reopen-plan", plan: plan({ state: "open" }) }, { ok: false, why: "not failed" }),
      ]),
    ).toEqual([])
  })

  it("serve started again: the settings it runs under from there", () => {
    const settings = gateSettingsOf({ settle: "30s", bound: "5m", every: "10s", passes: 1 })
    expect(timelineLines([{ at: t0, kind: "started", settings }])).toEqual([
      `${at0}  started    serve started again on this recording, its memory empty; the gate: settle 30s, bound 5m0s, 1 passes 10s apart`,
    ])
  })
})

describe("whether an act was done, from its answer", () => {
  const tailOf = (answer: unknown, recorded = true): string => {
    const [l] = timelineLines([act(rollbackSet, answer, { recorded })])
    return l!.slice(`${at0}  rollback   letta-204 marked rolled-back`.length)
  }

  it("not done: an answer of ok false with why, or with an error text; the why first", () => {
    expect(tailOf({ ok: false, why: "the store is down" })).toBe(" — not done: the store is down")
    expect(tailOf({ ok: false, why: 42 })).toBe(" — not done: 42")
    expect(tailOf({ ok: false, why: "a", error: "b" })).toBe(" — not done: a")
    expect(tailOf({ ok: false, error: "b" })).toBe(" — not done: b")
    expect(tailOf({ told: ["hq-3"], error: "nats: timeout" })).toBe(" — not done: nats: timeout")
    expect(tailOf({ error: "" })).toBe(" — not done: ")
  })

  it("done: any other answer, an object or not", () => {
    for (const answer of [
      { ok: true },
      { ok: true, why: "x" },
      { why: "x" },
      { ok: false },
      { ok: "false", why: "x" },
      { error: 7 },
      { told: [] },
      null,
      undefined,
      "refused",
      0,
      false,
    ]) {
      expect(tailOf(answer), JSON.stringify(answer)).toBe("")
    }
  })

  it("an answer inferred is marked so, after whether it was done", () => {
    expect(tailOf({ ok: true }, false)).toBe(" (inferred)")
    expect(tailOf({ ok: false, why: "x" }, false)).toBe(" — not done: x (inferred)")
  })
})

describe("an act beside the line said of it", () => {
  const key = "module.letta.hq-3.unhealthy"
  const summary = "letta on hq-3 is stated unhealthy twice in a row: letta-app: exited with code 137"
  const raise = (o: Partial<ObservationRecord> = {}) =>
    ({ q: "raise-condition", observation: observation(o), at: t0 }) as const

  it("a follower's raise named by its own said line is that line alone, labelled CONDITION", () => {
    expect(
      timelineLines([
        act(raise(), { ok: true }, { input: "statement" }),
        said(`[controller] raised ${key}: ${summary}`, "statement"),
      ]),
    ).toEqual([`${at0}  CONDITION  [controller] raised ${key}: ${summary}`])
  })

  it("a follower's raise no said line names is printed with its summary, and the line said beside it is only said", () => {
    expect(
      timelineLines([
        act(raise(), { ok: true }, { input: "statement" }),
        said("[controller] the store cannot be read: connect ECONNREFUSED 127.0.0.1:5432", "statement"),
      ]),
    ).toEqual([
      `${at0}  CONDITION  raised ${key} (warning): ${summary}`,
      `${at0}  said       [controller] the store cannot be read: connect ECONNREFUSED 127.0.0.1:5432`,
    ])
  })

  it("the gate's raise is printed even when a line names its key; its summary left out when said", () => {
    const probe = raise({
      key: "build.letta.hq-3.rolled-back",
      source: "DG",
      summary: "letta's build 5e1f0c2 failed its gate on hq-3",
      kind: "rolled-back",
    })
    expect(
      timelineLines([act(probe), said("[gate] build.letta.hq-3.rolled-back stays raised until letta passes on hq-3")]),
    ).toEqual([
      `${at0}  CONDITION  raised build.letta.hq-3.rolled-back (warning): letta's build 5e1f0c2 failed its gate on hq-3`,
      `${at0}  said       [gate] build.letta.hq-3.rolled-back stays raised until letta passes on hq-3`,
    ])
  })

  it("a follower's clear named by its said line is that line alone; the gate's clear is printed beside it; one not named is printed", () => {
    const clear: Question = { q: "clear-condition", key, by: "DH" }
    expect(
      timelineLines([
        act(clear, { ok: true }, { input: "statement" }),
        said(`[controller] cleared ${key}`, "statement"),
      ]),
    ).toEqual([`${at0}  condition  [controller] cleared ${key}`])
    expect(
      timelineLines([act(clear, { ok: true }, { input: "words" }), said(`[controller] cleared ${key}`, "words")]),
    ).toEqual([`${at0}  condition  [controller] cleared ${key}`])
    expect(timelineLines([act(clear), said(`[gate] cleared ${key}`)])).toEqual([
      `${at0}  condition  cleared ${key}`,
      `${at0}  condition  [gate] cleared ${key}`,
    ])
    expect(
      timelineLines([
        act(clear, { ok: true }, { input: "statement" }),
        said("[controller] cleared module.letta.hq-4.unhealthy", "statement"),
      ]),
    ).toEqual([
      `${at0}  condition  cleared ${key}`,
      `${at0}  said       [controller] cleared module.letta.hq-4.unhealthy`,
    ])
  })

  it("only the program's own said lines name an act: not those of another program", () => {
    const first = [act(raise(), { ok: true }, { input: "statement" })]
    const second = [said(`[controller] raised ${key}: ${summary}`, "statement")]
    expect([...timelineLines(first), ...timelineLines(second)]).toEqual([
      `${at0}  CONDITION  raised ${key} (warning): ${summary}`,
      `${at0}  said       [controller] raised ${key}: ${summary}`,
    ])
  })

  it("a key is named only within one said line, not across two", () => {
    expect(
      timelineLines([
        act(raise(), { ok: true }, { input: "statement" }),
        said("[controller] raised module.letta", "statement"),
        said(".hq-3.unhealthy: twice", "statement"),
      ]),
    ).toEqual([
      `${at0}  CONDITION  raised ${key} (warning): ${summary}`,
      `${at0}  said       [controller] raised module.letta`,
      `${at0}  said       .hq-3.unhealthy: twice`,
    ])
  })

  it("other acts are printed whatever is said", () => {
    expect(
      timelineLines([
        said("[controller] 1 statement left to come again"),
        act(rollbackSet, { ok: true }, { input: "statement" }),
        said("[controller] letta-204 marked rolled-back"),
      ]),
    ).toEqual([
      `${at0}  said       [controller] 1 statement left to come again`,
      `${at0}  rollback   letta-204 marked rolled-back`,
      `${at0}  said       [controller] letta-204 marked rolled-back`,
    ])
  })
})

describe("what a said line is, from its program's acts", () => {
  const judged = "[gate] letta-letta-205: letta: gate on hq-3: judging, a71c3d0 → 9c4e1b7 (1 of 3 passes)"
  const failedLine =
    "[gate] letta-letta-204: letta: gate on hq-3: FAILED, a71c3d0 → 5e1f0c2, after 10m20s: not healthy within 10m0s of its apply"

  it("a plan's gate line: judging while the plan it saved has no verdict, a verdict when it has one or one was kept", () => {
    expect(saidKinds([act({ q: "save-plan", plan: plan() }), said(judged)])).toEqual(["judging"])
    expect(
      saidKinds([
        act({ q: "save-plan", plan: plan({ gate: gate({ verdict: "", why: "", took: "" }) }) }),
        said(judged),
      ]),
    ).toEqual(["judging"])
    expect(saidKinds([act({ q: "save-plan", plan: plan({ state: "sending", gate: gate() }) }), said(judged)])).toEqual([
      "verdict",
    ])
    expect(
      saidKinds([act({ q: "record-verdict", verdict: verdict() }, { ok: true, mine: true }), said(failedLine)]),
    ).toEqual(["verdict"])
    // The plan's id and its module both: another module's line, or no plan judged, is a word said.
    expect(
      saidKinds([
        act({ q: "record-verdict", verdict: verdict() }),
        said(failedLine.replace(": letta: ", ": grafana: ")),
      ]),
    ).toEqual(["said"])
    expect(saidKinds([act({ q: "save-plan", plan: plan() }), said(failedLine)])).toEqual(["said"])
    expect(saidKinds([said(failedLine), said(judged)])).toEqual(["said", "said"])
  })

  it("the gate's rollback: its condition's summary said by the gate", () => {
    const s = "letta's build 5e1f0c2 failed its gate on hq-3 and was put back to a71c3d0"
    const probe = act({
      q: "raise-condition",
      observation: observation({ key: "build.letta.hq-3.rolled-back", source: "DG", summary: s }),
      at: t0,
    })
    expect(
      saidKinds([
        probe,
        said(`[gate] ${s}`),
        said(`[controller] ${s}`),
        said(`[node] ${s}`),
        said(`[gate] ${s}; and more`),
        said(s),
      ]),
    ).toEqual(["rollback", "said", "said", "said", "said"])
  })

  it("a follower's raise or clear: a line naming one of the keys raised or cleared in the program", () => {
    const raise = (key: string) =>
      act({ q: "raise-condition", observation: observation({ key }), at: t0 }, { ok: true }, { input: "statement" })
    const clear = (key: string) => act({ q: "clear-condition", key, by: "DH" }, { ok: true }, { input: "statement" })
    expect(
      saidKinds([
        raise("module.letta.hq-3.unhealthy"),
        raise("module.grafana.hq-3.unhealthy"),
        clear("module.letta.hq-4.unhealthy"),
        clear("module.grafana.hq-4.unhealthy"),
        said("[controller] raised module.grafana.hq-3.unhealthy: grafana is stated unhealthy"),
        said("[controller] cleared module.grafana.hq-4.unhealthy"),
        said("[controller] 1 statement left to come again"),
        said("[controller] module.letta.hq-3.unhealthy and module.letta.hq-4.unhealthy"),
      ]),
    ).toEqual(["raised", "cleared", "said", "raised"])
    // A key only raised by the gate's probe, or no key at all, names nothing a follower did.
    expect(
      saidKinds([
        said("[controller] cleared module.letta.hq-4.unhealthy"),
        said("[controller] raised module.letta.hq-3.unhealthy"),
      ]),
    ).toEqual(["said", "said"])
    expect(
      saidKinds([
        act({ q: "raise-condition", observation: observation({ source: "DG" }), at: t0 }),
        said("[controller] raised module.letta.hq-3.unhealthy"),
      ]),
    ).toEqual(["said"])
  })

  it("a plan's line before any key it names; one per said line, none for acts or a start", () => {
    expect(
      saidKinds([
        act({ q: "record-verdict", verdict: verdict() }),
        act({ q: "raise-condition", observation: observation(), at: t0 }),
        said(`${failedLine}: raised since it was sent: module.letta.hq-3.unhealthy`),
      ]),
    ).toEqual(["verdict"])
    expect(saidKinds([act(rollbackSet), { at: t0, kind: "started", settings: gateSettingsOf({}) }])).toEqual([])
  })

  it("each kind has its label in the timeline", () => {
    const s = "letta's build 5e1f0c2 failed its gate on hq-3"
    const program: ReadonlyArray<ControllerDecision> = [
      act({ q: "save-plan", plan: plan() }),
      act({ q: "record-verdict", verdict: verdict() }),
      act({
        q: "raise-condition",
        observation: observation({ key: "build.letta.hq-3.rolled-back", source: "DG", summary: s }),
        at: t0,
      }),
      said(judged),
      said(failedLine),
      said(`[gate] ${s}`),
      said("[gate] the gate's probe could not read everything"),
    ]
    const kinds: ReadonlyArray<SaidKind> = ["judging", "verdict", "rollback", "said"]
    expect(saidKinds(program)).toEqual(kinds)
    expect(timelineLines(program).map((l) => l.slice(22, 32))).toEqual([
      "verdict   ",
      "CONDITION ",
      "judging   ",
      "VERDICT   ",
      "ROLLBACK  ",
      "said      ",
    ])
  })
})

describe("the tally, on programs made by hand", () => {
  const standing = (consumer: string) =>
    ({ provider: "identity", providerNode: "hq-2", consumer, state: "failing", at: t0 }) as const
  const statement = (state: "healthy" | "unhealthy"): Question => ({
    q: "write-statement",
    statement: { machine: "hq-3", at: t0, resources: [{ resource: "letta-app", module: "letta", state }] },
    streaks: {},
  })
  const p1 = plan({ id: "letta-letta-205" })
  const p1Sent = plan({ id: "letta-letta-205", state: "sending", gate: gate() })
  const p2 = plan({ id: "letta-letta-204", build: "letta-204", state: "failed" })
  const program: ReadonlyArray<ControllerDecision> = [
    act({ q: "save-plan", plan: p1 }),
    act(
      { q: "record-verdict", verdict: verdict({ plan: "letta-letta-205", build: "letta-205", verdict: "passed" }) },
      { ok: true, mine: true },
    ),
    act({ q: "record-verdict", verdict: verdict() }, { ok: true, mine: true }, { recorded: false }),
    act({ q: "record-verdict", verdict: verdict({ build: "letta-206" }) }, { ok: true, mine: false }),
    act(rollbackSet),
    act(rollbackSet, { ok: true }, { recorded: false }),
    act({ q: "set-rollback", build: "letta-206", rollback: "rollback-failed" }),
    act(
      { q: "send-plan", plan: "letta-letta-204", module: "letta", why: "rest", machines: ["hq-4"] },
      { told: ["hq-4"] },
    ),
    act(
      { q: "send-plan", plan: "letta-letta-204", module: "letta", why: "rollback", machines: ["hq-3"] },
      { told: ["hq-3"] },
    ),
    act(
      { q: "send-plan", plan: "letta-letta-204", module: "letta", why: "rollback", machines: ["hq-3"] },
      { told: [] },
    ),
    act(
      { q: "send-plan", plan: "letta-letta-205", module: "letta", why: "tier", machines: ["hq-3"] },
      { told: ["hq-3"] },
    ),
    act(
      { q: "send-plan", plan: "letta-letta-205", module: "letta", why: "tier", machines: ["hq-4"] },
      { told: ["hq-4"] },
    ),
    act(
      { q: "send-plan", plan: "letta-letta-205", module: "letta", why: "user-list", machines: ["hq-1"] },
      { told: ["hq-1"] },
    ),
    act(
      { q: "send-plan", plan: "letta-letta-205", module: "letta", why: "rest", machines: ["hq-5"] },
      { told: ["hq-5"] },
    ),
    act({ q: "publish", event: "rolled-back", body: {} }),
    act({ q: "publish", event: "passed", body: {} }),
    act({ q: "raise-condition", observation: observation(), at: t0 }),
    act({ q: "clear-condition", key: "a", by: "DG" }),
    act({ q: "clear-condition", key: "b", by: "DG" }),
    act({ q: "clear-condition", key: "c", by: "DG" }),
    act({ q: "write-standings", writes: [standing("letta"), standing("grafana"), standing("vault")] }),
    act({ q: "write-standings", writes: [standing("letta")] }),
    act({ q: "write-standings", writes: [] }),
    act({
      q: "write-report",
      report: { node: "hq-3", digest: "d", sequence: 1, outcome: "applied", at: t0, failed: [] },
    }),
    act({
      q: "write-report",
      report: { node: "hq-4", digest: "d", sequence: 1, outcome: "failed", at: t0, failed: ["letta"] },
    }),
    act(statement("healthy")),
    act(statement("unhealthy")),
    act(statement("healthy"), { ok: true }, { recorded: false }),
    act({ q: "save-plan", plan: p2 }),
    act({ q: "save-plan", plan: p1Sent }),
    act(
      { q: "record-build", build: { build: "letta-206", module: "letta", commit: "0badc0ffee" } },
      { ok: true },
      { recorded: false },
    ),
    said("[gate] letta-letta-205: letta: gate on hq-3: passed"),
    said("[gate] letta-letta-204: letta: gate on hq-3: FAILED"),
    said("[gate] letta-letta-206: letta: gate on hq-3: judging"),
    said("[controller] the store cannot be read"),
  ]

  it("counts each act by its kind, standings by writes, statements healthy or not, the plans as last saved, inferred acts of any kind", () => {
    const t = freshTally()
    tallyProgram(t, program)
    expect(t).toEqual({
      said: 4,
      judgings: 2,
      passed: 1,
      failed: 2,
      rollbacks: new Map([
        ["rolled-back", 2],
        ["rollback-failed", 1],
      ]),
      sends: { tier: 2, rest: 2, rollback: 2, "user-list": 1 },
      events: 2,
      raised: 1,
      cleared: 3,
      standings: 4,
      reports: 2,
      statements: 3,
      inferredActs: 4,
      plans: new Map([
        ["letta-letta-205", p1Sent],
        ["letta-letta-204", p2],
      ]),
    } satisfies ControllerTally)
  })

  it("adds program after program", () => {
    const t = freshTally()
    tallyProgram(t, program)
    tallyProgram(t, program.slice(0, 8))
    expect(t).toMatchObject({
      said: 4,
      judgings: 2,
      passed: 2,
      failed: 4,
      rollbacks: new Map([
        ["rolled-back", 4],
        ["rollback-failed", 2],
      ]),
      inferredActs: 6,
    })
    expect(t.sends).toEqual({ tier: 2, rest: 3, rollback: 2, "user-list": 1 })
    expect(t.plans.get("letta-letta-205")).toEqual(p1)
    tallyProgram(t, [])
    expect(t.said).toBe(4)
  })
})

describe("the summary: plans, and the span of the facts", () => {
  const empty = startControllerReplay(gateSettingsOf({}))
  const withPlans = (...plans: ReadonlyArray<PlanRecord>): ControllerTally => ({
    ...freshTally(),
    plans: new Map(plans.map((p) => [p.id, p])),
  })

  it("a plan not judged yet is its id, module, build and state alone; a judged one adds its gate's line under the settings at the end", () => {
    const t = withPlans(
      plan({ id: "letta-letta-206", build: "letta-206" }),
      plan({ state: "open", gate: gate({ verdict: "", why: "", took: "", passes: 1 }) }),
    )
    const r: ControllerReplay = { ...empty, settings: gateSettingsOf({ passes: 4 }) }
    expect(summaryLines(t, r).slice(4, 7)).toEqual([
      "  plans:",
      "    letta-letta-206 (letta letta-206): open",
      "    letta-letta-205 (letta letta-205): open; gate on hq-3: judging, a71c3d0 → 9c4e1b7 (1 of 4 passes)",
    ])
    expect(JSON.parse(summaryJson(t, r)).summary.plans).toEqual({
      "letta-letta-206": { state: "open", line: "letta-letta-206 (letta letta-206): open", note: "" },
      "letta-letta-205": {
        state: "open",
        line: "letta-letta-205 (letta letta-205): open; gate on hq-3: judging, a71c3d0 → 9c4e1b7 (1 of 4 passes)",
        note: "",
      },
    })
  })

  it("a span is said only when both its ends are known", () => {
    for (const span of [
      { first: t0, last: undefined },
      { first: undefined, last: t0 },
    ]) {
      const r: ControllerReplay = { ...empty, span }
      expect(summaryLines(freshTally(), r)[1], JSON.stringify(span)).toBe("summary: 0 facts, 0 programs run, no facts")
    }
    expect(summaryLines(freshTally(), { ...empty, span: { first: t0, last: t0 + 3_600_400 } })[1]).toBe(
      "summary: 0 facts, 0 programs run, 2026-11-20T10:00:00Z to 2026-11-20T11:00:00Z (1h0m0s)",
    )
  })
})

describe("the timeline of any recorded day", () => {
  it("each act has the lines its kind says, each said line is there once in order, each restart once; nothing else is printed", () => {
    fc.assert(
      fc.property(controllerDay, fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }), (script, passes) => {
        const day = replayed(recordDay(script).lines, passes === undefined ? {} : { passes })
        for (const p of day.programs) {
          const lines = timelineLines(p)
          const acts = p.flatMap((d) => (d.kind === "act" ? [d] : []))
          const of = <K extends Question["q"]>(k: K) =>
            acts.flatMap((a) => (a.act.q === k ? [{ q: a.act as Extract<Question, { q: K }>, answer: a.answer }] : []))
          const labelled = (label: string) => lines.filter((l) => l.slice(22, 32) === label.padEnd(10)).length
          expect(
            lines.every((l) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ {2}\S.{9} /.test(l)),
            lines.join("\n"),
          ).toBe(true)
          const counted = {
            SEND: of("send-plan").length,
            verdict: of("record-verdict").length,
            build: of("set-build").length,
            rollback: of("set-rollback").length,
            event: of("publish").length,
            report: of("write-report").length,
            standings: of("write-standings").reduce((n, w) => n + w.q.writes.length, 0),
            statement: of("write-statement").reduce(
              (n, s) => n + s.q.statement.resources.filter((r) => r.state !== "healthy").length,
              0,
            ),
            plan: of("save-plan").filter(
              (s) => s.q.plan.state !== "open" || (s.answer as { ok?: unknown }).ok === false,
            ).length,
            started: p.filter((d) => d.kind === "started").length,
            // A raise or a clear is one line: its own, or the follower's line that names it.
            CONDITION: of("raise-condition").length,
            condition: of("clear-condition").length,
          }
          expect(Object.fromEntries(Object.keys(counted).map((k) => [k, labelled(k)])), lines.join("\n")).toEqual(
            counted,
          )
          const saidLines = p.flatMap((d) => (d.kind === "said" ? [d.line] : []))
          expect(lines.map((l) => l.slice(33)).filter((t) => t.startsWith("["))).toEqual(saidLines)
          const rest = ["judging", "VERDICT", "ROLLBACK", "said"].reduce((n, k) => n + labelled(k), 0)
          expect(lines.length).toBe(Object.values(counted).reduce((n, c) => n + c, 0) + rest)
        }
      }),
      { numRuns: 40 },
    )
  })
})
