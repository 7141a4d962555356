// The bus holder a named push leaves while a plan holds its modules stays left for the whole push,
// flush included (seed 002-19, issue 40): the seed names it and puts it among the flush's handled, so
// it is never sent after the grants that needed its user list (issue 249's order inverted). Stated
// over whole pushes, every delivery and every flush round, in a world that keeps what each push sent.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { PlanRecord } from "@mesh-core/core/gate/plan/records"
import type { MeshRecords } from "@mesh-core/core/mesh/records"
import { type QuestionOf, runPure } from "@mesh-core/core/program"
import type { PushQuestions } from "@mesh-core/core/delivery/questions"
import { pushProgram } from "@mesh-core/core/delivery/push"
import { bounded } from "../support/push-world.ts"

const holder = "hq-1"

/** Every machine was sent something before that is not what it should be now, with an older user list. */
const keepingWorld = (records: MeshRecords, plans: ReadonlyArray<PlanRecord>) => {
  let sequence = 1
  const sent = new Map(
    records.nodes.map((node) => [node, { node, digest: "older", sequence: 1, busUsersDigest: "older", builds: {} }]),
  )
  return (q: QuestionOf<PushQuestions>): unknown => {
    switch (q.q) {
      case "mesh-records":
        return records
      case "machines":
        return records.nodes
      case "plans-holding":
        return plans
      case "sent":
        return [...sent.values()]
      case "reports":
        return []
      case "report-of":
      case "message-limit":
        return null
      case "now":
        return 0
      case "allot":
        return { sequence: ++sequence }
      case "declare":
        sent.set(q.node, { ...q, busUsersDigest: q.busUsersDigest ?? "" })
        return { ok: true }
      default:
        return { ok: true }
    }
  }
}

const mesh = fc.record({
  machines: fc.integer({ min: 3, max: 6 }),
  appOnHolder: fc.boolean(),
  appOn: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
  reached: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
  state: fc.constantFrom("open", "failed", "rolling-back", "passed"),
  previous: fc.option(fc.constant("a1"), { nil: undefined }),
  named: fc.integer({ min: 1, max: 6 }),
})

describe("the bus holder a named push leaves (seed 002-19, issue 40)", () => {
  it("is left for the whole push: never declared by any delivery or flush round; otherwise it goes before every grant of a delivery that sends it", () => {
    let left = 0
    fc.assert(
      fc.property(mesh, (m) => {
        const nodes = Array.from({ length: m.machines }, (_, i) => `hq-${i + 1}`)
        const appOn = nodes.filter((n, i) => (n === holder ? m.appOnHolder : i >= 2 && m.appOn[i]))
        const records: MeshRecords = {
          mesh: "t",
          nodes,
          modules: [
            { name: "broker", build: "b1", busUsers: true, claims: ["bus"], subscribes: ["mesh.>"] },
            { name: "postgres", build: "p1", receives: ["postgres"], states: ["roles"] },
            { name: "app", build: "a2", requires: ["postgres"], publishes: ["app.>"] },
          ],
          assignments: [
            { module: "broker", node: holder },
            { module: "postgres", node: "hq-2" },
            ...appOn.map((node) => ({ module: "app", node })),
          ],
        }
        const reached = appOn.filter((_, i) => m.reached[i])
        const plan: PlanRecord = {
          id: "app-2",
          module: "app",
          build: "a2",
          commit: "c",
          previous: "b",
          ...(m.previous === undefined ? {} : { previousBuild: m.previous }),
          machines: reached,
          rest: appOn.filter((n) => !reached.includes(n)),
          sentAt: 0,
          state: m.state as PlanRecord["state"],
          note: "",
          tiers: [reached],
          tier: 0,
          sent: reached,
        }
        const named = nodes[(m.named - 1) % nodes.length]!
        const ran = runPure(
          pushProgram({ node: named, behind: false, wait: 0 }),
          bounded(keepingWorld(records, [plan])),
        )
        // The seed's rule, from the plan alone: a plan holds the holder's app until its gate passes
        // (every machine it has not reached; every machine while it is put back).
        const planHolds =
          m.appOnHolder &&
          (m.state === "rolling-back" || ((m.state === "open" || m.state === "failed") && !reached.includes(holder)))
        const heldSaid = ran.said.filter((l) => l.startsWith(`${holder} holds the bus, and the user list`))
        const questions = ran.exchanges.map((e) => e.question)
        const declared = questions.flatMap((q) => (q.q === "declare" ? [q.node] : []))
        if (named !== holder && planHolds) {
          left += 1
          expect(heldSaid).toHaveLength(1)
          expect(declared).not.toContain(holder)
        } else {
          expect(heldSaid).toHaveLength(0)
        }
        // Every delivery (hold … release), the flush's included: a holder it sends goes before its grant.
        let grantSeen = false
        for (const q of questions) {
          if (q.q === "hold") grantSeen = false
          if (q.q === "grant") grantSeen = true
          if (q.q === "declare" && q.node === holder) expect(grantSeen).toBe(false)
        }
      }),
      { numRuns: 300 },
    )
    expect(left).toBeGreaterThan(20)
  })
})
