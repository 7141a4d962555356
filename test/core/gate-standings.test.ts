// Failing standings are evidence the gate reads (issue 40; seed 003's judgeHealth: "no new condition
// about it … naming the module on that machine"; seed 004 keeps standings as conditions).
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { GateFacts } from "@mesh-core/core/gate/judging/facts"
import { indexConditions } from "@mesh-core/core/gate/judging/conditions"
import { healthGood, healthNotYet, judgeHealth } from "@mesh-core/core/gate/judging/judge"
import { standingsAsConditions } from "@mesh-core/core/standings/conditions"
import type { Kept } from "@mesh-core/core/standings/standings"

const machines = ["hq-1", "hq-2"]
const modules = ["postgres", "letta", "grafana"]
const sent = Date.parse("2026-01-01T00:10:00Z")

const standing: fc.Arbitrary<Kept> = fc.record({
  provider: fc.constantFrom(...modules),
  providerNode: fc.constantFrom(...machines),
  consumer: fc.constantFrom(...modules),
  consumerNode: fc.constantFrom(...machines),
  state: fc.constantFrom("failing" as const, "recovered" as const),
  // Began before the send, at it, or after it; said again at any time after it began.
  since: fc.integer({ min: -120, max: 120 }).map((s) => new Date(sent + s * 1_000).toISOString()),
  at: fc.integer({ min: 0, max: 600 }).map((s) => sent + s * 1_000),
  class: fc.constant("unreachable"),
  error: fc.constant("connection refused"),
  attempts: fc.integer({ min: 1, max: 9 }),
})

const applied = (machine: string, open: GateFacts["open"]): GateFacts => ({
  now: sent + 900_000,
  reports: { [machine]: { at: sent + 1, current: true, outcome: "applied" } },
  engines: {},
  served: { ok: true, value: {} },
  ...(open === undefined ? {} : { open }),
  rolledBack: {},
  holder: { ok: true, value: null },
  health: { ok: true, value: {} },
})

describe("failing standings as the gate's conditions (issue 40, 004-12)", () => {
  it("a standing failing since the send, on the machine judged and naming the module judged, holds it and says which; one failing since before the send, recovered, or elsewhere is no evidence", () => {
    fc.assert(
      fc.property(
        fc.array(standing, { maxLength: 6 }),
        fc.constantFrom(...modules),
        fc.constantFrom(...machines),
        (kept, module, machine) => {
          // The seed's rule, stated over the standings themselves.
          const evidence = kept.filter(
            (k) =>
              k.state === "failing" &&
              k.providerNode === machine &&
              (k.provider === module || k.consumer === module) &&
              Date.parse(k.since!) >= sent,
          )
          const open = standingsAsConditions(kept)
          const f = applied(machine, { ok: true, value: open })
          const m = { tools: [], deliveredVersions: [] }
          for (const word of [
            judgeHealth(module, "", m, machine, sent, f),
            judgeHealth(module, "", m, machine, sent, f, indexConditions(open).first),
          ]) {
            if (evidence.length === 0) expect(word.health).toBe(healthGood)
            else {
              expect(word.health).toBe(healthNotYet)
              const named = evidence.map(
                (k) =>
                  `standing.${k.provider}.${k.providerNode}.${k.consumer}.${k.consumerNode}.failing — ${k.provider} on ${k.providerNode} is failing ${k.consumer}`,
              )
              expect(named.some((n) => word.why.includes(n))).toBe(true)
            }
          }
        },
      ),
    )
  })
})
