// `release MODULE --build B --commit C --first hq-3 [--then hq-4,hq-5]…` (seed 003's tiers, issue 9):
// the plan row from the command's inputs or the sentence refusing it, and the release as a program:
// the plan saved before anything is registered, a first send that reaches nobody leaving nothing
// registered.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { runPure } from "@mesh-core/core/program"
import type { Question } from "@mesh-core/core/controller/catalogue"
import type { PlanRecord } from "@mesh-core/core/gate/plan/records"
import type { MeshRecords } from "@mesh-core/core/mesh/records"
import { planId, releaseProgram, releaseRow, tiersGiven } from "@mesh-core/core/gate/operator/release"
import { planLines } from "@mesh-core/core/gate/plan/plan-show"

const nodes = ["hq-1", "hq-2", "hq-3", "hq-4", "hq-5", "hq-6"]
const records: MeshRecords = {
  mesh: "hq",
  nodes,
  modules: [
    { name: "letta", build: "letta-204", commit: "a71c3d09e4" },
    { name: "grafana", build: "grafana-1" },
  ],
  assignments: nodes.slice(0, 5).map((node) => ({ module: "letta", node })),
}
const inputs = { module: "letta", build: "letta-205", commit: "5e1f0c2a9b", first: ["hq-3"], then: ["hq-4,hq-5"] }

describe("the plan a release opens", () => {
  it("its tiers are the machines given, in order; the rest are the module's other machines; the first tier is `machines`", () => {
    const partition = fc.shuffledSubarray(nodes.slice(0, 5), { minLength: 1 }).chain((ms) =>
      fc.array(fc.integer({ min: 1, max: ms.length }), { minLength: 0, maxLength: 3 }).map((cuts) => {
        const at = [...new Set(cuts)].sort((a, b) => a - b).filter((c) => c < ms.length)
        const tiers: Array<Array<string>> = []
        let from = 0
        for (const c of [...at, ms.length]) {
          tiers.push(ms.slice(from, c))
          from = c
        }
        return tiers
      }),
    )
    fc.assert(
      fc.property(partition, (tiers) => {
        const r = releaseRow(
          records,
          [],
          { ...inputs, first: tiers[0]!, then: tiers.slice(1).map((t) => t.join(",")) },
          1_000,
        )
        if (!r.ok) throw new Error(r.problem)
        expect(r.plan.tiers).toEqual(tiers)
        expect(r.plan.machines).toEqual(tiers[0])
        expect([...r.plan.rest].sort()).toEqual(
          nodes
            .slice(0, 5)
            .filter((n) => !tiers.flat().includes(n))
            .sort(),
        )
        expect(r.plan).toMatchObject({
          state: "open",
          tier: 0,
          sent: [],
          previousBuild: "letta-204",
          previous: "a71c3d09e4",
          sentAt: 1_000,
          id: "letta-205",
        })
        expect(r.records.modules.find((m) => m.name === "letta")).toMatchObject({
          build: "letta-205",
          commit: "5e1f0c2a9b",
        })
      }),
    )
  })

  it("refuses, with the sentence a person reads", () => {
    const refused = (i: Partial<typeof inputs>, inFlight: ReadonlyArray<PlanRecord> = []) => {
      const r = releaseRow(records, inFlight, { ...inputs, ...i }, 0)
      return r.ok ? "" : r.problem
    }
    expect(refused({ build: " " })).toBe("--build: give the new build's id (it is empty)")
    expect(refused({ then: ["hq-4,hq-3"] })).toBe("hq-3 is named in tier 1 and again in tier 2")
    expect(refused({ then: ["hq-4,hq-4"] })).toBe("--then: hq-4 is named twice")
    expect(refused({ then: ["hq-4,"] })).toContain('--then: "hq-4," names an empty machine')
    expect(refused({ then: ["hq-6"] })).toBe("letta is not assigned to hq-6; it runs on hq-1, hq-2, hq-3, hq-4, hq-5")
    expect(refused({ module: "ghost" })).toBe("no module named ghost is registered")
    expect(refused({ build: "letta-204" })).toBe("letta is at letta-204 already")
    const open = releaseRow(records, [], inputs, 0)
    if (!open.ok) throw new Error(open.problem)
    expect(refused({ build: "letta-206" }, [{ ...open.plan, sent: ["hq-3"] }])).toBe(
      "plan letta-205 of letta is open (gate judging tier 1 on hq-3): a new release of it waits until that plan ends",
    )
  })
})

