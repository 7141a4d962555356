// Which metric moves for which decision (issue 10), as properties: every update names a metric of
// the catalogue with exactly its labels and an act its type allows; the figures after a list of
// observations are the counts of those observations, stated here from the observations alone; a
// program's exchanges move the metrics the rule says, and the same exchanges replayed move them the
// same way.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { gateTick } from "@mesh-core/core/gate/tick/tick"
import {
  countsOf,
  type MetricUpdate,
  metricList,
  metrics,
  metricUpdates,
  type Observed,
  observedOfExchange,
  observedOfFailure,
  parseListenAddress,
  updatesOfExchanges,
} from "@mesh-core/core/controller/metrics"
import { type Exchange, runPure } from "@mesh-core/core/program"
import type { ControllerQuestions, Question } from "@mesh-core/core/controller/catalogue"
import type { PlanRecord } from "@mesh-core/core/gate/plan/records"
import { planOf, settings, world } from "../../examples/metrics-demo.ts"
import { modelOf, totalOf, valueOf } from "../support/metrics-model.ts"

const word = fc.constantFrom("a", "b", "credentials-rejected", "unreachable", "gate", 'x y"z')
const counts = fc.dictionary(word, fc.integer({ min: 0, max: 50 }), { maxKeys: 4 })
const outcome = fc.constantFrom("kept" as const, "older-than-kept" as const, "set-aside" as const)

const observedArb: fc.Arbitrary<Observed> = fc.oneof(
  fc.record({
    kind: fc.constant("words" as const),
    outcome,
    count: fc.oneof(fc.integer({ min: -3, max: 40 }), fc.double({ noNaN: true, min: -5, max: 5 })),
  }),
  fc.record({
    kind: fc.constant("machine-message" as const),
    what: fc.constantFrom("report" as const, "statement" as const),
    outcome,
  }),
  fc.record({ kind: fc.constant("condition-raised" as const), severity: fc.constantFrom("warning", "urgent") }),
  fc.record({ kind: fc.constant("condition-cleared" as const), by: fc.constantFrom("DG", "DH") }),
  fc.record({
    kind: fc.constant("judged" as const),
    outcome: fc.constantFrom("healthy" as const, "not-yet" as const, "broken" as const, "could-not-ask" as const),
  }),
  fc.record({ kind: fc.constant("verdict" as const), verdict: fc.constantFrom("passed" as const, "failed" as const) }),
  fc.record({ kind: fc.constant("rollback" as const), outcome: fc.constantFrom("rolled-back", "not-rolled-back") }),
  fc.record({
    kind: fc.constant("send" as const),
    why: fc.constantFrom("rest" as const, "rollback" as const),
    ok: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant("published" as const),
    event: fc.constantFrom("rolled-back", "verdict", "plan-paused"),
    ok: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant("operator-act" as const),
    act: fc.constantFrom("pause" as const, "resume" as const, "promote" as const, "abort" as const, "retry" as const),
    ok: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant("store-error" as const),
    operation: fc.constantFrom("open-plans", "save-plan", "write-standings"),
  }),
  fc.record({
    kind: fc.constant("bus-error" as const),
    operation: fc.constantFrom("publish", "discovery", "next-batch"),
  }),
  fc.record({
    kind: fc.constant("loop" as const),
    loop: fc.constantFrom("gate", "standings"),
    seconds: fc.double({ noNaN: true, min: -1, max: 60 }),
    at: fc.integer({ min: 0, max: 2e12 }),
  }),
  fc.record({
    kind: fc.constant("lease" as const),
    held: fc.boolean(),
    epoch: fc.option(fc.integer({ min: 1, max: 1_000 }), { nil: undefined }),
  }),
  fc.record({ kind: fc.constant("plans-by-state" as const), counts }),
  fc.record({ kind: fc.constant("conditions-open" as const), counts }),
  fc.record({ kind: fc.constant("standings-failing" as const), counts }),
)

const allowedOps: Record<string, ReadonlyArray<MetricUpdate["op"]>> = {
  counter: ["inc"],
  gauge: ["set", "reset"],
  histogram: ["observe"],
}

