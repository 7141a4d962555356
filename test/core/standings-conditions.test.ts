// A failing standing as the condition `status`, `conditions` and the gate read (seed 004: the standings
// watcher raises into the conditions keeper; issue 28, issue 40), and what a replay under other
// settings takes the standings' acts to have done.
import { describe, expect, it } from "vitest"
import { heldStanding } from "@mesh-core/core/provisioner/contributions"
import {
  failingStandingKind,
  standingConditionKey,
  standingsAsConditions,
  standingSummary,
} from "@mesh-core/core/standings/conditions"
import { standingsInference } from "@mesh-core/core/standings/questions"
import type { Kept } from "@mesh-core/core/standings/standings"

const failing: Kept = {
  provider: "postgres",
  providerNode: "hq-2",
  consumer: "letta",
  consumerNode: "hq-1",
  state: "failing",
  since: "2026-01-01T00:00:00.000Z",
  at: Date.parse("2026-01-01T00:05:00Z"),
  class: "unreachable",
  error: "connection refused",
  attempts: 3,
}
/** A provider holding a mass withdrawal announces it with the held word as both its class and its consumer (issue 40). */
const held: Kept = { ...failing, class: heldStanding, consumer: heldStanding, error: "12 of 40 consumers would go" }

describe("a failing standing's condition", () => {
  it("is a held withdrawal only when both its class and its consumer are the held word", () => {
    expect(standingConditionKey(held)).toBe("withdrawal.postgres.hq-2.held")
    expect(standingSummary(held)).toBe(
      "postgres on hq-2 holds a mass withdrawal until a person acts, since 2026-01-01T00:00:00.000Z: 12 of 40 consumers would go",
    )
    for (const one of [
      { ...failing, class: heldStanding },
      { ...failing, consumer: heldStanding },
    ]) {
      expect(standingConditionKey(one)).toBe(`standing.postgres.hq-2.${one.consumer}.hq-1.failing`)
      expect(standingSummary(one)).toContain(`postgres on hq-2 is failing ${one.consumer} on hq-1: ${one.class} since`)
    }
  })

  it("names the consumer's machine when the standing knows it, and not otherwise", () => {
    const { consumerNode: _, ...nowhere } = failing
    expect(standingSummary(failing)).toBe(
      "postgres on hq-2 is failing letta on hq-1: unreachable since 2026-01-01T00:00:00.000Z, 3 attempts (said 2026-01-01T00:05:00Z); last error: connection refused",
    )
    expect(standingSummary(nowhere)).toBe(
      "postgres on hq-2 is failing letta: unreachable since 2026-01-01T00:00:00.000Z, 3 attempts (said 2026-01-01T00:05:00Z); last error: connection refused",
    )
    expect(standingConditionKey(nowhere)).toBe("standing.postgres.hq-2.letta.failing")
  })

  it("is raised by the standings, urgent, about the provider's machine, for the failing ones only", () => {
    expect(standingsAsConditions([failing, { ...failing, state: "recovered", consumer: "grafana" }])).toEqual([
      {
        key: "standing.postgres.hq-2.letta.hq-1.failing",
        source: "standings",
        raised: Date.parse("2026-01-01T00:00:00Z"),
        scope: "module",
        id: "postgres.letta",
        machine: "hq-2",
        also: [],
        kind: failingStandingKind,
        severity: "urgent",
        summary: standingSummary(failing),
      },
    ])
  })
})

describe("the standings' acts in a replay under other settings", () => {
  it("takes the letters set aside as written, each fresh by its stream sequence, and the standings as written", () => {
    const letter = (streamSequence: number) => ({
      kind: "word",
      stream: "STANDINGS",
      subject: "provisioner.failing",
      streamSequence,
      body: "{}",
      why: "not JSON",
    })
    const setAside = standingsInference["set-aside"].whatIf
    expect(setAside({ q: "set-aside", letters: [letter(7), letter(3)] }, undefined, 0)).toEqual({ fresh: [7, 3] })
    expect(standingsInference["write-standings"].whatIf({ q: "write-standings", writes: [] }, undefined, 0)).toEqual({
      ok: true,
    })
  })
})