describe("release as a program", () => {
  const run = (
    told: (machines: ReadonlyArray<string>) => {
      told: ReadonlyArray<string>
      error?: string
      without?: ReadonlyArray<string>
      carried?: ReadonlyArray<{ node: string; module: string; build: string }>
    },
    failedBefore = false,
  ) => {
    const r = runPure(releaseProgram(inputs, 1_000), (q: Question) => {
      switch (q.q) {
        case "mesh-records-read":
          return { ok: true, value: records }
        case "plans-in-flight":
          return { ok: true, value: [] }
        case "send-plan":
          return told(q.machines)
        case "now":
          return 1_500
        case "verdict-of":
          return {
            ok: true,
            value: failedBefore
              ? {
                  keptAt: 0,
                  verdict: {
                    build: "letta-205",
                    module: "letta",
                    commit: "5e1f0c2a9b",
                    previous: "a71c3d09e4",
                    plan: "letta-205",
                    machines: ["hq-3"],
                    verdict: "failed",
                    rollback: "rolled-back",
                    why: "hq-3 refused what it was sent",
                    component: "",
                    judgingFrom: 0,
                  },
                }
              : null,
          }
        default:
          return { ok: true }
      }
    })
    return { ...r, acts: r.exchanges.map((e) => e.question) }
  }

  it("the first send's word on what it moved opens the gate where the module went, with what went with it (seed 003's running filter and Carried)", () => {
    const withFirst = (first: ReadonlyArray<string>) => ({ ...inputs, first, then: [] })
    const r = runPure(releaseProgram(withFirst(["hq-3", "hq-4"]), 1_000), (q: Question) =>
      q.q === "mesh-records-read"
        ? { ok: true, value: records }
        : q.q === "plans-in-flight"
          ? { ok: true, value: [] }
          : q.q === "send-plan"
            ? {
                told: q.machines,
                without: ["hq-4"],
                carried: [{ node: "hq-3", module: "grafana", build: "grafana-2" }],
              }
            : q.q === "now"
              ? 1_500
              : q.q === "verdict-of"
                ? { ok: true, value: null }
                : { ok: true },
    )
    const plan = r.result.plan!
    expect(plan.gate).toMatchObject({
      machines: ["hq-3"],
      carried: [{ module: "grafana", node: "hq-3" }],
      since: 1_500,
    })
    expect(plan.without).toEqual(["hq-4"])
    expect(r.result.said).toContain(
      "hq-4 not judged: told a declaration without letta; carried with it and judged with it: grafana grafana-2 on hq-3",
    )
  })

  it("the plan is saved before the build is registered, and the first tier is sent after; its gate opens when the tier has it", () => {
    const r = run((machines) => ({ told: machines }))
    expect(r.acts.map((q) => q.q)).toEqual([
      "mesh-records-read",
      "plans-in-flight",
      "verdict-of",
      "record-build",
      "record-build",
      "save-plan",
      "set-build",
      "send-plan",
      "now",
      "save-plan",
    ])
    expect(r.acts[5]).toMatchObject({ plan: { state: "open", sent: [] } })
    expect(r.acts[7]).toMatchObject({ plan: "letta-205", why: "tier", machines: ["hq-3"] })
    expect(r.acts[9]).toMatchObject({
      plan: { state: "open", sent: ["hq-3"], gate: { machines: ["hq-3"], since: 1_500 } },
    })
    expect(r.result.code).toBe(0)
    expect(r.result.said).toBe(
      "plan letta-205: letta letta-205 sent to tier 1 (hq-3); the gate judges it there; then, each once the gate passes, tier 2 (hq-4, hq-5), then the rest (hq-1, hq-2)",
    )
  })

  it("a build that failed its gate is not released again: refused, nothing recorded, registered or sent", () => {
    const r = run((machines) => ({ told: machines }), true)
    expect(r.result.code).toBe(2)
    expect(r.result.said).toBe(
      "letta-205 failed its gate on hq-3 (plan letta-205): hq-3 refused what it was sent — a build that failed its gate is not sent again; release a newer one",
    )
    expect(r.acts.map((q) => q.q)).toEqual(["mesh-records-read", "plans-in-flight", "verdict-of"])
  })

  it("a first send that reaches no machine leaves nothing registered: the previous build is put back and the plan ended", () => {
    const r = run(() => ({ told: [], error: "the memberships of hq-3 could not be issued" }))
    const builds = r.acts.filter((q) => q.q === "set-build")
    expect(builds.map((q) => (q as Extract<Question, { q: "set-build" }>).build)).toEqual(["letta-205", "letta-204"])
    expect(r.acts.at(-1)).toMatchObject({ q: "save-plan", plan: { state: "failed" } })
    expect(r.result).toMatchObject({ code: 1 })
    expect(r.result.said).toContain("nothing is registered: letta stays at letta-204")
  })
})

