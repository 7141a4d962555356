// A dry-run gate (issue 10, Argo's dryRun) and measurement errors apart from failures (Argo's
// consecutiveErrorLimit), over any run of ticks: sends that reach some machines, machines that
// refuse, a store that is away now and then.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { runPure } from "@mesh-core/core/program"
import type { HistoryEntry, PlanRecord } from "@mesh-core/core/gate/plan/records"
import { entriesOf } from "@mesh-core/core/gate/plan/history"
import { releaseProgram } from "@mesh-core/core/gate/operator/release"
import { heldMachines } from "@mesh-core/core/delivery/held"
import { basePlan, machines, ok, run, settings, type Step, verb } from "./gate-world.ts"

const tick = (refusing: boolean): fc.Arbitrary<Step> =>
  fc.record({
    kind: fc.constant("tick" as const),
    reaches: fc.oneof({ weight: 3, arbitrary: fc.constant(machines) }, { weight: 1, arbitrary: fc.subarray(machines) }),
    refuse: refusing
      ? fc.oneof(
          { weight: 6, arbitrary: fc.constant([]) },
          { weight: 1, arbitrary: fc.subarray(machines, { maxLength: 1 }) },
        )
      : fc.constant([]),
    unreadable: fc.boolean(),
  })
const steps = (refusing: boolean) =>
  fc.array(fc.oneof({ weight: 8, arbitrary: tick(refusing) }, { weight: 1, arbitrary: fc.constant(verb("resume")) }), {
    minLength: 1,
    maxLength: 40,
  })

const dry: PlanRecord = { ...basePlan, dryRun: true }
const judgings = (p: PlanRecord) =>
  entriesOf(p.history).filter((e): e is Extract<HistoryEntry, { kind: "judging" }> => e.kind === "judging")

describe("a dry-run gate", () => {
  it("asks for no act beyond its first tier's send of its own build (no verdict kept, nothing registered, sent further, put back or held), and judges exactly as a real plan does on the same facts", () => {
    fc.assert(
      fc.property(steps(true), (s) => {
        const d = run(s, dry)
        for (const { q } of d.acts) {
          if (q.q === "send-plan") {
            expect(q.why).toBe("tier")
            expect(q.build).toBe("letta-205")
            expect(q.machines.every((m) => m === "hq-1")).toBe(true)
          } else if (q.q === "publish") {
            expect(["plan-paused", "plan-resumed"]).toContain(q.event)
          } else {
            expect(["save-plan", "publish"]).toContain(q.q)
          }
        }
        expect(d.verdicts).toEqual([])
        expect(d.ticks.every((t) => t.result.verdicts.length === 0 && t.result.judgings.every((j) => j.dryRun))).toBe(
          true,
        )
        expect(d.plan.tier).toBe(0)
        const real = run(s, basePlan)
        expect(judgings(d.plan)).toEqual(judgings(real.plan).filter((e) => e.tier === 0))
        if (d.plan.state !== "open") {
          const decided = judgings(d.plan).at(-1)!.decided!
          expect(d.plan.state).toBe(decided)
          expect(d.plan.note).toMatch(new RegExp(`^dry run: letta letta-205 would have ${decided} its gate on hq-1 `))
        }
      }),
      { numRuns: 300 },
    )
  })

  it("release --dry-run saves the plan and sends its first tier the build, and registers, records and holds nothing", () => {
    const asked: Array<string> = []
    const r = runPure(
      releaseProgram(
        { module: "letta", build: "letta-205", commit: "5e1f0c2a9b", first: ["hq-3"], then: ["hq-4"], dryRun: true },
        1_000,
      ),
      (q) => {
        asked.push(
          q.q === "send-plan" ? `send-plan ${q.why} ${q.machines.join(",")} ${q.build ?? "(registered)"}` : q.q,
        )
        switch (q.q) {
          case "mesh-records-read":
            return {
              ok: true,
              value: {
                mesh: "hq",
                nodes: ["hq-3", "hq-4"],
                modules: [{ name: "letta", build: "letta-204", commit: "a71c3d09e4" }],
                assignments: [
                  { module: "letta", node: "hq-3" },
                  { module: "letta", node: "hq-4" },
                ],
              },
            }
          case "plans-in-flight":
            return { ok: true, value: [] }
          case "verdict-of":
            return { ok: true, value: null }
          case "send-plan":
            return { told: q.machines }
          case "now":
            return 1_500
          default:
            return { ok: true }
        }
      },
    )
    expect(asked).toEqual([
      "mesh-records-read",
      "plans-in-flight",
      "verdict-of",
      "save-plan",
      "send-plan tier hq-3 letta-205",
      "now",
      "save-plan",
    ])
    expect(r.result.code).toBe(0)
    expect(r.result.plan).toMatchObject({
      id: "letta-205-dry-run-19700101T000001Z",
      dryRun: true,
      state: "open",
      sent: ["hq-3"],
    })
  })
})

