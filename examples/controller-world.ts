// A small simulated world for the controller's programs: a store (plans, builds, verdicts,
// conditions, reports, statements, standings), machines that apply what they are sent and report
// it, engines that state the health of what they run, providers that say their words, and a clock.
// `recordDay` runs the real core programs (gateTick, keepWords, keepReport, keepStatement,
// storeFailed) against it and writes every input fact and every answer as `serve --record` does
// (docs/fact-log.md, area "controller"). Pure: the same script always gives the same day, so the
// shipped examples can be checked against what this writes, and property tests can make days.
import { answerLine, type GateSettingsLine, gateSettingsOf } from "@mesh-core/core/controller/log"
import { type Heard, keepWords } from "@mesh-core/core/standings/followers"
import { keepReport } from "@mesh-core/core/delivery/reports"
import { keepStatement } from "@mesh-core/core/gate/messages/statements"
import { gateTick } from "@mesh-core/core/gate/tick/tick"
import { operatorVerb } from "@mesh-core/core/gate/operator/operator"
import { storeFailed } from "@mesh-core/core/controller/outage"
import { type Program, runPure } from "@mesh-core/core/program"
import type { ControllerQuestions, Question } from "@mesh-core/core/controller/catalogue"
import type { KeptRecord } from "@mesh-core/core/standings/questions"
import type { ReportRecord } from "@mesh-core/core/delivery/questions"
import type { BuildRecord, PlanRecord, VerbName, VerdictRecord } from "@mesh-core/core/gate/plan/records"
import type { ConditionRecord, StatementRecord } from "@mesh-core/core/gate/judging/facts"
import { actKinds, type ProgramInput } from "@mesh-core/core/controller/replay"
import { keyText } from "@mesh-core/core/standings/word"
import { inFlight } from "@mesh-core/core/gate/plan/plan"

export type HealthState = "healthy" | "starting" | "unhealthy"

/** A build and how what it runs fares, by the time since a machine applied it. */
export interface BuildScript {
  readonly build: string
  readonly commit: string
  readonly health: (sinceApply: number) => { readonly state: HealthState; readonly reason?: string }
}

export type Happening =
  /** `mesh-controller release`: the build recorded and registered, sent to the first machines, a plan opened. */
  | {
      readonly at: number
      readonly kind: "release"
      readonly build: BuildScript
      readonly first: ReadonlyArray<string>
    }
  /** A provider's word on the bus (provisioner.failing or provisioner.recovered). */
  | {
      readonly at: number
      readonly kind: "word"
      readonly event: string
      readonly body: Readonly<Record<string, unknown>>
    }
  /** `serve` stopped and started again on the same recording, under other gate settings if it names them. */
  | { readonly at: number; readonly kind: "restart"; readonly settings?: GateSettingsLine }
  /** The store refuses everything for a while: followers' transactions fail, the plans cannot be read. */
  | { readonly at: number; readonly kind: "store-down"; readonly for: number; readonly why: string }
  /** A person's verb on the plan of the day's `release`-th release (`plans pause ID`, …), by alice. */
  | { readonly at: number; readonly kind: "verb"; readonly verb: VerbName; readonly release: number }

export interface DayScript {
  /** Epoch ms the recording begins. */
  readonly start: number
  /** How long after `start` it ends. */
  readonly length: number
  readonly settings: GateSettingsLine
  readonly module: string
  readonly resource: string
  readonly machines: ReadonlyArray<string>
  /** Builds kept before the day, oldest first; the last is registered and runs everywhere. */
  readonly builds: ReadonlyArray<BuildScript>
  /** How often the gate ticks (live: the gate's `every`). */
  readonly tick: number
  /** How often each machine's engine states its health; machine i states at offset (i+1)·statementOffset. */
  readonly statementEvery: number
  readonly statementOffset: number
  /** How long a machine takes to apply what it is sent, and report it. */
  readonly applyAfter: number
  readonly happenings: ReadonlyArray<Happening>
}

/** What the live controller did in one program: the words it said and the acts it asked for. */
export interface LiveProgram {
  readonly at: number
  readonly input: ProgramInput
  readonly said: ReadonlyArray<string>
  readonly acts: ReadonlyArray<Question>
}

export interface RecordedDay {
  readonly lines: ReadonlyArray<string>
  readonly programs: ReadonlyArray<LiveProgram>
}

interface Machine {
  running: BuildScript
  appliedAt: number
  sequence: number
  sent: string
}

type Pending =
  | { readonly kind: "tick" }
  | { readonly kind: "statement"; readonly machine: string }
  | {
      readonly kind: "apply"
      readonly machine: string
      readonly build: BuildScript
      readonly digest: string
      readonly sequence: number
    }
  | {
      readonly kind: "again"
      readonly input: "report" | "statement" | "words"
      readonly messages: ReadonlyArray<Heard>
    }
  | { readonly kind: "happening"; readonly happening: Happening }