describe("a plan as `plans` says it", () => {
  it("each tier and whether it was sent, the gate, and what a rollback has left to send", async () => {
    const row = releaseRow(records, [], inputs, 0)
    if (!row.ok) throw new Error(row.problem)
    const s = { settle: 120_000, bound: 600_000, passes: 3, every: 40_000 }
    expect(planLines({ ...row.plan, tier: 1, sent: ["hq-3", "hq-4"] }, s)).toEqual([
      "letta-205: letta letta-205, open",
      "  tier 1 (hq-3) sent; tier 2 (hq-4, hq-5) sent to hq-4 only, judging; the rest (hq-1, hq-2) not sent",
      "  gate on hq-4, hq-5: not judged yet",
    ])
    const rolling = {
      ...row.plan,
      state: "rolling-back" as const,
      sent: ["hq-3"],
      putBack: { build: "letta-204", commit: "a71c3d09e4", machines: ["hq-3"], sent: [] },
      note: "letta failed its gate on hq-3",
    }
    expect(planLines(rolling, s).slice(-2)).toEqual([
      "  putting back letta-204 on hq-3: hq-3 not sent yet",
      "  letta failed its gate on hq-3",
    ])
  })
})

describe("the plan a release opens: its parts", () => {
  it("a plan's id is its build when the build names its module, else module-build", () => {
    expect(planId("letta", "letta-205")).toBe("letta-205")
    expect(planId("letta", "205")).toBe("letta-205")
    expect(planId("letta", "lettaX")).toBe("letta-lettaX")
  })

  it("machines are named with the spaces around them left out, in --first and in each --then", () => {
    expect(tiersGiven([" hq-3 "], [" hq-4 , hq-5"])).toEqual({ tiers: [["hq-3"], ["hq-4", "hq-5"]] })
    expect(tiersGiven([" "], [])).toEqual({ problem: "--first: give a machine's name (it is empty)" })
    expect(tiersGiven(["hq-3", ""], ["hq-4"])).toEqual({ problem: "--first: give a machine's name (it is empty)" })
    expect(tiersGiven(["hq-3", "hq-3"], [])).toEqual({ problem: "--first: hq-3 is named twice" })
    expect(tiersGiven(["hq-3"], ["hq-4,"])).toEqual({
      problem: '--then: "hq-4," names an empty machine; give machines separated by commas, as in --then hq-4,hq-5',
    })
  })

  it("what is recorded: the previous build with its commit, when known, then the new one with its source when given", () => {
    const r = releaseRow(records, [], { ...inputs, source: "git@hq:letta" }, 0)
    if (!r.ok) throw new Error(r.problem)
    expect(r.builds).toEqual([
      { build: "letta-204", module: "letta", commit: "a71c3d09e4" },
      { build: "letta-205", module: "letta", commit: "5e1f0c2a9b", source: "git@hq:letta" },
    ])
    const g = releaseRow(
      { ...records, assignments: [{ module: "grafana", node: "hq-6" }] },
      [],
      { module: "grafana", build: "grafana-2", commit: "c0ffee", first: ["hq-6"], then: [] },
      0,
    )
    if (!g.ok) throw new Error(g.problem)
    expect(g.builds).toEqual([{ build: "grafana-2", module: "grafana", commit: "c0ffee" }])
    expect(g.plan.previous).toBe("")
    expect(g.plan.previousBuild).toBe("grafana-1")
  })

  it("a module never built before has no previous build in its plan", () => {
    const fresh: MeshRecords = {
      ...records,
      modules: [...records.modules, { name: "pg", build: "" }],
      assignments: [{ module: "pg", node: "hq-6" }],
    }
    const r = releaseRow(fresh, [], { module: "pg", build: "pg-1", commit: "beef", first: ["hq-6"], then: [] }, 0)
    if (!r.ok) throw new Error(r.problem)
    expect("previousBuild" in r.plan).toBe(false)
  })

  it("a plan in flight of another module does not hold this one's release", () => {
    const other = releaseRow(
      { ...records, assignments: [...records.assignments, { module: "grafana", node: "hq-6" }] },
      [],
      { module: "grafana", build: "grafana-2", commit: "c0ffee", first: ["hq-6"], then: [] },
      0,
    )
    if (!other.ok) throw new Error(other.problem)
    expect(releaseRow(records, [other.plan], inputs, 0).ok).toBe(true)
  })
})

