// The watch port's demo (examples/metrics-demo.ts), checked: two releases through the gate program,
// one put back and one passed, scraped; every mesh_ figure is what the model of the exposition format
// computes from the updates, and the ones a person looks for say what happened.
import { describe, expect, it } from "vitest"
import { metricList } from "@mesh-core/core/controller/metrics"
import { demoUpdates, scrapeAfter } from "../../examples/metrics-demo.ts"
import { only, parseExposition } from "../support/exposition.ts"
import { modelOf } from "../support/metrics-model.ts"

describe("the metrics demo", () => {
  it("a refused build put back and a build passed: one verdict each, one rollback, the rest and the rollback each sent once, one rolled-back event", async () => {
    const updates = demoUpdates()
    const s = await scrapeAfter(updates, { held: true, epoch: 3 })
    const [status, ...rest] = s.metrics.split("\n")
    expect(status).toMatch(/^200 text\/plain; version=0\.0\.4/)
    const samples = parseExposition(rest.join("\n")).samples
    expect(only(samples, "mesh_")).toEqual(modelOf(metricList, updates))
    expect(samples.get('mesh_gate_verdicts_total{verdict="failed"}')).toBe(1)
    expect(samples.get('mesh_gate_verdicts_total{verdict="passed"}')).toBe(1)
    expect(samples.get('mesh_gate_rollbacks_total{outcome="rolled-back"}')).toBe(1)
    expect(samples.get('mesh_sends_total{outcome="sent",why="rest"}')).toBe(1)
    expect(samples.get('mesh_sends_total{outcome="sent",why="rollback"}')).toBe(1)
    expect(samples.get('mesh_events_published_total{event="rolled-back",outcome="published"}')).toBe(1)
    expect(samples.get('mesh_loop_duration_seconds_count{loop="gate"}')).toBeGreaterThanOrEqual(3)
    expect(s.healthz).toBe("200 text/plain; charset=utf-8\nalive\n")
    expect(s.readyz).toBe("200 text/plain; charset=utf-8\nready\n")
  })

  it("a controller that does not hold the lease is 503 and says who does", async () => {
    const s = await scrapeAfter([], { held: false, holder: "hq-1/4242/ab12" })
    expect(s.readyz).toBe(
      "503 text/plain; charset=utf-8\nnot ready:\n- this controller does not hold the controller lease (hq-1/4242/ab12 holds it)\n",
    )
  })
})