describe("the metrics' catalogue", () => {
  it("every name has the mesh_ prefix, counters end in _total, a unit is named in base units, and no name is given twice", () => {
    const names = metricList.map((m) => m.name)
    expect(new Set(names).size).toBe(names.length)
    for (const m of metricList) {
      expect(m.name).toMatch(/^mesh_[a-z_]+$/)
      expect(m.name.endsWith("_total")).toBe(m.type === "counter")
      expect(m.name).not.toMatch(/_(ms|milliseconds|minutes)(_|$)/)
      if (m.type === "histogram") expect(m.buckets?.length).toBeGreaterThan(0)
    }
  })
})

describe("which metric moves for which observation", () => {
  it("every update names a metric of the catalogue, with exactly its labels, by an act its type allows; a counter never goes down", () => {
    fc.assert(
      fc.property(observedArb, (o) => {
        for (const u of metricUpdates(o)) {
          const m = metricList.find((s) => s.name === u.metric)
          expect(m, u.metric).toBeDefined()
          expect(allowedOps[m!.type]).toContain(u.op)
          if (u.op !== "reset") expect(Object.keys(u.labels).sort()).toEqual([...m!.labels].sort())
          if (u.op === "inc") expect(u.value).toBeGreaterThan(0)
          if (u.op === "observe") expect(u.value).toBeGreaterThanOrEqual(0)
        }
      }),
    )
  })

  it("after any list of observations each figure is what the observations say: counts, sums, the last lease, the last census exactly", () => {
    fc.assert(
      fc.property(fc.array(observedArb, { maxLength: 60 }), (list) => {
        const m = modelOf(metricList, list.flatMap(metricUpdates))
        const count = (p: (o: Observed) => boolean) => list.filter(p).length
        for (const v of ["passed", "failed"] as const) {
          expect(valueOf(m, "mesh_gate_verdicts_total", { verdict: v })).toBe(
            count((o) => o.kind === "verdict" && o.verdict === v),
          )
        }
        expect(totalOf(m, "mesh_store_errors_total")).toBe(count((o) => o.kind === "store-error"))
        expect(totalOf(m, "mesh_bus_errors_total")).toBe(count((o) => o.kind === "bus-error"))
        expect(totalOf(m, "mesh_gate_rollbacks_total")).toBe(count((o) => o.kind === "rollback"))
        expect(totalOf(m, "mesh_gate_judgings_total")).toBe(count((o) => o.kind === "judged"))
        expect(valueOf(m, "mesh_sends_total", { why: "rest", outcome: "failed" })).toBe(
          count((o) => o.kind === "send" && o.why === "rest" && !o.ok),
        )
        expect(valueOf(m, "mesh_events_published_total", { event: "verdict", outcome: "published" })).toBe(
          count((o) => o.kind === "published" && o.event === "verdict" && o.ok),
        )
        expect(valueOf(m, "mesh_operator_acts_total", { act: "promote", outcome: "refused" })).toBe(
          count((o) => o.kind === "operator-act" && o.act === "promote" && !o.ok),
        )
        expect(valueOf(m, "mesh_conditions_raised_total", { severity: "urgent" })).toBe(
          count((o) => o.kind === "condition-raised" && o.severity === "urgent"),
        )
        for (const oc of ["kept", "older-than-kept", "set-aside"] as const) {
          const words = list.reduce(
            (a, o) =>
              a + (o.kind === "words" && o.outcome === oc && Number.isInteger(o.count) && o.count > 0 ? o.count : 0),
            0,
          )
          expect(valueOf(m, "mesh_standing_words_total", { outcome: oc })).toBe(words)
        }
        for (const loop of ["gate", "standings"]) {
          const passes = list.filter(
            (o): o is Extract<Observed, { kind: "loop" }> => o.kind === "loop" && o.loop === loop,
          )
          expect(valueOf(m, "mesh_loop_duration_seconds_count", { loop })).toBe(passes.length)
          expect(valueOf(m, "mesh_loop_duration_seconds_sum", { loop })).toBeCloseTo(
            passes.reduce((a, o) => a + Math.max(0, o.seconds), 0),
            6,
          )
          if (passes.length > 0)
            expect(valueOf(m, "mesh_loop_last_run_timestamp_seconds", { loop })).toBe(passes.at(-1)!.at / 1000)
        }
        const leases = list.filter((o): o is Extract<Observed, { kind: "lease" }> => o.kind === "lease")
        expect(valueOf(m, "mesh_lease_held")).toBe(leases.at(-1)?.held === true ? 1 : 0)
        expect(valueOf(m, "mesh_lease_epoch")).toBe(leases.filter((o) => o.epoch !== undefined).at(-1)?.epoch ?? 0)
        const lastPlans = list
          .filter((o): o is Extract<Observed, { kind: "plans-by-state" }> => o.kind === "plans-by-state")
          .at(-1)
        const planSeries = [...m].filter(([k]) => k.startsWith("mesh_plans{"))
        expect(planSeries.length).toBe(Object.keys(lastPlans?.counts ?? {}).length)
        for (const [state, n] of Object.entries(lastPlans?.counts ?? {}))
          expect(valueOf(m, "mesh_plans", { state })).toBe(n)
      }),
    )
  })
})