type Answers = Partial<Record<Question["q"], unknown>>
const drive = (
  i: typeof inputs & { dryRun?: boolean },
  answers: Answers,
  send: (machines: ReadonlyArray<string>) => { told: ReadonlyArray<string>; error?: string },
  saveFails: (plan: PlanRecord, n: number) => string | undefined = () => undefined,
) => {
  let saves = 0
  const r = runPure(releaseProgram(i, 1_000), (q: Question) => {
    if (q.q === "save-plan") {
      const why = saveFails(q.plan, saves++)
      return why === undefined ? { ok: true } : { ok: false, why }
    }
    if (q.q in answers) return answers[q.q]
    switch (q.q) {
      case "mesh-records-read":
        return { ok: true, value: records }
      case "plans-in-flight":
        return { ok: true, value: [] }
      case "verdict-of":
        return { ok: true, value: null }
      case "send-plan":
        return send(q.machines)
      case "now":
        return 1_500
      default:
        return { ok: true }
    }
  })
  return { ...r, acts: r.exchanges.map((e) => e.question), kinds: r.exchanges.map((e) => e.question.q) }
}
const everyone = (machines: ReadonlyArray<string>) => ({ told: machines })

describe("release as a program: what it says when the store does not answer", () => {
  it("records, plans and verdicts that cannot be read are code 3, with the store's words; no records yet, or a refused row, code 2", () => {
    const said = (answers: Answers, i = inputs) => {
      const r = drive(i, answers, everyone)
      return [
        r.result.code,
        r.result.said,
        r.result.plan,
        r.kinds.filter((k) => k === "record-build" || k === "save-plan" || k === "send-plan").length,
      ]
    }
    expect(said({ "mesh-records-read": { ok: false, why: "KV down" } })).toEqual([
      3,
      "the mesh's records cannot be read: KV down",
      undefined,
      0,
    ])
    expect(said({ "mesh-records-read": { ok: true, value: null } })).toEqual([
      2,
      "the mesh has no records yet: give them with mesh-controller mesh apply FILE",
      undefined,
      0,
    ])
    expect(said({ "plans-in-flight": { ok: false, why: "KV down" } })).toEqual([
      3,
      "the release plans cannot be read: KV down",
      undefined,
      0,
    ])
    expect(said({}, { ...inputs, module: "ghost" })).toEqual([2, "no module named ghost is registered", undefined, 0])
    expect(said({ "verdict-of": { ok: false, why: "PG down" } })).toEqual([
      3,
      "whether letta-205 was judged before cannot be read: PG down",
      undefined,
      0,
    ])
  })

  it("a build that cannot be recorded releases nothing: no plan saved, nothing registered or sent", () => {
    const r = drive(inputs, { "record-build": { ok: false, why: "PG down" } }, everyone)
    expect(r.result).toEqual({
      code: 3,
      said: "the build letta-204 cannot be recorded, so nothing is released: PG down",
      plan: undefined,
    })
    expect(r.kinds).toEqual(["mesh-records-read", "plans-in-flight", "verdict-of", "record-build"])
  })

  it("a plan that cannot be saved registers and sends nothing", () => {
    const r = drive(inputs, {}, everyone, () => "KV down")
    expect(r.result).toEqual({
      code: 3,
      said: "the plan cannot be kept, so nothing is registered or sent: KV down",
      plan: undefined,
    })
    expect(r.kinds).not.toContain("set-build")
    expect(r.kinds).not.toContain("send-plan")
  })

  it("a build that cannot be registered ends its plan failed, saved so, and sends nothing", () => {
    const r = drive(inputs, { "set-build": { ok: false, why: "KV down" } }, everyone)
    const note = "letta-205 could not be registered, so nothing was sent: KV down"
    expect(r.result).toMatchObject({ code: 3, said: note, plan: { state: "failed", note } })
    expect(r.kinds.slice(-2)).toEqual(["set-build", "save-plan"])
    expect(r.acts.at(-1)).toMatchObject({ q: "save-plan", plan: { id: "letta-205", state: "failed", note } })
  })

  it("a passed verdict kept for the build does not refuse it", () => {
    const verdict = {
      keptAt: 0,
      verdict: {
        build: "letta-205",
        module: "letta",
        commit: "5e1f0c2a9b",
        previous: "a71c3d09e4",
        plan: "letta-205",
        machines: ["hq-3"],
        verdict: "passed",
        rollback: "",
        why: "",
        component: "",
        judgingFrom: 0,
      },
    }
    expect(drive(inputs, { "verdict-of": { ok: true, value: verdict } }, everyone).result.code).toBe(0)
  })
})

