// A model of what a Prometheus registry holds after a list of metric updates, written from the
// exposition format's own rules (counters add, gauges are set, a histogram's buckets are cumulative
// with `le="+Inf"`, `_sum` and `_count`), independent of prom-client: the tests compare a scrape of the
// real registry against it.
import type { MetricSpec, MetricUpdate } from "@mesh-core/core/controller/metrics"

/** `name{a="x",b="y"}` with the labels sorted by name: one series, as the tests key it. */
export const seriesKey = (name: string, labels: Readonly<Record<string, string>>): string => {
  const entries = Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return entries.length === 0 ? name : `${name}{${entries.map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(",")}}`
}

const formatLe = (b: number): string => (b === Infinity ? "+Inf" : String(b))

/** Applies updates to a model of the registry: series key to value. Label-less counters and gauges start at 0, as a registry shows them. */
export const modelOf = (
  specs: ReadonlyArray<MetricSpec>,
  updates: ReadonlyArray<MetricUpdate>,
): Map<string, number> => {
  const byName = new Map(specs.map((s) => [s.name, s]))
  const series = new Map<string, number>()
  for (const s of specs) if (s.labels.length === 0 && s.type !== "histogram") series.set(s.name, 0)
  for (const u of updates) {
    const s = byName.get(u.metric)
    if (s === undefined) throw new Error(`an update names ${u.metric}, which is no metric`)
    if (u.op === "reset") {
      for (const k of [...series.keys()]) if (k === s.name || k.startsWith(`${s.name}{`)) series.delete(k)
      continue
    }
    if (u.op === "inc")
      series.set(seriesKey(s.name, u.labels), (series.get(seriesKey(s.name, u.labels)) ?? 0) + u.value)
    else if (u.op === "set") series.set(seriesKey(s.name, u.labels), u.value)
    else {
      for (const b of [...(s.buckets ?? []), Infinity]) {
        const k = seriesKey(`${s.name}_bucket`, { ...u.labels, le: formatLe(b) })
        series.set(k, (series.get(k) ?? 0) + (u.value <= b ? 1 : 0))
      }
      const sum = seriesKey(`${s.name}_sum`, u.labels)
      const count = seriesKey(`${s.name}_count`, u.labels)
      series.set(sum, (series.get(sum) ?? 0) + u.value)
      series.set(count, (series.get(count) ?? 0) + 1)
    }
  }
  return series
}

/** The value of one series in a model or a scrape, 0 when absent. */
export const valueOf = (
  m: ReadonlyMap<string, number>,
  name: string,
  labels: Readonly<Record<string, string>> = {},
): number => m.get(seriesKey(name, labels)) ?? 0

/** The sum of every series of one metric name (labels ignored). */
export const totalOf = (m: ReadonlyMap<string, number>, name: string): number =>
  [...m].filter(([k]) => k === name || k.startsWith(`${name}{`)).reduce((a, [, v]) => a + v, 0)