// ---- a program's exchanges ----

const storeQuestions = [
  "plans-in-flight",
  "builds",
  "among-kept",
  "record-verdict",
  "set-build",
  "set-rollback",
  "save-plan",
  "raise-condition",
  "clear-condition",
  "write-standings",
  "write-report",
  "write-statement",
] as const

const notRead = { ok: false, why: "connection refused" }
const observation = (severity: "warning" | "urgent") => ({
  key: "k",
  scope: "build",
  id: "m.n",
  kind: "rolled-back",
  machine: "n",
  also: [],
  severity,
  source: "DG",
  summary: "s",
})
const verdict = (v: "passed" | "failed") => ({
  build: "b",
  module: "m",
  commit: "c",
  previous: "p",
  plan: "P",
  machines: ["n"],
  verdict: v,
  rollback: "",
  why: "",
  component: "",
  judgingFrom: 0,
})

const exchangeArb: fc.Arbitrary<Exchange<ControllerQuestions>> = fc.oneof(
  fc.record({
    question: fc
      .constantFrom(
        ...storeQuestions.filter(
          (k) => !["record-verdict", "raise-condition", "clear-condition", "set-rollback"].includes(k),
        ),
      )
      .map((q) => ({ q }) as unknown as Question),
    answer: fc.constantFrom({ ok: true }, notRead),
  }),
  fc.record({
    question: fc
      .constantFrom("passed" as const, "failed" as const)
      .map((v): Question => ({ q: "record-verdict", verdict: verdict(v) })),
    answer: fc.constantFrom({ ok: true, mine: true }, { ok: true, mine: false }, notRead),
  }),
  fc.record({
    question: fc
      .constantFrom("warning" as const, "urgent" as const)
      .map((s): Question => ({ q: "raise-condition", observation: observation(s), at: 0 })),
    answer: fc.constantFrom({ ok: true }, notRead),
  }),
  fc.record({
    question: fc.constant<Question>({ q: "clear-condition", key: "k", by: "DG" }),
    answer: fc.constantFrom({ ok: true }, notRead),
  }),
  fc.record({
    question: fc
      .constantFrom("rolled-back", "not-rolled-back")
      .map((r): Question => ({ q: "set-rollback", build: "b", rollback: r })),
    answer: fc.constantFrom({ ok: true }, notRead),
  }),
  fc.record({
    question: fc
      .constantFrom("tier" as const, "rest" as const, "rollback" as const)
      .map((why): Question => ({ q: "send-plan", plan: "P", machines: ["n"], why, module: "m" })),
    answer: fc.constantFrom({ told: ["n"] }, { told: [], error: "no route" }),
  }),
  fc.record({
    question: fc.constantFrom("rolled-back", "verdict").map((event): Question => ({ q: "publish", event, body: {} })),
    answer: fc.constantFrom({ ok: true }, notRead),
  }),
  fc.record({
    question: fc.constant<Question>({ q: "gate-facts" }),
    answer: fc.record({
      served: fc.constantFrom({ ok: true, value: {} }, notRead),
      health: fc.constantFrom({ ok: true, value: {} }, notRead),
    }),
  }),
)

const isNotRead = (a: unknown) => typeof a === "object" && a !== null && (a as { ok?: unknown }).ok === false