describe("release as a program: a first send that reaches some, none, or machines it did not ask", () => {
  it("some of the first tier reached: the plan stays open, tried once, naming the machines not sent and why; code 1; no gate yet", () => {
    const r = drive({ ...inputs, first: ["hq-3", "hq-4"], then: [] }, {}, () => ({
      told: ["hq-4"],
      error: "hq-3 did not answer",
    }))
    const note = "tier 1: hq-3 not sent yet (hq-3 did not answer); serve's gate sends it again"
    expect(r.result.code).toBe(1)
    expect(r.result.said).toBe(`plan letta-205: ${note}`)
    expect(r.result.plan).toMatchObject({ state: "open", sent: ["hq-4"], tries: 1, note })
    expect(r.result.plan?.gate).toBeUndefined()
    expect(r.acts.at(-1)).toMatchObject({ q: "save-plan", plan: { sent: ["hq-4"], tries: 1, note } })
  })

  it("with no error told, the words say so", () => {
    const r = drive({ ...inputs, first: ["hq-3", "hq-4"], then: [] }, {}, () => ({ told: ["hq-4"] }))
    expect(r.result.said).toBe("plan letta-205: tier 1: hq-3 not sent yet (not told); serve's gate sends it again")
    const none = drive(inputs, {}, () => ({ told: [] }))
    expect(none.result.said).toBe(
      "plan letta-205: its first send reached no machine: none told; nothing is registered: letta stays at letta-204",
    )
  })

  it("a machine told that is not in the first tier is not counted as sent", () => {
    const r = drive({ ...inputs, first: ["hq-3", "hq-4"], then: [] }, {}, () => ({ told: ["hq-4", "hq-1"] }))
    expect(r.result.plan?.sent).toEqual(["hq-4"])
    expect(r.result.code).toBe(1)
    const none = drive(inputs, {}, () => ({ told: ["hq-1"] }))
    expect(none.result.plan).toMatchObject({ state: "failed" })
  })

  it("the whole first tier sent with no later tier and no rest: nothing more is promised", () => {
    const only: MeshRecords = { ...records, assignments: [{ module: "letta", node: "hq-3" }] }
    const r = drive({ ...inputs, then: [] }, { "mesh-records-read": { ok: true, value: only } }, everyone)
    expect({ ...r.result, plan: undefined }).toEqual({
      code: 0,
      said: "plan letta-205: letta letta-205 sent to tier 1 (hq-3); the gate judges it there",
      plan: undefined,
    })
  })

  it("the whole first tier sent with only the rest after it: the rest is named", () => {
    const r = drive({ ...inputs, then: [] }, {}, everyone)
    expect(r.result.said).toBe(
      "plan letta-205: letta letta-205 sent to tier 1 (hq-3); the gate judges it there; then, each once the gate passes, the rest (hq-1, hq-2, hq-4, hq-5)",
    )
  })

  it("what was sent but could not be kept is said to the journal; the send stands", () => {
    const r = drive(inputs, {}, everyone, (_, n) => (n === 1 ? "KV down" : undefined))
    expect(r.said).toEqual([
      "plan letta-205: what was sent could not be kept (serve's gate sends tier 1 again): KV down",
    ])
    expect(r.result.code).toBe(0)
    expect(drive(inputs, {}, everyone).said).toEqual([])
  })

  it("reaching none when the previous build cannot be put back: the plan stays open and holds the module's machines, code 1", () => {
    const r = drive(inputs, {}, () => ({ told: [], error: "no answer" }), undefined)
    expect(r.result.plan?.state).toBe("failed")
    const stuck = runPure(
      releaseProgram(inputs, 1_000),
      (() => {
        let sets = 0
        return (q: Question) => {
          switch (q.q) {
            case "mesh-records-read":
              return { ok: true, value: records }
            case "plans-in-flight":
              return { ok: true, value: [] }
            case "verdict-of":
              return { ok: true, value: null }
            case "send-plan":
              return { told: [], error: "no answer" }
            case "set-build":
              return sets++ === 0 ? { ok: true } : { ok: false, why: "KV down" }
            default:
              return { ok: true }
          }
        }
      })(),
    )
    const note =
      "its first send reached no machine (no answer); it stays open and holds every machine of letta, and serve's gate sends tier 1 again"
    expect(stuck.result).toMatchObject({ code: 1, said: `plan letta-205: ${note}`, plan: { state: "open", note } })
    expect(stuck.exchanges.at(-1)?.question).toMatchObject({ q: "save-plan", plan: { state: "open", note, tries: 1 } })
  })

  it("reaching none for a module with no build before: nothing to put back, so the plan stays open", () => {
    const fresh: MeshRecords = {
      ...records,
      modules: [...records.modules, { name: "pg", build: "" }],
      assignments: [{ module: "pg", node: "hq-6" }],
    }
    const r = drive(
      { module: "pg", build: "pg-1", commit: "beef", first: ["hq-6"], then: [] },
      { "mesh-records-read": { ok: true, value: fresh } },
      () => ({ told: [] }),
    )
    expect(r.kinds.filter((k) => k === "set-build")).toHaveLength(1)
    expect(r.result).toMatchObject({
      code: 1,
      said: "plan pg-1: its first send reached no machine (none told); it stays open and holds every machine of pg, and serve's gate sends tier 1 again",
    })
  })
})

