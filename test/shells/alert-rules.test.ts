// The shipped Prometheus alert rules (issue 29, docs/prometheus/alerts.yml): valid for Prometheus
// (`promtool check rules`), doing what their unit tests say (`promtool test rules`, a case that fires
// and one that must not for every alert), naming only metrics, labels and values the controller serves,
// and each telling the operator what to run.
import { spawnSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { problemsOf, ruleExpressions } from "../support/promql-names.ts"

const root = join(import.meta.dirname, "..", "..")
const rules = join(root, "docs/prometheus/alerts.yml")
const ruleTests = join(root, "docs/prometheus/alerts.test.yml")
const rulesText = readFileSync(rules, "utf8")
const testsText = readFileSync(ruleTests, "utf8")

const promtool = (...args: ReadonlyArray<string>) => {
  const r = spawnSync("promtool", args, { cwd: root, encoding: "utf8", timeout: 50_000 })
  if (r.error !== undefined && "code" in r.error && r.error.code === "ENOENT") {
    throw new Error(
      "promtool is not installed: it comes with Debian's prometheus package (apt-get install -y prometheus; .ci/run installs it)",
    )
  }
  return { status: r.status, output: `${r.stdout}${r.stderr}` }
}

const alerts = ruleExpressions(rulesText)

describe("the alert rules", () => {
  it("promtool check rules: valid", () => {
    const r = promtool("check", "rules", rules)
    expect(r.output).toContain(`SUCCESS: ${alerts.length} rules found`)
    expect(r.status).toBe(0)
  })

  it("promtool test rules: every case passes", () => {
    const r = promtool("test", "rules", ruleTests)
    expect(r.output).toContain("SUCCESS")
    expect(r.status).toBe(0)
  })

  it("every alert has a case that fires and a case where it must not", () => {
    const cases = [...testsText.matchAll(/alertname: (\S+)\n\s*exp_alerts:( \[\])?/g)].map((m) => ({
      alert: m[1]!,
      fires: m[2] === undefined,
    }))
    expect(alerts.length).toBeGreaterThanOrEqual(10)
    for (const { alert } of alerts) {
      expect(
        cases.some((c) => c.alert === alert && c.fires),
        `${alert} fires in a case`,
      ).toBe(true)
      expect(
        cases.some((c) => c.alert === alert && !c.fires),
        `${alert} stays quiet in a case`,
      ).toBe(true)
    }
    for (const c of cases) expect(alerts.map((a) => a.alert)).toContain(c.alert)
  })

  it("names only metrics, labels and label values the controller serves", () => {
    for (const { alert, expr } of alerts) expect(problemsOf(expr), `${alert}: ${expr}`).toEqual([])
  })

  it("each has a for:, a severity and annotations that say what to run", () => {
    const blocks = rulesText.split(/^\s*- alert: /m).slice(1)
    expect(blocks).toHaveLength(alerts.length)
    for (const b of blocks) {
      const name = b.split("\n")[0]!.trim()
      expect(b, name).toMatch(/\n\s+for: \d+[smh]\n/)
      expect(b, name).toMatch(/\n\s+severity: (critical|warning)\n/)
      expect(b, name).toMatch(/\n\s+summary: /)
      expect(b, name).toMatch(/description:[\s\S]*`mesh-controller (status|plans|conditions)/)
    }
  })

  it("each rule's runbook_url points at its own section of docs/operations.md (issue 44)", () => {
    const guide = readFileSync(join(import.meta.dirname, "../../docs/operations.md"), "utf8")
    const blocks = rulesText.split(/^\s*- alert: /m).slice(1)
    for (const b of blocks) {
      const name = b.split("\n")[0]!.trim()
      expect(b, name).toContain(`runbook_url: "docs/operations.md#${name.toLowerCase()}"`)
      expect(guide, name).toMatch(new RegExp(`^### ${name}\n\n\\S`, "m"))
    }
  })
})

describe("the PromQL names check", () => {
  it("refuses a metric the controller does not serve, a label it lacks and a value it never takes", () => {
    expect(problemsOf("sum(mesh_lease_hold) != 1")).toEqual(["mesh_lease_hold is not a metric the controller serves"])
    expect(problemsOf('mesh_plans{phase="open"} > 0')).toEqual(["mesh_plans has no label phase"])
    expect(problemsOf('increase(mesh_gate_rollbacks_total{outcome="not-rolledback"}[5m])')).toEqual([
      'mesh_gate_rollbacks_total{outcome="not-rolledback"}: outcome is one of rolled-back, not-rolled-back',
    ])
    expect(problemsOf("sum by (node) (mesh_lease_held)")).toEqual([
      "grouped by node, a label none of mesh_lease_held has",
    ])
    expect(
      problemsOf(
        "histogram_quantile(0.9, sum by (le, loop) (rate(mesh_loop_duration_seconds_bucket[$__rate_interval])))",
      ),
    ).toEqual([])
    expect(problemsOf("up == 0")).toEqual(["up is not a metric the controller serves"])
  })
})
