// What a PromQL expression shipped in docs/ (the alert rules, the Grafana dashboard) names, checked
// against the metrics the controller really serves (issue 29): the catalogue `Metrics` registers
// (core/src/controller/metrics.ts), so a metric renamed there, or a label or label value it no longer
// has, breaks the test of the file that still names the old one. A small reader of the PromQL these
// files use (selectors, functions, aggregations with by/without, on/ignoring, offsets), not a parser.
import { JudgingOutcome, metricList, type MetricSpec } from "@mesh-core/core/controller/metrics"
import { PlanState } from "@mesh-core/core/gate/plan/records"

/** Labels every scraped series carries (Prometheus' target labels), and `le` on a histogram's buckets. */
const targetLabels = new Set(["job", "instance"])

/**
 * The values a label can take, where the set is bounded and known: from the core's Schemas where it has
 * one, else as docs/metrics.md's table names them. A matcher on another value never matches.
 */
const knownValues: Readonly<Record<string, Readonly<Record<string, ReadonlyArray<string>>>>> = {
  mesh_plans: { state: PlanState.literals },
  mesh_gate_judgings_total: { outcome: JudgingOutcome.literals },
  mesh_standing_words_total: { outcome: ["kept", "older-than-kept", "set-aside"] },
  mesh_machine_messages_total: {
    kind: ["report", "statement", "witness"],
    outcome: ["kept", "older-than-kept", "set-aside"],
  },
  mesh_conditions_raised_total: { severity: ["warning", "urgent"] },
  mesh_conditions_open: { severity: ["warning", "urgent"] },
  mesh_condition_clears_total: { by: ["DG", "DH"] },
  mesh_gate_verdicts_total: { verdict: ["passed", "failed"] },
  mesh_gate_rollbacks_total: { outcome: ["rolled-back", "not-rolled-back"] },
  mesh_sends_total: { why: ["tier", "rest", "rollback", "user-list"], outcome: ["sent", "failed"] },
  mesh_events_published_total: { outcome: ["published", "failed"] },
  mesh_operator_acts_total: { act: ["pause", "resume", "promote", "abort", "retry"], outcome: ["done", "refused"] },
  mesh_loop_duration_seconds: { loop: ["gate", "standings", "reports", "health", "witnesses"] },
  mesh_loop_last_run_timestamp_seconds: { loop: ["gate", "standings", "reports", "health", "witnesses"] },
}

const keywords = new Set([
  "and",
  "or",
  "unless",
  "by",
  "without",
  "on",
  "ignoring",
  "group_left",
  "group_right",
  "offset",
  "bool",
  "inf",
  "nan",
])

/** The metric a served series name belongs to: a histogram's `_bucket`, `_sum` and `_count` are its own. */
export const servedMetric = (name: string): { readonly spec: MetricSpec; readonly bucket: boolean } | undefined => {
  for (const spec of metricList) {
    if (spec.name === name) return { spec, bucket: false }
    if (spec.type === "histogram" && [`${spec.name}_bucket`, `${spec.name}_sum`, `${spec.name}_count`].includes(name)) {
      return { spec, bucket: name === `${spec.name}_bucket` }
    }
  }
  return undefined
}

interface Matcher {
  readonly label: string
  readonly op: string
  readonly value: string
}

const matchersOf = (body: string): ReadonlyArray<Matcher> =>
  [...body.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"/g)].map((m) => ({
    label: m[1]!,
    op: m[2]!,
    value: m[3]!,
  }))

/** The series names an expression selects (Grafana's `$__rate_interval` and `${…}` are read as durations). */
export const metricNamesOf = (expr: string): ReadonlyArray<string> => problemsAndNames(expr).names

/** Every way an expression names something the controller does not serve; empty when it names only served metrics. */
export const problemsOf = (expr: string): ReadonlyArray<string> => problemsAndNames(expr).problems