describe("a dry run: sent to the first tier and judged, nothing registered", () => {
  const dry = { ...inputs, dryRun: true }
  const id = "letta-205-dry-run-19700101T000001Z"

  it("its plan is its own row, sent the build by name, and nothing is recorded or registered", () => {
    const r = drive(dry, {}, everyone)
    expect(r.kinds).toEqual([
      "mesh-records-read",
      "plans-in-flight",
      "verdict-of",
      "save-plan",
      "send-plan",
      "now",
      "save-plan",
    ])
    expect(r.acts[4]).toEqual({
      q: "send-plan",
      plan: id,
      module: "letta",
      why: "tier",
      machines: ["hq-3"],
      build: "letta-205",
    })
    expect(r.result.code).toBe(0)
    expect(r.result.said).toBe(
      `plan ${id}: dry run: letta letta-205 sent to tier 1 (hq-3) and judged there; what the gate would decide is said, and nothing else is sent`,
    )
    expect(r.result.plan).toMatchObject({
      id,
      dryRun: true,
      triedAt: 1_000,
      sent: ["hq-3"],
      gate: { machines: ["hq-3"], since: 1_500 },
    })
  })

  it("a dry run whose plan cannot be saved sends nothing", () => {
    const r = drive(dry, {}, everyone, () => "KV down")
    expect(r.result).toEqual({ code: 3, said: "the plan cannot be kept, so nothing is sent: KV down", plan: undefined })
    expect(r.kinds).not.toContain("send-plan")
  })

  it("a dry run that reaches none ends failed; one that reaches some stays open, tried once", () => {
    const none = drive(dry, {}, () => ({ told: ["hq-1"], error: "no answer" }))
    const ended = "dry run: its first send reached no machine (no answer); nothing was registered or judged"
    expect(none.result).toMatchObject({ code: 1, said: `plan ${id}: ${ended}`, plan: { state: "failed", note: ended } })
    expect(none.acts.at(-1)).toMatchObject({ q: "save-plan", plan: { state: "failed", note: ended } })
    expect(drive(dry, {}, () => ({ told: [] })).result.said).toBe(
      `plan ${id}: dry run: its first send reached no machine (none told); nothing was registered or judged`,
    )
    const some = drive({ ...dry, first: ["hq-3", "hq-4"], then: [] }, {}, () => ({
      told: ["hq-4", "hq-1"],
      error: "hq-3 did not answer",
    }))
    const note = "dry run: tier 1: hq-3 not sent yet (hq-3 did not answer); serve's gate sends it again"
    expect(some.result).toMatchObject({
      code: 1,
      said: `plan ${id}: ${note}`,
      plan: { sent: ["hq-4"], tries: 1, note },
    })
    expect(some.result.plan?.gate).toBeUndefined()
    expect(drive({ ...dry, first: ["hq-3", "hq-4"], then: [] }, {}, () => ({ told: ["hq-4"] })).result.said).toBe(
      `plan ${id}: dry run: tier 1: hq-3 not sent yet (not told); serve's gate sends it again`,
    )
  })

  it("what a dry run sent but could not keep is said", () => {
    const r = drive(dry, {}, everyone, (_, n) => (n === 1 ? "KV down" : undefined))
    expect(r.said).toEqual([`plan ${id}: what was sent could not be kept (serve's gate sends tier 1 again): KV down`])
  })
})