describe("what a program's exchanges move", () => {
  it("a store question answered 'not read' is one store error; a verdict counts only when the store kept it as this controller's; a rollback counts what was decided", () => {
    fc.assert(
      fc.property(fc.array(exchangeArb, { maxLength: 40 }), (exchanges) => {
        const m = modelOf(metricList, updatesOfExchanges(exchanges))
        const storeErrors =
          exchanges.filter(
            (e) => (storeQuestions as ReadonlyArray<string>).includes(e.question.q) && isNotRead(e.answer),
          ).length +
          exchanges.filter((e) => e.question.q === "gate-facts" && isNotRead((e.answer as { health: unknown }).health))
            .length
        expect(totalOf(m, "mesh_store_errors_total")).toBe(storeErrors)
        const busErrors = exchanges.filter(
          (e) =>
            (e.question.q === "publish" && isNotRead(e.answer)) ||
            (e.question.q === "gate-facts" && isNotRead((e.answer as { served: unknown }).served)),
        ).length
        expect(totalOf(m, "mesh_bus_errors_total")).toBe(busErrors)
        for (const v of ["passed", "failed"] as const) {
          const mine = exchanges.filter(
            (e) =>
              e.question.q === "record-verdict" &&
              e.question.verdict.verdict === v &&
              JSON.stringify(e.answer) === JSON.stringify({ ok: true, mine: true }),
          ).length
          expect(valueOf(m, "mesh_gate_verdicts_total", { verdict: v })).toBe(mine)
        }
        expect(valueOf(m, "mesh_gate_rollbacks_total", { outcome: "rolled-back" })).toBe(
          exchanges.filter((e) => e.question.q === "set-rollback" && e.question.rollback === "rolled-back").length,
        )
        expect(valueOf(m, "mesh_conditions_raised_total", { severity: "urgent" })).toBe(
          exchanges.filter(
            (e) =>
              e.question.q === "raise-condition" &&
              e.question.observation.severity === "urgent" &&
              !isNotRead(e.answer),
          ).length,
        )
        expect(valueOf(m, "mesh_sends_total", { why: "rollback", outcome: "failed" })).toBe(
          exchanges.filter(
            (e) => e.question.q === "send-plan" && e.question.why === "rollback" && "error" in (e.answer as object),
          ).length,
        )
      }),
    )
  })

  it("a question that reads nothing wrong moves nothing", () => {
    expect(observedOfExchange({ question: { q: "plans-in-flight" }, answer: { ok: true, value: [] } })).toEqual([])
    expect(observedOfExchange({ question: { q: "kept-report", node: "n" }, answer: null })).toEqual([])
  })
})

// The gate program against the demo's scripted world: hq-3 reporting, every act done.
const plan = planOf("letta", 204)

