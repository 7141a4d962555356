// The shipped Grafana dashboard (issue 29, docs/grafana/mesh-controller.json): importable as it is
// (a `${DS_PROMETHEUS}` input every query uses, core panels only, a recent schema), covering what an
// operator looks at, and every PromQL expression naming only metrics, labels and values the
// controller serves (the catalogue in core/src/controller/metrics.ts), so a renamed metric breaks here.
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { metricList } from "@mesh-core/core/controller/metrics"
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { metricNamesOf, problemsOf, servedMetric } from "../support/promql-names.ts"

const file = join(import.meta.dirname, "..", "..", "docs/grafana/mesh-controller.json")
const text = readFileSync(file, "utf8")

// The file decoded as the fields read here (Structs ignore the rest of what Grafana keeps).
const Target = Schema.Struct({ expr: Schema.String, datasource: Schema.Unknown, refId: Schema.String })
const Panel = Schema.Struct({
  id: Schema.Number,
  type: Schema.String,
  title: Schema.String,
  datasource: Schema.optionalKey(Schema.Unknown),
  targets: Schema.optionalKey(Schema.Array(Target)),
  panels: Schema.optionalKey(Schema.Array(Schema.Unknown)),
})
const Dashboard = Schema.Struct({
  __inputs: Schema.Array(Schema.Unknown),
  __requires: Schema.Array(Schema.Struct({ type: Schema.String, id: Schema.String })),
  schemaVersion: Schema.Number,
  uid: Schema.String,
  panels: Schema.Array(Panel),
  templating: Schema.Struct({ list: Schema.Array(Schema.Struct({ name: Schema.String, definition: Schema.String })) }),
})
const dashboard = Schema.decodeUnknownSync(Schema.fromJsonString(Dashboard))(text)
const panels = dashboard.panels
const queries = panels.flatMap((p) =>
  (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr, datasource: t.datasource })),
)
// The dashboard names its data source by Grafana's input, spelled as Grafana spells it.
const promDs = { type: "prometheus", uid: "$" + "{DS_PROMETHEUS}" }
const corePanels = new Set(["row", "stat", "timeseries", "gauge", "bargauge", "table", "text"])

describe("the Grafana dashboard", () => {
  it("is importable: a Prometheus input, a recent schema, a fixed uid, core panels only, unique ids", () => {
    expect(dashboard.__inputs).toEqual([
      expect.objectContaining({ name: "DS_PROMETHEUS", type: "datasource", pluginId: "prometheus" }),
    ])
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(39)
    expect(dashboard.uid).toBe("mesh-controller")
    for (const p of panels) expect(corePanels, p.title).toContain(p.type)
    // Rows are expanded: a collapsed row would hold its panels (and their queries) inside it.
    for (const p of panels) expect(p.panels ?? [], p.title).toEqual([])
    for (const r of dashboard.__requires.filter((r) => r.type === "panel")) expect(corePanels).toContain(r.id)
    const ids = panels.map((p) => p.id)
    expect(new Set(ids).size).toBe(ids.length)
  })

  it("every query goes to the DS_PROMETHEUS input", () => {
    expect(queries.length).toBeGreaterThan(15)
    for (const p of panels.filter((p) => p.type !== "row")) expect(p.datasource, p.title).toEqual(promDs)
    for (const q of queries) expect(q.datasource, q.panel).toEqual(promDs)
  })

  it("every expression names only metrics, labels and label values the controller serves", () => {
    for (const q of queries) expect(problemsOf(q.expr), `${q.panel}: ${q.expr}`).toEqual([])
    for (const v of dashboard.templating.list) {
      const m = /^label_values\((\w+),\s*(\w+)\)$/.exec(v.definition)
      expect(m, v.name).not.toBeNull()
      expect(servedMetric(m![1]!), v.definition).toBeDefined()
    }
  })

  it("shows every metric the controller serves", () => {
    const shown = new Set(queries.flatMap((q) => metricNamesOf(q.expr)).map((n) => servedMetric(n)?.spec.name))
    expect(metricList.map((m) => m.name).filter((n) => !shown.has(n))).toEqual([])
  })

  it("has a row for the lease, standings, the gate, conditions, store and bus, and loops", () => {
    const rows = panels.filter((p) => p.type === "row").map((p) => p.title)
    expect(rows).toEqual(["Lease", "Standings", "Release gate", "Conditions", "Store and bus", "Loops"])
    const exprs = queries.map((q) => q.expr)
    expect(
      exprs.some((e) => e.includes("histogram_quantile(") && e.includes("mesh_loop_duration_seconds_bucket")),
    ).toBe(true)
    expect(exprs.some((e) => e.startsWith("time() - ") && e.includes("mesh_loop_last_run_timestamp_seconds"))).toBe(
      true,
    )
  })
})