describe("release as a program: tiers of more than one machine, said in full", () => {
  const pair = { ...inputs, first: ["hq-3", "hq-4"], then: [] }
  const v = {
    keptAt: 0,
    verdict: {
      build: "letta-205",
      module: "letta",
      commit: "5e1f0c2a9b",
      previous: "a71c3d09e4",
      plan: "letta-205",
      machines: ["hq-3", "hq-4"],
      verdict: "failed",
      rollback: "rolled-back",
      why: "they exit",
      component: "",
      judgingFrom: 0,
    },
  }

  it("each machine is named, separated by commas", () => {
    expect(drive(pair, { "verdict-of": { ok: true, value: v } }, everyone).result.said).toBe(
      "letta-205 failed its gate on hq-3, hq-4 (plan letta-205): they exit — a build that failed its gate is not sent again; release a newer one",
    )
    expect(drive(pair, {}, everyone).result.said).toBe(
      "plan letta-205: letta letta-205 sent to tier 1 (hq-3, hq-4); the gate judges it there; then, each once the gate passes, the rest (hq-1, hq-2, hq-5)",
    )
    const three = { ...inputs, first: ["hq-3", "hq-4", "hq-5"], then: [] }
    expect(drive(three, {}, () => ({ told: ["hq-5"], error: "no answer" })).result.said).toBe(
      "plan letta-205: tier 1: hq-3, hq-4 not sent yet (no answer); serve's gate sends it again",
    )
    const id = "letta-205-dry-run-19700101T000001Z"
    expect(drive({ ...pair, dryRun: true }, {}, everyone).result.said).toBe(
      `plan ${id}: dry run: letta letta-205 sent to tier 1 (hq-3, hq-4) and judged there; what the gate would decide is said, and nothing else is sent`,
    )
    expect(drive({ ...three, dryRun: true }, {}, () => ({ told: ["hq-5"], error: "no answer" })).result.said).toBe(
      `plan ${id}: dry run: tier 1: hq-3, hq-4 not sent yet (no answer); serve's gate sends it again`,
    )
  })

  it("a dry run kept says nothing more; a build with no source records none", () => {
    expect(drive({ ...inputs, dryRun: true }, {}, everyone).said).toEqual([])
    const r = releaseRow(records, [], inputs, 0)
    if (!r.ok) throw new Error(r.problem)
    expect(r.builds.every((b) => !("source" in b))).toBe(true)
  })
})