const problemsAndNames = (
  expr: string,
): { readonly names: ReadonlyArray<string>; readonly problems: ReadonlyArray<string> } => {
  const problems: Array<string> = []
  const names: Array<string> = []
  // Grafana's variables, then ranges and offsets: none names a metric.
  let rest = expr
    .replace(/\$\{[^}]*\}|\$__[a-z_]+|\$[a-zA-Z_]+/g, "5m")
    .replace(/\[[^\]]*\]/g, " ")
    .replace(/\boffset\s+[0-9a-z]+/g, " ")
  const selectors: Array<{ readonly name: string | undefined; readonly matchers: ReadonlyArray<Matcher> }> = []
  rest = rest.replace(/([a-zA-Z_:][a-zA-Z0-9_:]*)?\s*\{([^}]*)\}/g, (_, name: string | undefined, body: string) => {
    selectors.push({ name: name !== undefined && !keywords.has(name) ? name : undefined, matchers: matchersOf(body) })
    return name !== undefined && keywords.has(name) ? ` ${name} ` : " "
  })
  const grouping: Array<string> = []
  rest = rest.replace(
    /\b(by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)/g,
    (_, _k: string, labels: string) => {
      grouping.push(
        ...labels
          .split(",")
          .map((l) => l.trim())
          .filter((l) => l !== ""),
      )
      return " "
    },
  )
  rest = rest.replace(/"(?:[^"\\]|\\.)*"/g, " ")
  for (const m of rest.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*(\s*\()?/g)) {
    const word = m[0].replace(/\s*\($/, "")
    if (m[1] !== undefined || keywords.has(word.toLowerCase())) continue // a function or aggregation, or a keyword
    if (/^[0-9]/.test(word)) continue
    selectors.push({ name: word, matchers: [] })
  }
  const seenLabels = new Set<string>(targetLabels)
  for (const s of selectors) {
    const name = s.name ?? s.matchers.find((m) => m.label === "__name__" && m.op === "=")?.value
    if (name === undefined) {
      problems.push(
        `a selector without a metric name: {${s.matchers.map((m) => `${m.label}${m.op}"${m.value}"`).join(", ")}}`,
      )
      continue
    }
    names.push(name)
    const served = servedMetric(name)
    if (served === undefined) {
      problems.push(`${name} is not a metric the controller serves`)
      continue
    }
    const labels = new Set([...served.spec.labels, ...targetLabels, ...(served.bucket ? ["le"] : [])])
    for (const l of labels) seenLabels.add(l)
    for (const m of s.matchers) {
      if (m.label === "__name__") continue
      if (!labels.has(m.label)) problems.push(`${name} has no label ${m.label}`)
      const values = knownValues[served.spec.name]?.[m.label]
      if (values === undefined) continue
      const wanted = m.op === "=" ? [m.value] : m.op === "=~" ? m.value.split("|") : []
      for (const v of wanted)
        if (!values.includes(v)) problems.push(`${name}{${m.label}="${v}"}: ${m.label} is one of ${values.join(", ")}`)
    }
  }
  for (const l of grouping)
    if (!seenLabels.has(l)) problems.push(`grouped by ${l}, a label none of ${[...new Set(names)].join(", ")} has`)
  return { names, problems }
}

/**
 * The `expr:` of every rule in a rules file, read without a YAML library: a one-line `expr: …` or a
 * block scalar (`expr: |`) whose lines are indented past the key. alerts.yml writes only these two.
 */
export const ruleExpressions = (yaml: string): ReadonlyArray<{ readonly alert: string; readonly expr: string }> => {
  const lines = yaml.split("\n")
  const out: Array<{ alert: string; expr: string }> = []
  let alert = ""
  for (let i = 0; i < lines.length; i++) {
    const a = /^\s*- alert:\s*(\S+)\s*$/.exec(lines[i]!)
    if (a !== null) alert = a[1]!
    const e = /^(\s*)expr:\s*(.*)$/.exec(lines[i]!)
    if (e === null) continue
    const indent = e[1]!.length
    if (e[2] !== "|" && e[2] !== ">") {
      out.push({ alert, expr: e[2]! })
      continue
    }
    const body: Array<string> = []
    while (i + 1 < lines.length && (lines[i + 1]!.trim() === "" || lines[i + 1]!.search(/\S/) > indent))
      body.push(lines[++i]!)
    out.push({ alert, expr: body.join("\n").trim() })
  }
  return out
}
