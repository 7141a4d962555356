// The Metrics service as a driver uses it (issue 10): each answered question moves what the core's
// rule says, and a handler's failure is a store or a bus error by its tag, anything else nothing.
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { BusUnreachable } from "../../shells/src/bus/nats.ts"
import { Metrics } from "../../shells/src/metrics/service.ts"
import { StoreUnreadable } from "../../shells/src/store/postgres.ts"
import { only, parseExposition } from "../support/exposition.ts"

const verdict = {
  build: "b",
  module: "m",
  commit: "c",
  previous: "p",
  plan: "P",
  machines: ["n"],
  verdict: "failed" as const,
  rollback: "",
  why: "",
  component: "",
  judgingFrom: 0,
}

describe("Metrics, as the driver calls it", () => {
  it("answered and failed move the figures the core's rule says", async () => {
    const body = await Effect.runPromise(
      Effect.gen(function* () {
        const m = yield* Metrics
        yield* m.answered({ q: "record-verdict", verdict }, { ok: true, mine: true })
        yield* m.answered({ q: "record-verdict", verdict }, { ok: true, mine: false })
        yield* m.answered(
          {
            q: "save-plan",
            plan: {
              id: "P",
              module: "m",
              build: "b",
              commit: "c",
              previous: "p",
              machines: [],
              rest: [],
              sentAt: 0,
              state: "failed",
              note: "",
            },
          },
          { ok: false, why: "gone" },
        )
        yield* m.failed("open-plans", new StoreUnreadable({ url: "postgres://x", reason: "refused" }))
        yield* m.failed("publish", new BusUnreachable({ url: "nats://x", reason: "refused" }))
        yield* m.failed("open-plans", new Error("something else"))
        return (yield* m.exposition).body
      }).pipe(Effect.provide(Metrics.layerTest)),
    )
    const s = parseExposition(body).samples
    expect(only(s, "mesh_gate_verdicts_total")).toEqual(new Map([['mesh_gate_verdicts_total{verdict="failed"}', 1]]))
    expect(only(s, "mesh_store_errors_total")).toEqual(
      new Map([
        ['mesh_store_errors_total{operation="save-plan"}', 1],
        ['mesh_store_errors_total{operation="open-plans"}', 1],
      ]),
    )
    expect(only(s, "mesh_bus_errors_total")).toEqual(new Map([['mesh_bus_errors_total{operation="publish"}', 1]]))
  })
})