describe("a gate's tick, measured", () => {
  it("a build refused on its first machine: one failed verdict, one rollback put back, one rollback send, one rolled-back event, one warning kept raised", () => {
    const r = runPure(gateTick(settings), world(plan, 2_000, "refused", true))
    const m = modelOf(metricList, updatesOfExchanges(r.exchanges))
    expect(valueOf(m, metrics.verdicts.name, { verdict: "failed" })).toBe(1)
    expect(valueOf(m, metrics.verdicts.name, { verdict: "passed" })).toBe(0)
    expect(valueOf(m, metrics.rollbacks.name, { outcome: "rolled-back" })).toBe(1)
    expect(valueOf(m, metrics.sends.name, { why: "rollback", outcome: "sent" })).toBe(1)
    expect(valueOf(m, metrics.events.name, { event: "rolled-back", outcome: "published" })).toBe(1)
    // Raised before the rollback is sent (issue 9: saved before it is sent) and kept once it lands: the same key, raised twice.
    const raised = r.exchanges.flatMap((e) => (e.question.q === "raise-condition" ? [e.question.observation.key] : []))
    expect(new Set(raised).size).toBe(1)
    expect(valueOf(m, metrics.conditionsRaised.name, { severity: "warning" })).toBe(raised.length)
    expect(totalOf(m, metrics.storeErrors.name)).toBe(0)
  })

  it("the same verdict kept by another controller moves no verdict, rollback or send here", () => {
    const r = runPure(gateTick(settings), world(plan, 2_000, "refused", false))
    const m = modelOf(metricList, updatesOfExchanges(r.exchanges))
    expect(totalOf(m, metrics.verdicts.name)).toBe(0)
    expect(totalOf(m, metrics.rollbacks.name)).toBe(0)
    expect(totalOf(m, metrics.sends.name)).toBe(0)
  })

  it("a day replayed from its recorded answers moves the metrics exactly as the day did", () => {
    let gate: PlanRecord["gate"]
    const live: Array<MetricUpdate> = []
    const replayed: Array<MetricUpdate> = []
    for (let now = 1_500; now < 12_000 && gate?.verdict !== "passed"; now += 1_500) {
      const p = gate === undefined ? plan : { ...plan, gate }
      const day = runPure(gateTick(settings), world(p, now, "applied"))
      live.push(...updatesOfExchanges(day.exchanges))
      let i = 0
      const again = runPure(gateTick(settings), () => day.exchanges[i++]!.answer)
      replayed.push(...updatesOfExchanges(again.exchanges))
      const saved = day.exchanges
        .map((e) => e.question)
        .find((q): q is Extract<Question, { q: "save-plan" }> => q.q === "save-plan")
      gate = saved?.plan.gate ?? gate
    }
    expect(gate?.verdict).toBe("passed")
    expect(replayed).toEqual(live)
    const m = modelOf(metricList, live)
    expect(valueOf(m, metrics.verdicts.name, { verdict: "passed" })).toBe(1)
    expect(valueOf(m, metrics.sends.name, { why: "rest", outcome: "sent" })).toBe(1)
    expect(valueOf(m, metrics.conditionClears.name, { by: "DG" })).toBe(2)
  })

  it("plans that cannot be read are one store error and nothing else", () => {
    // The gate's probe still reads what it keeps, and finds nothing to raise or clear.
    const r = runPure(gateTick(settings), (q) =>
      q.q === "plans-in-flight" ? notRead : world(plan, 2_000, "applied")(q),
    )
    expect(updatesOfExchanges(r.exchanges)).toEqual([
      { op: "inc", metric: "mesh_store_errors_total", labels: { operation: "plans-in-flight" }, value: 1 },
    ])
  })
})

describe("a question the driver could not get answered", () => {
  it("is a store error when the store failed it, a bus error when the bus did, counted under the question; anything else moves nothing", () => {
    expect(observedOfFailure("save-plan", "StoreUnreadable")).toEqual([{ kind: "store-error", operation: "save-plan" }])
    expect(observedOfFailure("publish", "BusUnreachable")).toEqual([{ kind: "bus-error", operation: "publish" }])
    fc.assert(
      fc.property(
        fc.string(),
        fc.string().filter((t) => t !== "StoreUnreadable" && t !== "BusUnreachable"),
        (op, tag) => {
          expect(observedOfFailure(op, tag)).toEqual([])
        },
      ),
    )
  })
})

describe("a census's rows", () => {
  it("are the counts by key, a key read twice added up", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ key: fc.constantFrom("open", "failed", "passed"), count: fc.nat(20) })),
        (rows) => {
          const c = countsOf(rows)
          for (const k of ["open", "failed", "passed"]) {
            const inRows = rows.filter((r) => r.key === k)
            expect(c[k]).toBe(inRows.length === 0 ? undefined : inRows.reduce((a, r) => a + r.count, 0))
          }
        },
      ),
    )
  })
})

describe("--metrics-addr", () => {
  it("reads host:port and [v6]:port for every port 0 to 65535, and refuses a port above it or no port at all", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("127.0.0.1", "0.0.0.0", "localhost", "metrics.hq-3"),
        fc.integer({ min: 0, max: 65_535 }),
        (host, port) => {
          expect(parseListenAddress(`${host}:${port}`)).toEqual({ ok: true, host, port })
        },
      ),
    )
    expect(parseListenAddress("[::1]:9464")).toEqual({ ok: true, host: "::1", port: 9464 })
    fc.assert(
      fc.property(fc.integer({ min: 65_536, max: 99_999 }), (port) => {
        expect(parseListenAddress(`127.0.0.1:${port}`).ok).toBe(false)
      }),
    )
    for (const bad of ["9464", "127.0.0.1", ":9464", "127.0.0.1:x", "a b:1", "127.0.0.1:123456"])
      expect(parseListenAddress(bad).ok, bad).toBe(false)
  })
})