describe("a dry run holds nothing", () => {
  it("in any state, even were its build registered, and it hides no real plan of its module", () => {
    const records = {
      mesh: "hq",
      nodes: machines,
      modules: [{ name: "letta", build: "letta-205", commit: "5e1f0c2a9b" }],
      assignments: machines.map((node) => ({ module: "letta", node })),
    }
    fc.assert(
      fc.property(
        fc.constantFrom("open", "sending", "passed", "rolling-back", "failed" as const),
        fc.nat({ max: 100 }),
        (state, later) => {
          const d: PlanRecord = {
            ...dry,
            id: "letta-205-dry-run",
            state: state as PlanRecord["state"],
            sent: ["hq-1"],
            sentAt: later + 1,
          }
          expect(heldMachines([d], records, machines, { kind: "sweep" }).holds).toEqual([])
          // A real open plan of the module, older than the dry run, still holds what it has not reached.
          const real: PlanRecord = { ...basePlan, sent: ["hq-1"], sentAt: 0 }
          expect(
            heldMachines([real, d], records, machines, { kind: "sweep" })
              .holds.map((h) => h.machine)
              .sort(),
          ).toEqual(
            heldMachines([real], records, machines, { kind: "sweep" })
              .holds.map((h) => h.machine)
              .sort(),
          )
        },
      ),
    )
  })
})

describe("measurement errors apart from failures", () => {
  it("a store that is away never fails a build on its own; could-not-ask judgings are kept in the history, never decide, and a run of them is paused at the limit, never longer", () => {
    fc.assert(
      fc.property(steps(false), (s) => {
        const r = run(s)
        expect(r.verdicts.filter((v) => v.verdict === "failed")).toEqual([])
        expect(r.acts.some((a) => a.q.q === "send-plan" && a.q.why === "rollback")).toBe(false)
        const entries = entriesOf(r.plan.history)
        let inARow = 0
        let paused = false
        for (const [i, e] of entries.entries()) {
          if (e.kind === "verb") {
            if (e.verb === "resume") paused = false
            continue
          }
          // Nothing is judged while paused.
          expect(paused).toBe(false)
          if (e.word !== "could-not-ask") {
            inARow = 0
            continue
          }
          expect(e.decided).toBeUndefined()
          inARow += 1
          expect(inARow).toBeLessThanOrEqual(settings.errorLimit!)
          if (inARow === settings.errorLimit) {
            expect(entries[i + 1]).toMatchObject({ kind: "verb", verb: "paused-by-errors", by: "controller" })
            paused = true
            inARow = 0
          }
        }
        expect(r.plan.paused !== undefined).toBe(paused)
      }),
      { numRuns: 300 },
    )
  })

  it("paused after the limit in a row (4 when unset), said on the bus and in the note, not failed; resumed, it is judged again", () => {
    const away: Step = { kind: "tick", reaches: machines, refuse: [], unreadable: true }
    const { errorLimit: _unset, ...defaults } = settings
    const r = run([ok, away, away, away, away, away, verb("resume"), ok, ok, ok], basePlan, { settings: defaults })
    const paused = r.saves.find((s) => s.plan.paused !== undefined)!
    expect(paused.step).toBe(4)
    expect(paused.plan.state).toBe("open")
    expect(paused.plan.note).toContain(
      "paused by the controller at 1970-01-01T00:00:05Z: 4 judgings in a row could not ask: what is wrong cannot be read: connect ECONNREFUSED",
    )
    expect(r.acts.filter((a) => a.q.q === "publish").map((a) => a.q.q === "publish" && a.q.body.event)).toEqual([
      "plan-paused",
      "plan-resumed",
    ])
    expect(r.asked.some((a) => a.step === 5 && a.q.q === "gate-facts")).toBe(false)
    expect(judgings(r.plan).map((e) => [e.tier, e.word, e.decided])).toEqual([
      ...Array(4).fill([0, "could-not-ask", undefined]),
      [0, "healthy", undefined],
      [0, "healthy", "passed"],
      [1, "healthy", undefined],
    ])
    expect(r.plan.tier).toBe(1)
    // Each tick says what it judged, for whoever counts judgings by outcome.
    expect(r.ticks.flatMap((t) => t.result.judgings.map((j) => j.word))).toEqual(judgings(r.plan).map((e) => e.word))
  })

  it("evidence read beside an unreadable store still fails: a machine that refused what it was sent", () => {
    const refusedAway: Step = { kind: "tick", reaches: machines, refuse: ["hq-1"], unreadable: true }
    const r = run([ok, refusedAway], basePlan)
    expect(judgings(r.plan).map((e) => [e.word, e.decided])).toEqual([["broken", "failed"]])
    expect(r.verdicts.map((v) => v.verdict)).toEqual(["failed"])
  })
})
