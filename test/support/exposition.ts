// A small reader of Prometheus' text exposition format (version 0.0.4): `# HELP`, `# TYPE` and sample
// lines `name{label="value",…} value [timestamp]`, label values escaped with \\, \" and \n. Enough to
// check a scrape's figures; it refuses what it cannot read rather than guess.
import { seriesKey } from "./metrics-model.ts"

export interface Scrape {
  /** Series key (labels sorted, as seriesKey writes it) to value. */
  readonly samples: Map<string, number>
  /** Metric name to its `# TYPE`. */
  readonly types: Map<string, string>
  readonly help: Map<string, string>
}

const numberOf = (text: string): number => {
  if (text === "+Inf") return Infinity
  if (text === "-Inf") return -Infinity
  // Any case, as Prometheus reads it (Go's ParseFloat): prom-client writes a NaN as `Nan` (its
  // util.js), which Node's event-loop lag gauges are until their first sample, seen in CI when a
  // scrape came right after serve started.
  if (text.toLowerCase() === "nan") return NaN
  const n = Number(text)
  if (text === "" || Number.isNaN(n)) throw new Error(`not a sample value: ${JSON.stringify(text)}`)
  return n
}

const readLabels = (text: string, at: number): { labels: Record<string, string>; end: number } => {
  const labels: Record<string, string> = {}
  let i = at
  for (;;) {
    while (text[i] === " " || text[i] === ",") i++
    if (text[i] === "}") return { labels, end: i + 1 }
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i))
    if (name === null || text[i + name[0].length] !== "=" || text[i + name[0].length + 1] !== '"')
      throw new Error(`bad label at ${i} in ${text}`)
    i += name[0].length + 2
    let value = ""
    for (; i < text.length && text[i] !== '"'; i++) {
      if (text[i] === "\\") {
        i++
        value += text[i] === "n" ? "\n" : text[i]
      } else value += text[i]
    }
    if (text[i] !== '"') throw new Error(`unterminated label value in ${text}`)
    labels[name[0]] = value
    i++
  }
}

export const parseExposition = (body: string): Scrape => {
  const samples = new Map<string, number>()
  const types = new Map<string, string>()
  const help = new Map<string, string>()
  for (const line of body.split("\n")) {
    if (line.trim() === "") continue
    if (line.startsWith("#")) {
      const m = /^# (HELP|TYPE) ([A-Za-z_:][A-Za-z0-9_:]*) (.*)$/.exec(line)
      if (m !== null) (m[1] === "TYPE" ? types : help).set(m[2]!, m[3]!)
      continue
    }
    const name = /^[A-Za-z_:][A-Za-z0-9_:]*/.exec(line)
    if (name === null) throw new Error(`not a sample line: ${line}`)
    let i = name[0].length
    let labels: Record<string, string> = {}
    if (line[i] === "{") ({ labels, end: i } = readLabels(line, i + 1))
    const rest = line.slice(i).trim().split(/\s+/)
    const key = seriesKey(name[0], labels)
    if (samples.has(key)) throw new Error(`series ${key} twice in one scrape`)
    samples.set(key, numberOf(rest[0] ?? ""))
  }
  return { samples, types, help }
}

/** Only the series whose metric name begins with `prefix`. */
export const only = (samples: ReadonlyMap<string, number>, prefix: string): Map<string, number> =>
  new Map([...samples].filter(([k]) => k.startsWith(prefix)))