// Equal times in a fixed order: what an operator did, then what machines did, then what was heard again, then the tick.
const rank: Readonly<Record<Pending["kind"], number>> = { happening: 0, apply: 1, statement: 2, again: 3, tick: 4 }

const iso = (t: number): string => new Date(t).toISOString()

/** A declaration's digest: 16 hex digits of FNV-1a over what it names, stable from run to run. */
const digestOf = (text: string): string => {
  let h1 = 0x811c9dc5
  let h2 = 0x01000193
  for (let i = 0; i < text.length; i++) {
    h1 = Math.imul(h1 ^ text.charCodeAt(i), 0x01000193) >>> 0
    h2 = Math.imul(h2 ^ text.charCodeAt(i), 0x811c9dc5) >>> 0
  }
  return `${h1.toString(16).padStart(8, "0")}${h2.toString(16).padStart(8, "0")}`
}

export const recordDay = (day: DayScript): RecordedDay => {
  let settings = gateSettingsOf(day.settings)
  const lines: Array<string> = [
    JSON.stringify({
      format: "mesh-core.facts",
      version: 1,
      area: "controller",
      settings: { gate: day.settings },
      recorded: iso(day.start),
    }),
  ]
  const programs: Array<LiveProgram> = []

  // ---- the store ----
  const plans = new Map<string, PlanRecord>()
  const builds: Array<BuildRecord> = day.builds.map((b) => ({ build: b.build, module: day.module, commit: b.commit }))
  const registered = { build: day.builds.at(-1)!.build, commit: day.builds.at(-1)!.commit }
  const verdicts = new Map<string, { verdict: VerdictRecord; keptAt: number }>()
  const conditions = new Map<string, ConditionRecord>()
  const reports = new Map<string, ReportRecord>()
  const statements = new Map<string, { statement: StatementRecord; streaks: Record<string, number> }>()
  const standings = new Map<string, KeptRecord>()
  let storeDownUntil = Number.NEGATIVE_INFINITY

  // ---- the machines ----
  const machines = new Map<string, Machine>()
  const scripts = new Map(day.builds.map((b) => [b.build, b]))
  for (const name of day.machines) {
    const digest = digestOf(`${name}/${registered.build}/1`)
    machines.set(name, { running: day.builds.at(-1)!, appliedAt: day.start - 3_600_000, sequence: 1, sent: digest })
    reports.set(name, { node: name, digest, sequence: 1, outcome: "applied", at: day.start - 3_600_000, failed: [] })
  }
  let streamSeq = 0

  // ---- the clock ----
  const queue: Array<{ at: number; seq: number; p: Pending }> = []
  let order = 0
  const schedule = (at: number, p: Pending) => queue.push({ at, seq: order++, p })
  const end = day.start + day.length
  for (let t = day.start; t <= end; t += day.tick) schedule(t, { kind: "tick" })
  day.machines.forEach((m, i) => {
    for (let t = day.start + (i + 1) * day.statementOffset; t <= end; t += day.statementEvery)
      schedule(t, { kind: "statement", machine: m })
  })
  for (const h of day.happenings) schedule(day.start + h.at, { kind: "happening", happening: h })

  /** Sends the registered build, or (a dry run's send) the build named. */
  const send = (at: number, to: ReadonlyArray<string>, named?: string) => {
    const build = scripts.get(named ?? registered.build)!
    for (const name of to) {
      const m = machines.get(name)!
      m.sequence += 1
      m.sent = digestOf(`${name}/${build.build}/${m.sequence}`)
      schedule(at + day.applyAfter, { kind: "apply", machine: name, build, digest: m.sent, sequence: m.sequence })
    }
  }

  const openConditions = (): ReadonlyArray<ConditionRecord> =>
    [...conditions.values()].sort((a, b) => a.raised - b.raised || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))

  /** Answers one question by doing, in the world, what a live shell does in the store and on the bus. */
  const answer = (q: Question, now: number): unknown => {
    const down = now < storeDownUntil
    switch (q.q) {
      case "plans-in-flight":
        if (down) return { ok: false, why: "connect ECONNREFUSED 127.0.0.1:5432" }
        return { ok: true, value: [...plans.values()].filter((p) => inFlight(p)).sort((a, b) => a.sentAt - b.sentAt) }
      case "plan-of":
        if (down) return { ok: false, why: "connect ECONNREFUSED 127.0.0.1:5432" }
        return { ok: true, value: plans.get(q.id) ?? null }
      case "lease-holder":
        return { ok: true, value: { mine: true, holder: "ctl-a" } }
      case "reopen-plan":
        if (down) return { ok: false, why: "connect ECONNREFUSED 127.0.0.1:5432" }
        plans.set(q.plan.id, q.plan)
        return { ok: true }
      case "now":
        return now
      case "gate-facts": {
        const rs: Record<string, { at: number | null; current: boolean; outcome: string }> = {}
        for (const [node, r] of reports)
          rs[node] = { at: r.at, current: machines.get(node)?.sent === r.digest, outcome: r.outcome }
        return {
          now,
          reports: rs,
          engines: {},
          served: { ok: true, value: Object.fromEntries(day.machines.map((m) => [m, { runtime: true, tools: [] }])) },
          open: { ok: true, value: openConditions() },
          rolledBack: {},
          holder: { ok: true, value: null },
          health: { ok: true, value: Object.fromEntries([...statements].map(([m, s]) => [m, s.statement])) },
        }
      }
      // The world's module is no node-engine and serves no tools: nothing to report or ask after.
      case "engine-builds":
      case "witness-verdicts":
        return { ok: true, value: {} }
      case "manifests":
        return { ok: true, value: {} }
      case "verdict-of":
        return { ok: true, value: verdicts.get(q.build) ?? null }
      case "latest-verdicts": {
        const newest = new Map<string, { verdict: VerdictRecord; keptAt: number }>()
        for (const v of verdicts.values())
          if ((newest.get(v.verdict.module)?.keptAt ?? -Infinity) <= v.keptAt) newest.set(v.verdict.module, v)
        return { ok: true, value: [...newest.values()].map((v) => v.verdict) }
      }
      case "probe-conditions":
        return { ok: true, value: openConditions().filter((c) => c.source === q.source) }
      case "holder-list":
        return { ok: true, value: { holder: null, behind: false } }
      case "builds":
        return { ok: true, value: q.builds.flatMap((b) => builds.filter((x) => x.build === b)) }
      case "among-kept":
        return {
          ok: true,
          value: builds
            .filter((b) => b.module === q.module)
            .slice(-q.kept)
            .some((b) => b.build === q.build),
        }
      case "record-verdict": {
        const mine = !verdicts.has(q.verdict.build)
        if (mine) verdicts.set(q.verdict.build, { verdict: q.verdict, keptAt: now })
        return { ok: true, mine }
      }
      case "set-build":
        registered.build = q.build
        registered.commit = q.commit
        return { ok: true }
      case "send-plan":
        send(now, q.machines, q.build)
        return { told: q.machines }
      case "set-rollback": {
        const v = verdicts.get(q.build)
        if (v !== undefined) verdicts.set(q.build, { ...v, verdict: { ...v.verdict, rollback: q.rollback } })
        return { ok: true }
      }
      case "publish":
        return { ok: true }
      case "save-plan":
        if (down) return { ok: false, why: "connect ECONNREFUSED 127.0.0.1:5432" }
        // An ended plan is not written over (what the store's save does).
        if (!inFlight(plans.get(q.plan.id) ?? q.plan)) return { ok: true }
        plans.set(q.plan.id, q.plan)
        return { ok: true }
      case "raise-condition": {
        const o = q.observation
        const was = conditions.get(o.key)
        conditions.set(o.key, {
          key: o.key,
          source: o.source,
          raised: was?.raised ?? q.at,
          scope: o.scope,
          id: o.id,
          also: o.also,
          kind: o.kind,
          summary: o.summary,
          severity: o.severity,
          ...(o.machine === "" ? {} : { machine: o.machine }),
        })
        return { ok: true }
      }
      case "clear-condition":
        conditions.delete(q.key)
        return { ok: true }
      case "write-standings":
        for (const w of q.writes) standings.set(keyText(w), w)
        return { ok: true }
      case "kept-report":
        return reports.get(q.node) ?? null
      case "write-report":
        reports.set(q.report.node, q.report)
        return { ok: true }
      case "kept-statement":
        return statements.get(q.machine) ?? null
      case "write-statement":
        statements.set(q.statement.machine, { statement: q.statement, streaks: q.streaks })
        return { ok: true }
    }
  }

  /** Runs one program as `serve` does, and records its input and every answer after it. */
  const run = (
    at: number,
    input: Record<string, unknown> & { fact: ProgramInput },
    program: Program<ControllerQuestions, unknown>,
  ) => {
    const ran = runPure(program, (q) => answer(q, at))
    lines.push(JSON.stringify({ at: iso(at), ...input }))
    for (const e of ran.exchanges) lines.push(answerLine(iso(at), e.question, e.answer))
    programs.push({
      at,
      input: input.fact,
      said: ran.said,
      acts: ran.exchanges.map((e) => e.question).filter((q) => actKinds.has(q.q)),
    })
  }

  /** A follower's messages: kept in one transaction, or, with the store down, left to come again. */
  const follow = (at: number, input: "report" | "statement" | "words", messages: ReadonlyArray<Heard>) => {
    if (at < storeDownUntil) {
      const during = input === "words" ? "words" : messages.length === 1 ? input : `${input}s`
      const why = "connect ECONNREFUSED 127.0.0.1:5432"
      run(
        at,
        { fact: "store-failed", during, messages: messages.length, why },
        storeFailed(during, messages.length, why),
      )
      schedule(storeDownUntil + 1_000, { kind: "again", input, messages })
      return
    }
    if (input === "words") run(at, { fact: "words", messages }, keepWords(messages))
    else if (input === "report") run(at, { fact: "report", message: messages[0]! }, keepReport(messages[0]!))
    else run(at, { fact: "statement", message: messages[0]! }, keepStatement(messages[0]!))
  }

  while (queue.length > 0) {
    queue.sort((a, b) => a.at - b.at || rank[a.p.kind] - rank[b.p.kind] || a.seq - b.seq)
    const { at, p } = queue.shift()!
    if (at > end) break
    switch (p.kind) {
      case "tick":
        run(at, { fact: "tick" }, gateTick(settings))
        break
      case "statement": {
        const m = machines.get(p.machine)!
        const h = m.running.health(at - m.appliedAt)
        const body = {
          machine: p.machine,
          at: iso(at),
          resources: [
            {
              resource: day.resource,
              module: day.module,
              state: h.state,
              ...(h.reason === undefined ? {} : { reason: h.reason }),
            },
          ],
        }
        const subject = `mesh.health.${p.machine}`
        follow(at, "statement", [{ subject, event: subject, body: JSON.stringify(body), seq: ++streamSeq }])
        break
      }
      case "apply": {
        const m = machines.get(p.machine)!
        // A declaration overtaken by a newer one before it was applied is never applied.
        if (m.sent !== p.digest) break
        m.running = p.build
        m.appliedAt = at
        const subject = `mesh.report.${p.machine}`
        const body = {
          node: p.machine,
          digest: p.digest,
          sequence: p.sequence,
          outcome: "applied",
          at: iso(at),
          failed: [],
        }
        follow(at, "report", [{ subject, event: subject, body: JSON.stringify(body), seq: ++streamSeq }])
        break
      }
      case "again":
        follow(at, p.input, p.messages)
        break
      case "happening": {
        const h = p.happening
        switch (h.kind) {
          case "release": {
            const previous = { ...registered }
            builds.push({ build: h.build.build, module: day.module, commit: h.build.commit })
            scripts.set(h.build.build, h.build)
            registered.build = h.build.build
            registered.commit = h.build.commit
            const id = `${day.module}-${h.build.build}`
            plans.set(id, {
              id,
              module: day.module,
              build: h.build.build,
              commit: h.build.commit,
              previous: previous.commit,
              previousBuild: previous.build,
              machines: h.first,
              rest: day.machines.filter((m) => !h.first.includes(m)),
              sentAt: at,
              state: "open",
              note: "",
            })
            send(at, h.first)
            break
          }
          case "word": {
            const subject = h.event
            follow(at, "words", [
              { subject, event: h.event, body: JSON.stringify(h.body), saidAt: iso(at), seq: ++streamSeq },
            ])
            break
          }
          case "restart":
            lines.push(JSON.stringify({ at: iso(at), fact: "started", settings: { gate: h.settings ?? day.settings } }))
            settings = gateSettingsOf(h.settings ?? day.settings)
            break
          case "store-down":
            storeDownUntil = at + h.for
            break
          case "verb": {
            const release = day.happenings.filter((x) => x.kind === "release")[h.release]
            const plan = release === undefined ? `${day.module}-none` : `${day.module}-${release.build.build}`
            const command = { verb: h.verb, plan, by: "alice", at, why: "by the day's script" }
            run(at, { fact: "verb", command }, operatorVerb(command, settings))
            break
          }
        }
        break
      }
    }
  }
  return { lines, programs }
}

// ---- how builds fare ----

/** Starting for a while after it is applied, then healthy for good. */
export const healthyAfter = (starting: number) => (since: number) =>
  since < starting ? { state: "starting" as const } : { state: "healthy" as const }

/** Starts, is healthy for a moment, then crash-loops: unhealthy on every statement after. */
export const crashLoopAfter = (starting: number, healthyFor: number, reason: string) => (since: number) =>
  since < starting
    ? { state: "starting" as const }
    : since < starting + healthyFor
      ? { state: "healthy" as const }
      : { state: "unhealthy" as const, reason }
